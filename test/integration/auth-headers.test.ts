// How the Authorization header is read, through a listening server (Node's header handling is part of
// what is tested): the Bearer scheme in any case (RFC 9110), two Authorization headers refused (Node
// keeps only the first, a proxy may have read the other), the Bearer challenge on every 401 (OFREP's
// too), and /metrics behind `metrics.token`.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const BOOT = 'auth-headers-bootstrap-token';
const METRICS_TOKEN = 'scraper-secret';

/** One request written by hand (so headers may repeat); resolves with status line, headers and body. */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    socket.end(`${[...lines, 'Host: 127.0.0.1', 'Connection: close'].join('\r\n')}\r\n\r\n`);
  });
}

describe('the Authorization header', () => {
  let t: TestApp;
  let base: string;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp(
      { name: 'sqlite' },
      {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        metrics: { enabled: true, token: METRICS_TOKEN },
        authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
      },
    );
    port = (await t.app.listen()).httpPort;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => t?.close());

  it.each([
    [`Bearer ${BOOT}`, 200],
    [`bearer ${BOOT}`, 200],
    [`BEARER ${BOOT}`, 200],
    [`BeArEr  ${BOOT}`, 200],
    [`Basic ${BOOT}`, 401],
    [`Bearer${BOOT}`, 401],
    [`Bearer ${BOOT}x`, 401],
  ])('%j → %i', async (authorization, status) => {
    const res = await fetch(`${base}/api/v1/namespaces`, { headers: { authorization } });
    expect(res.status).toBe(status);
    if (status === 401) {
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({ code: 16, message: 'request was not authenticated', details: [] });
    }
  });

  it('refuses two Authorization headers, whichever comes first, with 400', async () => {
    for (const pair of [
      [`Authorization: Bearer ${BOOT}`, 'Authorization: Bearer other'],
      ['authorization: Bearer other', `AUTHORIZATION: Bearer ${BOOT}`],
      [`Authorization: Bearer ${BOOT}`, `Authorization: Bearer ${BOOT}`],
    ]) {
      const res = await rawRequest(port, ['GET /api/v1/namespaces HTTP/1.1', ...pair]);
      expect(res.status, pair.join(' + ')).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        code: 3,
        message: 'request has more than one Authorization header',
        details: [],
      });
    }
    const one = await rawRequest(port, ['GET /api/v1/namespaces HTTP/1.1', `Authorization: Bearer ${BOOT}`]);
    expect(one.status).toBe(200);
  });

  it("carries WWW-Authenticate: Bearer on OFREP's 401 too", async () => {
    const res = await fetch(`${base}/ofrep/v1/evaluate/flags`, { method: 'POST', body: '{"context":{}}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ errorCode: 'GENERAL', errorDetails: 'request was not authenticated' });
  });

  it('serves /metrics only to the bearer of metrics.token (not to an API token)', async () => {
    for (const [headers, status] of [
      [{}, 401],
      [{ authorization: `Bearer ${BOOT}` }, 401],
      [{ authorization: 'Bearer scraper-secre' }, 401],
      [{ authorization: `Bearer ${METRICS_TOKEN}` }, 200],
      [{ authorization: `bearer ${METRICS_TOKEN}` }, 200],
    ] as const) {
      const res = await fetch(`${base}/metrics`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(status);
      const text = await res.text();
      if (status === 200) expect(text).toContain('vexil_');
      else {
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(JSON.parse(text)).toEqual({ code: 16, message: 'request was not authenticated', details: [] });
      }
    }
  });
});

describe('/metrics without metrics.token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ name: 'sqlite' }, { metrics: { enabled: true } });
  });
  afterAll(async () => t?.close());

  it('stays open, as in Flipt', async () => {
    expect((await t.app.http.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
  });
});
