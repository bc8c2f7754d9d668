// The HTTP side of a graceful drain, as Go's http.Server.Shutdown does it: stop accepting, close the
// connections that are idle, let every request already begun finish and answer it with
// `Connection: close`, and report when none is left. Fastify's own close cannot: it marks only the
// requests routed after it starts (and answers them 503), and Node closes a keep-alive connection only
// when its client does, so a connection whose request was in flight stayed open until the timeout.
//
// Nothing is added to a request while the server runs: connections are tracked as they open, and the
// request in flight on each is found through the connection when the drain starts.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

/** Stops accepting without http.Server's own close, which also closes idle connections at once. */
const netClose = NetServer.prototype.close;

/** Node's own link from a connection to the response it is writing (or will write) next. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

export class HttpDrain {
  readonly #server: Server;
  readonly #sockets = new Set<HttpSocket>();
  readonly #inFlight = new Set<ServerResponse>();
  #draining = false;
  #onIdle: (() => void) | undefined;

  constructor(server: Server) {
    this.#server = server;
    // Over TLS the response is written to the TLS socket, which is what `_httpMessage` hangs on.
    const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
    server.on(event, (socket: HttpSocket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Requests begun and not yet answered (or abandoned by their client), counted from the drain's start. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Starts the drain: no new connection is accepted, idle ones are closed, every request in flight is
   * answered with `Connection: close`. Resolves when no request is in flight.
   */
  drain(): Promise<void> {
    if (!this.#draining) {
      this.#draining = true;
      // Requests whose headers were still arriving, and pipelined ones, begin during the drain.
      this.#server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
        // A pipelined request waiting behind another has no connection yet: it goes unanswered, as
        // the connection closes after the one before it (Go's Shutdown does the same).
        const socket = response.socket as HttpSocket | null;
        if (socket) this.#track(response, socket);
      });
      for (const socket of this.#sockets) {
        const response = socket._httpMessage;
        if (!response) continue;
        if (!response.writableEnded) this.#track(response, socket);
        // Answered, its last bytes still leaving, on a connection that stays open: close it after them.
        else response.once('close', () => socket.destroySoon());
      }
      // No new connection. Then, a turn later, Node closes those between requests or that have sent
      // nothing yet, and keeps those with a request partly read (it arrives through the listener
      // above). The turn lets the server read what has already arrived: a request sent just before the
      // signal is then in flight, not reset with its connection (Node's server.close() would close
      // such a connection at once, as idle, and so did the old shutdown).
      netClose.call(this.#server);
      setImmediate(() => this.#server.closeIdleConnections());
    }
    return new Promise((resolve) => {
      if (this.#inFlight.size === 0) return resolve();
      const previous = this.#onIdle;
      this.#onIdle = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Closes every connection still open; returns how many requests that cut. */
  closeAll(): number {
    const cut = this.#inFlight.size;
    this.#server.closeAllConnections();
    // Sockets Node no longer counts as its connections (an upgraded one) are ours to close too.
    for (const socket of this.#sockets) socket.destroy();
    return cut;
  }

  #track(response: ServerResponse, socket: HttpSocket): void {
    if (this.#inFlight.has(response)) return;
    this.#inFlight.add(response);
    // Node then sends `Connection: close` and closes the connection once the answer is out. An answer
    // whose headers left before the drain said keep-alive: its connection is closed after it instead.
    const headersSent = response.headersSent;
    if (!headersSent) response.shouldKeepAlive = false;
    response.once('close', () => {
      this.#inFlight.delete(response);
      if (headersSent) socket.destroySoon();
      if (this.#inFlight.size === 0) {
        const onIdle = this.#onIdle;
        this.#onIdle = undefined;
        onIdle?.();
      }
    });
  }
}
