// One server-sent-events response, written on the raw socket (the reply is hijacked): so no compression
// hook ever touches it (a compressed stream would sit in zlib's buffer), and the app's answer timeouts
// do not apply. Proxies are asked not to buffer (X-Accel-Buffering: no) and not to cache. A client that
// stops reading is dropped once its unsent bytes pass the limit, instead of growing this process's
// memory; its EventSource reconnects and names its last revision (Last-Event-ID), so it loses nothing.

import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

const HEARTBEAT = ':\n\n';
const CLOSING = ': closing\n\n';

export interface SseStreamOptions {
  maxBufferedBytes: number;
  /** Reconnection delay the client is told (`retry:`), spread so a restart is not met by every client at once. */
  retryMs: number;
  onClose(): void;
}

export class SseStream {
  readonly #raw: ServerResponse;
  readonly #maxBuffered: number;
  #closed = false;
  /** Whether the stream was cut because its client did not read (tests, metrics). */
  dropped = false;

  constructor(reply: FastifyReply, options: SseStreamOptions) {
    reply.hijack();
    const raw = reply.raw;
    this.#raw = raw;
    this.#maxBuffered = options.maxBufferedBytes;
    // Headers set by hooks (request id, CORS) travel with the stream's own.
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) headers[name] = value as string | number | string[];
    }
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    headers.connection = 'keep-alive';
    raw.writeHead(200, headers);
    raw.socket?.setNoDelay(true);
    raw.socket?.setKeepAlive(true);
    raw.write(`retry: ${options.retryMs}\n\n`);
    this.#onClose = options.onClose;
    const close = () => this.#finish();
    raw.on('close', close);
    raw.on('error', close);
  }

  readonly #onClose: () => void;

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Unsent bytes held for this client. */
  get buffered(): number {
    return this.#raw.writableLength;
  }

  /** Writes an event; a client already holding too many unsent bytes is dropped instead. */
  send(text: string): void {
    if (this.#closed) return;
    if (this.#raw.writableLength > this.#maxBuffered) {
      this.dropped = true;
      this.#raw.destroy();
      // At once, not on 'close': the changes still being sent in this turn must not be written.
      this.#finish();
      return;
    }
    this.#raw.write(text);
  }

  heartbeat(): void {
    this.send(HEARTBEAT);
  }

  /** The server's last word (a drain, a revoked token): the client reconnects, elsewhere if need be. */
  end(): void {
    if (this.#closed) return;
    this.#raw.end(CLOSING);
  }
}
