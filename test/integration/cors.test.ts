// Flipt's `cors` section over HTTP (issue 27), with required authentication: preflights are answered
// before the bearer check, the Access-Control-* headers reach the answers the evaluation routes write
// themselves and the errors of authentication, the route methods keep their 404/501 answers, and with
// CORS off (the default) nothing of it is there. The browser side is test/e2e/cors.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';

const BOOT = 'cors-bootstrap-token';
const PAGE = 'https://app.example';
const OTHER = 'https://other.example';
const json = { 'content-type': 'application/json' };

function appWith(cors: Record<string, unknown> | undefined): Promise<TestApp> {
  return startTestApp(
    { name: 'sqlite' },
    {
      ...(cors ? { cors } : {}),
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    },
  );
}

describe.each([
  ['a listed origin', { enabled: true, allowed_origins: [PAGE] }, PAGE],
  ["Flipt's default, any origin", { enabled: true }, '*'],
])('CORS enabled for %s', (_label, cors, allowOrigin) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appWith(cors);
    const flag = { key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
    expect((await call(t.app, 'POST', '/api/v1/namespaces/default/flags', flag, bearer(BOOT))).status).toBe(200);
  });
  afterAll(async () => t?.close());

  const preflight = (url: string, method: string, headers: string) =>
    t.app.http.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: PAGE,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  it.each([
    ['/ofrep/v1/evaluate/flags', 'POST', 'authorization,content-type,x-service-namespace,if-none-match'],
    ['/evaluate/v1/boolean', 'POST', 'authorization,content-type'],
    ['/api/v1/namespaces/default/flags/f', 'PUT', 'authorization,content-type'],
    // A write with a precondition (ADR 0035) from a page on another origin.
    ['/api/v1/namespaces/default/flags/f', 'PUT', 'authorization,content-type,if-match'],
    ['/api/v1/namespaces/default/flags/f', 'DELETE', 'authorization'],
    ['/internal/v1/evaluation/snapshot/namespace/default', 'GET', 'authorization,x-flipt-accept-server-version'],
  ])('answers the preflight of %s %s without credentials', async (url, method, headers) => {
    const res = await preflight(url, method, headers);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(allowOrigin);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']),
    );
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    for (const header of headers.split(',')) expect(allowed).toContain(header);
    expect(res.headers['access-control-max-age']).toBe('300');
  });

  it('puts the headers on evaluation answers, OFREP bulk answers and 401s, and exposes Link, ETag and the revision', async () => {
    const answers = [
      await call(
        t.app,
        'POST',
        '/evaluate/v1/boolean',
        { flagKey: 'f', entityId: 'e' },
        { ...bearer(BOOT), origin: PAGE },
      ),
      await call(
        t.app,
        'POST',
        '/ofrep/v1/evaluate/flags',
        { context: { targetingKey: 'e' } },
        { ...bearer(BOOT), origin: PAGE },
      ),
      await call(t.app, 'GET', '/api/v1/namespaces', undefined, { ...bearer(BOOT), origin: PAGE }),
      await call(t.app, 'GET', '/api/v1/namespaces', undefined, { origin: PAGE }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 401]);
    for (const answer of answers) {
      expect(answer.headers['access-control-allow-origin']).toBe(allowOrigin);
      expect(String(answer.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(['link', 'etag', 'x-vexil-revision']),
      );
    }
  });

  it('keeps 404 and 501 for OPTIONS that is no preflight, and for unknown paths and methods', async () => {
    const plain = await call(t.app, 'GET', '/api/v1/nope', undefined, bearer(BOOT));
    expect(plain.status).toBe(404);
    const options = await t.app.http.inject({ method: 'OPTIONS', url: '/api/v1/namespaces' });
    expect({ status: options.statusCode, body: options.json() }).toEqual({
      status: 501,
      body: { code: 12, message: 'Method Not Allowed', details: [] },
    });
    expect((await t.app.http.inject({ method: 'OPTIONS', url: '/nope/at/all' })).statusCode).toBe(404);
    expect((await call(t.app, 'PATCH', '/api/v1/namespaces', undefined, bearer(BOOT))).status).toBe(501);
  });
});

describe('CORS for an origin not listed, and CORS off', () => {
  let listed: TestApp;
  let off: TestApp;
  beforeAll(async () => {
    listed = await appWith({ enabled: true, allowed_origins: [PAGE] });
    off = await appWith(undefined);
  });
  afterAll(async () => {
    await listed?.close();
    await off?.close();
  });

  it('gives an unlisted origin no Access-Control-Allow-Origin', async () => {
    const res = await call(listed.app, 'GET', '/api/v1/namespaces', undefined, { ...bearer(BOOT), origin: OTHER });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds nothing when cors is off, and a preflight is 501 then', async () => {
    // Not registered at all: no request pays for CORS it does not use.
    expect(off.app.http.hasPlugin('@fastify/cors')).toBe(false);
    expect(listed.app.http.hasPlugin('@fastify/cors')).toBe(true);
    const res = await call(
      off.app,
      'POST',
      '/evaluate/v1/boolean',
      { flagKey: 'f', entityId: 'e' },
      {
        ...bearer(BOOT),
        ...json,
        origin: PAGE,
      },
    );
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await off.app.http.inject({
      method: 'OPTIONS',
      url: '/evaluate/v1/boolean',
      headers: { origin: PAGE, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(501);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});
