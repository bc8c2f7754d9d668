// WatchNamespace (vexil.changes.v1.ChangeService): a namespace's change stream, the same messages as
// the OFREP event stream. api/grpc/change-service.ts registers the service and authenticates the call
// as the unary RPCs are; the stream ends when the server drains (LongLivedStreams), its token is
// deleted or expires, or its identity loses the role WatchNamespace needs there (ADR 48), and is cut with RESOURCE_EXHAUSTED when the client stops reading, as an SSE
// stream is.

import { status as GrpcStatus, type ServerWritableStream } from '@grpc/grpc-js';
import { failStream, WATCH_ENTRY } from '../../api/grpc/change-service.js';
import { malformedRequestStatus } from '../../api/grpc/request-decoding.js';
import { authenticate, declaredAccessOf, type RpcDeps, RpcError } from '../../api/grpc/rpc.js';
import type { LongLivedStreams } from '../../api/long-lived-streams.js';
import { authorize } from '../../auth/authorize.js';
import type { RevisionChange, RevisionWatch } from '../../cache/revision-watch.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { StreamTickets } from './tickets.js';

export interface ChangeStreamDeps {
  watch: RevisionWatch;
  streams: LongLivedStreams;
  /** Present when authentication is required: streams end with their token. */
  tickets: StreamTickets | undefined;
  maxBufferedBytes: number;
}

interface WatchRequest {
  namespace_key: string;
  last_revision: string;
}

interface ChangeMessage {
  type: 'refetchEvaluation';
  namespace_key: string;
  etag: string;
  last_modified: number;
}

const messages = new WeakMap<RevisionChange, ChangeMessage>();

function messageOf(change: RevisionChange): ChangeMessage {
  let message = messages.get(change);
  if (message === undefined) {
    message = {
      type: 'refetchEvaluation',
      namespace_key: change.namespaceKey,
      etag: change.revision,
      last_modified: change.lastModified,
    };
    messages.set(change, message);
  }
  return message;
}

/** WatchNamespace's handler over these change streams. */
export const watchNamespace = (changes: ChangeStreamDeps) => (deps: RpcDeps) => {
  return (call: ServerWritableStream<WatchRequest, ChangeMessage>): void => {
    const malformed = malformedRequestStatus(call.request);
    if (malformed) {
      call.emit('error', malformed);
      return;
    }
    const request = call.request;
    const namespaceKey = namespaceKeyOrDefault(request.namespace_key);
    let told = request.last_revision === '' ? undefined : request.last_revision;
    let closed = false;
    let stopWatching = () => {};
    let unregister = () => {};
    let release = () => {};
    const close = () => {
      if (closed) return;
      closed = true;
      stopWatching();
      unregister();
      release();
    };
    const end = () => {
      if (closed) return;
      close();
      call.end();
    };
    const tell = (change: RevisionChange) => {
      if (closed || change.revision === told) return;
      told = change.revision;
      if (call.writableLength > changes.maxBufferedBytes) {
        close();
        failStream(call, new RpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'client is not reading its change stream'));
        return;
      }
      call.write(messageOf(change));
    };
    call.on('cancelled', close);
    call.on('close', close);

    authenticate(WATCH_ENTRY, { namespaceKey }, call.metadata, deps).then(
      async (authentication) => {
        if (closed || call.cancelled) return close();
        unregister = changes.streams.add(end);
        if (closed) return;
        if (changes.tickets !== undefined && authentication !== null) {
          // Asked again on each check with the input it was first decided on.
          release = changes.tickets.hold(authentication, end, (current) => {
            authorize(declaredAccessOf(WATCH_ENTRY), current, { namespaceKey });
          });
        }
        const watching = changes.watch.watch(namespaceKey, tell);
        stopWatching = watching.stop;
        try {
          tell(await watching.current);
        } catch (err) {
          close();
          failStream(call, err);
        }
      },
      (err: unknown) => {
        close();
        failStream(call, err);
      },
    );
  };
};
