// The open change streams over HTTP (OFREP's event streams and the native one): what happens when one
// opens, the heartbeat for all of them (a job of the jobs room, `stream_heartbeat`), and their ends. A stream watches its namespace's
// revision (cache/revision-watch.ts) and is sent one refetch message per new revision. When it opens:
// a client naming the current revision (Last-Event-ID) is sent nothing; any other client is sent the
// current revision at once, since it cannot have seen what changed between its last fetch and now.
// With authentication required a stream is held by the stream tickets (tickets.ts) and ends when its
// token goes or its identity loses the role the route needs.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { changeFrame } from '../../api/change-messages.js';
import { httpAccessInput } from '../../api/http/access-input.js';
import type { LongLivedStreams } from '../../api/long-lived-streams.js';
import { authorize } from '../../auth/authorize.js';
import type { RevisionChange, RevisionWatch } from '../../cache/revision-watch.js';
import { SseStream } from './sse-stream.js';
import type { StreamAuthorization, StreamTickets } from './tickets.js';

export interface SseHubOptions {
  watch: RevisionWatch;
  streams: LongLivedStreams;
  /** Present when authentication is required: authenticated streams end with their token. */
  tickets: StreamTickets | undefined;
  maxBufferedBytes: number;
}

/** Reconnection delays told to clients are spread over this range, so a restart is not met all at once. */
const RETRY_MIN_MS = 1000;
const RETRY_SPREAD_MS = 2000;

/**
 * The stream's own authorization, as the route decided it when the stream opened (its declaration, the
 * request's input): asked again while the stream is open, since a person's roles can change.
 */
function streamAuthorization(request: FastifyRequest): StreamAuthorization | undefined {
  const declared = request.routeOptions.config.authorization?.declared;
  if (declared === undefined) return undefined;
  const input = httpAccessInput(request, declared.access);
  return (authentication) => {
    authorize(declared, authentication, input);
  };
}

function lastEventIdOf(request: FastifyRequest): string | undefined {
  const value = request.headers['last-event-id'];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.trim();
}

export class SseHub {
  readonly #options: SseHubOptions;
  readonly #open = new Set<SseStream>();

  constructor(options: SseHubOptions) {
    this.#options = options;
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.#open.size;
  }

  /** Answers the request with the namespace's change stream; resolves once the stream has opened. */
  async open(request: FastifyRequest, reply: FastifyReply, namespaceKey: string): Promise<void> {
    const { watch, streams, tickets } = this.#options;
    let stopWatching = () => {};
    let unregister = () => {};
    let release = () => {};
    const stream = new SseStream(reply, {
      maxBufferedBytes: this.#options.maxBufferedBytes,
      retryMs: RETRY_MIN_MS + Math.floor(Math.random() * RETRY_SPREAD_MS),
      onClose: () => {
        stopWatching();
        unregister();
        release();
        this.#open.delete(stream);
      },
    });
    const end = () => stream.end();
    unregister = streams.add(end);
    if (tickets !== undefined && request.authentication !== null) {
      release = tickets.hold(request.authentication, end, streamAuthorization(request));
    }
    if (stream.closed) return;
    this.#open.add(stream);
    // The revision this client was last told of (a change may arrive before the first read returns).
    let told = lastEventIdOf(request);
    const tell = (change: RevisionChange) => {
      if (change.revision === told) return;
      told = change.revision;
      stream.send(changeFrame(change));
    };
    const watching = watch.watch(namespaceKey, tell);
    stopWatching = watching.stop;
    if (stream.closed) stopWatching();
    let current: RevisionChange;
    try {
      current = await watching.current;
    } catch {
      // The database is away: the client reconnects later and is told then.
      stream.end();
      return;
    }
    tell(current);
  }

  /** Ends every stream (the app's close; a drain ends them through LongLivedStreams). */
  closeAll(): void {
    for (const stream of [...this.#open]) stream.end();
  }

  /** Sends every open stream a heartbeat (every heartbeat_interval). */
  heartbeat(): void {
    for (const stream of this.#open) stream.heartbeat();
  }
}
