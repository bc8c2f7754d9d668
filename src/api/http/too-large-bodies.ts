// A body over the limit is answered 413 without being read. Closing the connection right after the
// answer, while the client is still sending, resets it: clients that read only once they have sent
// everything (Node's fetch) then see EPIPE instead of the 413 (curl reads as it sends and did not).
// So the rest of the body is read and thrown away first, up to a bound, and the answer closes the
// connection (what follows the body on it cannot be trusted to start where the body ends).
//
// An onError hook: it costs nothing unless a request fails. Past the bound, or the read timeout of
// app.ts, the connection is closed as before.

import type { onErrorAsyncHookHandler } from 'fastify';

/** How much of a too-large body is read and discarded so that its client can read the 413. */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

const TOO_LARGE = 'FST_ERR_CTP_BODY_TOO_LARGE';

export function discardTooLargeBodies(limitBytes = DISCARD_LIMIT_BYTES): onErrorAsyncHookHandler {
  return async (request, reply, error) => {
    if ((error as { code?: string }).code !== TOO_LARGE) return;
    reply.header('connection', 'close');
    const body = request.raw;
    if (body.readableEnded || body.destroyed) return;
    await new Promise<void>((resolve) => {
      let discarded = 0;
      const done = () => {
        body.off('data', count);
        body.off('end', done);
        body.off('close', done);
        body.off('error', done);
        resolve();
      };
      const count = (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > limitBytes) done();
      };
      body.on('data', count);
      body.once('end', done);
      body.once('close', done);
      body.once('error', done);
      body.resume();
    });
  };
}
