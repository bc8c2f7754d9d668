// vexil.changes.v1.ChangeService (proto/vexil/changes/v1/changes.proto), Vexil's gRPC extension: a
// namespace's change stream, the same messages as the OFREP event stream. The call is authenticated
// as the unary RPCs are (rpc.ts, kind `change-stream`: the evaluation group, namespace-scoped tokens
// for their namespace), ends when the server drains (LongLivedStreams) or its token is deleted or
// expires, and is cut with RESOURCE_EXHAUSTED when the client stops reading, as an SSE stream is.

import {
  status as GrpcStatus,
  type Server,
  type ServerWritableStream,
  type ServiceClientConstructor,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { RevisionChange, RevisionWatch } from '../../cache/revision-watch.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { StreamTickets } from '../../services/stream-tickets.js';
import { errorStatus } from '../error-status.js';
import type { LongLivedStreams } from '../long-lived-streams.js';
import { fliptGrpcObject } from './protos.js';
import { decodingSafely, malformedRequestStatus } from './request-decoding.js';
import { type AnyRpc, authenticate, type RpcDeps, RpcError } from './rpc.js';

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

/** The service's one entry, as the unary tables hold theirs: authentication reads its kind and access. */
export const WATCH_ENTRY: AnyRpc = {
  method: 'WatchNamespace',
  kind: 'change-stream',
  access: { resource: 'stream', action: 'watch', namespace: 'request' },
  handle: () => undefined,
};

function fail(call: ServerWritableStream<WatchRequest, ChangeMessage>, err: unknown): void {
  const { code, message } = err instanceof RpcError ? { code: err.code, message: err.message } : errorStatus(err);
  call.emit('error', { code, details: message });
}

function watchNamespace(deps: RpcDeps, changes: ChangeStreamDeps | undefined) {
  return (call: ServerWritableStream<WatchRequest, ChangeMessage>): void => {
    if (changes === undefined) {
      fail(call, new RpcError(GrpcStatus.UNIMPLEMENTED, 'change streams are off (ofrep.event_streams.enabled)'));
      return;
    }
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
        fail(call, new RpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'client is not reading its change stream'));
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
          release = changes.tickets.hold(authentication, end);
        }
        const watching = changes.watch.watch(namespaceKey, tell);
        stopWatching = watching.stop;
        try {
          tell(await watching.current);
        } catch (err) {
          close();
          fail(call, err);
        }
      },
      (err: unknown) => {
        close();
        fail(call, err);
      },
    );
  };
}

/** Registers vexil.changes.v1.ChangeService (UNIMPLEMENTED while change streams are off). */
export function addChangeService(server: Server, deps: RpcDeps, changes: ChangeStreamDeps | undefined): void {
  const service = (
    fliptGrpcObject() as unknown as { vexil: { changes: { v1: { ChangeService: ServiceClientConstructor } } } }
  ).vexil.changes.v1.ChangeService.service;
  const implementation: UntypedServiceImplementation = { WatchNamespace: watchNamespace(deps, changes) };
  server.addService(decodingSafely(service), implementation);
}
