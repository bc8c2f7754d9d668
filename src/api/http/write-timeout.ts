// Flipt's write timeout (behavior.md §0.1: 30 s). Go puts a deadline on each response's writes; Node
// has none, so a client that stops reading its answers (or pipelines requests and never reads) would
// hold its connection, and the answers waiting for it, for as long as it likes.
//
// Here the watch is per connection, not per request, so answering costs nothing more: once a second
// each open connection is looked at, and one that has had bytes waiting to be sent at every look for
// longer than the limit is closed. A client that reads, however slowly, clears its backlog now and then
// and is left alone until it stalls; one that takes more than the limit over a single large answer it
// keeps behind on is closed, as Go's deadline would close it. A handler that is slow to start its
// answer is not covered: nothing is waiting to be sent yet.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

export const WRITE_TIMEOUT_MS = 30_000;

const CHECK_EVERY_MS = 1_000;

/**
 * Watches `server`'s connections and closes those whose unsent bytes have waited longer than
 * `limitMs`. Returns the function that stops watching (the connections stay open).
 */
export function closeStalledWrites(server: Server, limitMs: number, checkEveryMs = CHECK_EVERY_MS): () => void {
  const open = new Set<Socket>();
  /** When each connection was first seen with bytes waiting, for those that have had some at every look since. */
  const waitingSince = new Map<Socket, number>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      waitingSince.delete(socket);
    });
  };
  // Over TLS the answer is written to the TLS socket; its raw TCP socket (the 'connection' event's)
  // never holds bytes of its own.
  const connectionEvent = server instanceof TlsServer ? 'secureConnection' : 'connection';
  server.on(connectionEvent, track);

  const timer = setInterval(() => {
    const now = performance.now();
    for (const socket of open) {
      if (socket.writableLength === 0) {
        waitingSince.delete(socket);
        continue;
      }
      const since = waitingSince.get(socket);
      if (since === undefined) waitingSince.set(socket, now);
      else if (now - since >= limitMs) socket.destroy();
    }
  }, checkEveryMs);
  timer.unref();

  return () => {
    clearInterval(timer);
    server.off(connectionEvent, track);
  };
}
