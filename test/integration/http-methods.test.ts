// HEAD as grpc-gateway's ServeMux answers it (behavior.md §0.1): a method the path does not have, so
// 501 with the API's error body (sent without its body, as for any HEAD); /health and /metrics keep
// answering it, for load balancers and scrapers. The dashboard's HEAD is in test/e2e/ui-serving.test.ts.
// Also CONNECT (which Node answers only if told to) and the nosniff header every answer carries.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';

const sqlite = { name: 'sqlite' as const };

// With CORS on, the plugin's catch-all OPTIONS route must not turn unknown paths into 501.
describe.each([
  ['HEAD', {}],
  ['HEAD with CORS enabled', { cors: { enabled: true } }],
])('%s', (_label, cors) => {
  let t: TestApp;
  const head = (url: string) => t.app.http.inject({ method: 'HEAD', url });

  beforeAll(async () => {
    t = await startTestApp(sqlite, { metrics: { enabled: true }, ...cors });
  });
  afterAll(async () => t?.close());

  it('is 501 on the GET routes of the API, as another method would be', async () => {
    const getRoutes = [
      '/api/v1/namespaces',
      '/api/v1/namespaces/default',
      '/api/v1/namespaces/default/flags',
      '/api/v1/namespaces/default/segments',
      '/auth/v1/method',
      '/auth/v1/tokens',
      '/meta/info',
      '/meta/config',
      '/internal/v1/evaluation/snapshot/namespace/default',
      '/openapi.json',
    ];
    for (const url of getRoutes) {
      expect((await call(t.app, 'GET', url)).status, `GET ${url}`).toBe(200);
      const res = await head(url);
      expect(res.statusCode, `HEAD ${url}`).toBe(501);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.body, url).toBe('');
      // The body HEAD leaves out is the one another method gets.
      const patch = await call(t.app, 'PATCH', url);
      expect({ status: patch.status, body: patch.body }, url).toEqual({
        status: 501,
        body: { code: 12, message: 'Method Not Allowed', details: [] },
      });
    }
  });

  it('is 501 under /ofrep (OFREP error body) and on POST-only routes', async () => {
    for (const url of ['/ofrep/v1/configuration', '/ofrep/v1/evaluate/flags', '/evaluate/v1/boolean']) {
      const res = await head(url);
      expect(res.statusCode, url).toBe(501);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
    }
    const put = await call(t.app, 'PUT', '/ofrep/v1/configuration');
    expect({ status: put.status, body: put.body }).toEqual({
      status: 501,
      body: { errorCode: 'GENERAL', errorDetails: 'Method Not Allowed' },
    });
  });

  it('is 404 on unknown API paths', async () => {
    expect((await head('/api/v1/nope')).statusCode).toBe(404);
    expect((await head('/ofrep/v2/configuration')).statusCode).toBe(404);
  });

  it('answers /health and /metrics like GET, without the body', async () => {
    const health = await head('/health');
    expect(health.statusCode).toBe(200);
    expect(health.headers['content-type']).toBe('application/json');
    expect(health.body).toBe('');
    const metrics = await head('/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toBe('');
  });
});

/** Writes `text` on a new connection and resolves with everything the server sent until it closed. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', (err) => (received === '' ? reject(err) : resolve(received)));
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

describe('CONNECT and the headers of every answer', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp(sqlite, {
      metrics: { enabled: true },
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
    });
    port = (await t.app.listen()).httpPort;
  });
  afterAll(async () => t?.close());

  // Node hands CONNECT to 'connect' listeners, and without one drops the socket without an answer.
  it.each([
    'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
    'CONNECT /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n',
  ])('answers %j with 405 and closes the connection', async (request) => {
    const answer = await rawExchange(port, request);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/i);
    expect(JSON.parse(body as string)).toEqual({ code: 12, message: 'Method Not Allowed', details: [] });
    // The server still answers other requests.
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  // Flipt answers these with `application/json` exactly (its own integration test asserts it for
  // /health and the meta documents): no charset parameter, compressed or not.
  it.each([
    ['/health', 200, undefined],
    ['/health?service=nope', 404, undefined],
    ['/meta/info', 200, undefined],
    ['/meta/info', 200, 'gzip'],
    ['/meta/config', 200, undefined],
    ['/meta/config', 200, 'gzip'],
  ])(
    'answers GET %s (%i, Accept-Encoding %s) with Content-Type: application/json exactly',
    async (path, status, encoding) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: encoding === undefined ? { 'accept-encoding': 'identity' } : { 'accept-encoding': encoding },
      });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(typeof (await res.json())).toBe('object');
    },
  );

  it('sends X-Content-Type-Options: nosniff on API answers, errors, /openapi.json and /metrics', async () => {
    const base = `http://127.0.0.1:${port}`;
    const json = { 'content-type': 'application/json' };
    const requests: [string, RequestInit][] = [
      ['/api/v1/namespaces', {}],
      ['/api/v1/namespaces/nope', {}],
      ['/api/v1/nope', {}],
      ['/openapi.json', {}],
      ['/metrics', {}],
      ['/health', {}],
      ['/meta/info', {}],
      ['/evaluate/v1/boolean', { method: 'POST', headers: json, body: '{"flagKey":"nope","entityId":"e"}' }],
      ['/evaluate/v1/variant', { method: 'POST', headers: json, body: '{"flagKey":"nope","entityId":"e"}' }],
      ['/evaluate/v1/batch', { method: 'POST', headers: json, body: '{"requests":[]}' }],
      ['/ofrep/v1/evaluate/flags', { method: 'POST', headers: json, body: '{"context":{}}' }],
      ['/ofrep/v1/evaluate/flags/nope', { method: 'POST', headers: json, body: '{"context":{}}' }],
      ['/ofrep/v1/configuration', {}],
      ['/internal/v1/evaluation/snapshot/namespace/default', {}],
      ['/api/v1/namespaces', { method: 'PATCH' }],
    ];
    const missing: string[] = [];
    for (const [path, init] of requests) {
      const res = await fetch(base + path, init);
      await res.arrayBuffer();
      if (res.headers.get('x-content-type-options') !== 'nosniff') missing.push(`${init.method ?? 'GET'} ${path}`);
    }
    expect(missing).toEqual([]);
  });
});
