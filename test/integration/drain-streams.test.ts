// The composition root's drain order: long-lived streams (app.streams) are ended when the drain
// starts, before the requests in flight have finished, and the drain does not wait for them.

import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('drain and long-lived streams [sqlite]', () => {
  let t: TestApp | undefined;
  afterAll(async () => t?.close());

  it('ends registered streams at the start of the drain, while a request is still in flight', async () => {
    t = await startTestApp({ name: 'sqlite' }, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    const { app } = t;
    const { httpPort } = await app.listen();
    const events: string[] = [];
    // A stream that never ends by itself, as an SSE connection would be.
    app.streams.add(() => events.push('stream ended'));

    const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'none', entityId: 'e', context: {} });
    const req = request({
      host: '127.0.0.1',
      port: httpPort,
      method: 'POST',
      path: '/evaluate/v1/boolean',
      headers: { 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' },
    });
    const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => {
          events.push('request answered');
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        });
      });
    });
    await new Promise<void>((resolve) => {
      req.once('continue', () => req.write(body.slice(0, 10), () => resolve()));
      req.flushHeaders();
    });

    const closed = app.close().then((outcome) => {
      events.push('drained');
      return outcome;
    });
    expect(events).toEqual(['stream ended']);
    expect(app.streams.draining).toBe(true);
    req.end(body.slice(10));
    expect(await answered).toEqual({ status: 404, connection: 'close' });
    expect(await closed).toEqual({ cutHttp: 0, cutGrpc: 0 });
    // The drain resolves when the server has sent the answer; the client may read it just before or after.
    expect(events[0]).toBe('stream ended');
    expect([...events].sort()).toEqual(['drained', 'request answered', 'stream ended']);
  });
});
