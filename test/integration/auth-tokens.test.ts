// Token authentication over HTTP: the token lifecycle with `authentication.required: true`, the shapes
// of /auth/v1, credentials (Bearer header, dashboard cookie), namespace-scoped tokens, the exclude
// switches, and what changes when authentication is not required.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashClientToken } from '../../src/auth/client-token.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const BOOT = 'bootstrap-secret-token';
const UNAUTHENTICATED = { code: 16, message: 'request was not authenticated', details: [] };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const requiredAuth = (extra: Record<string, unknown> = {}) => ({
  authentication: {
    required: true,
    methods: { token: { enabled: true, bootstrap: { token: BOOT } } },
    ...extra,
  },
});

describeEachBackend('token authentication', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, requiredAuth());
  });
  afterAll(async () => t?.close());

  it('runs the token lifecycle: create, use, list, get, expire self, delete, reuse after delete', async () => {
    // create
    const created = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'ci', description: 'for CI' },
      bearer(BOOT),
    );
    expect(created.status).toBe(200);
    const { clientToken, authentication } = created.body;
    expect(clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(authentication).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      method: 'METHOD_TOKEN',
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
      metadata: { 'io.flipt.auth.token.name': 'ci', 'io.flipt.auth.token.description': 'for CI' },
    });
    expect(authentication).not.toHaveProperty('expiresAt');

    // only the hash is stored
    const stored = await t.app.db.kysely
      .selectFrom('authentications')
      .select('hashed_client_token')
      .where('id', '=', authentication.id)
      .executeTakeFirstOrThrow();
    expect(stored.hashed_client_token).toBe(hashClientToken(clientToken));
    expect(stored.hashed_client_token).not.toContain(clientToken);

    // use
    const used = await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(clientToken));
    expect(used.status).toBe(200);
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(clientToken));
    expect(self.status).toBe(200);
    expect(self.body).toEqual(authentication);

    // list
    const list = await call(t.app, 'GET', '/auth/v1/tokens', undefined, bearer(clientToken));
    expect(list.status).toBe(200);
    expect(Object.keys(list.body).sort()).toEqual(['authentications', 'nextPageToken']);
    expect(list.body.nextPageToken).toBe('');
    const ids = list.body.authentications.map((a: { id: string }) => a.id);
    expect(ids).toContain(authentication.id);
    expect(list.body.authentications[0].metadata['io.flipt.auth.token.name']).toBe('initial_bootstrap_token');

    // get
    const got = await call(t.app, 'GET', `/auth/v1/tokens/${authentication.id}`, undefined, bearer(BOOT));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(authentication);

    // expire self: the token stops working at once
    const expired = await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, bearer(clientToken));
    expect(expired.status).toBe(200);
    expect(expired.body).toEqual({});
    const afterExpiry = await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(clientToken));
    expect(afterExpiry.status).toBe(401);
    expect(afterExpiry.body).toEqual(UNAUTHENTICATED);
    expect(afterExpiry.headers['www-authenticate']).toBe('Bearer');
    const expiredRecord = await call(t.app, 'GET', `/auth/v1/tokens/${authentication.id}`, undefined, bearer(BOOT));
    expect(Date.parse(expiredRecord.body.expiresAt)).toBeLessThanOrEqual(Date.now());

    // delete, then the token is refused at once
    const second = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'short-lived' }, bearer(BOOT));
    const token2 = second.body.clientToken;
    expect((await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(token2))).status).toBe(200);
    const deleted = await call(
      t.app,
      'DELETE',
      `/auth/v1/tokens/${second.body.authentication.id}`,
      undefined,
      bearer(BOOT),
    );
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    const reuse = await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(token2));
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual(UNAUTHENTICATED);
    expect(reuse.headers['www-authenticate']).toBe('Bearer');
    const gone = await call(t.app, 'GET', `/auth/v1/tokens/${second.body.authentication.id}`, undefined, bearer(BOOT));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      code: 5,
      message: 'getting authentication by token: reading authentication: resource not found',
      details: [],
    });
    // deleting again is idempotent, as in Flipt
    expect(
      (await call(t.app, 'DELETE', `/auth/v1/tokens/${second.body.authentication.id}`, undefined, bearer(BOOT))).body,
    ).toEqual({});
  });

  it('creates tokens with expiry, namespace and metadata (snake_case accepted)', async () => {
    const res = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'n', expires_at: '2099-01-02T03:04:05.123456Z', namespace_key: 'default', metadata: { team: 'core' } },
      bearer(BOOT),
    );
    expect(res.status).toBe(200);
    expect(res.body.authentication.expiresAt).toBe('2099-01-02T03:04:05.123Z');
    expect(res.body.authentication.metadata).toEqual({
      team: 'core',
      'io.flipt.auth.token.name': 'n',
      'io.flipt.auth.token.namespace': 'default',
    });
    const bad = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'n', expiresAt: 'tomorrow' }, bearer(BOOT));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(3);
    const badMeta = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'n', metadata: { a: 1 } }, bearer(BOOT));
    expect(badMeta.status).toBe(400);
  });

  it('refuses a token whose expiry has passed', async () => {
    const res = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'old', expiresAt: '2000-01-01T00:00:00Z' },
      bearer(BOOT),
    );
    expect(res.status).toBe(200);
    const used = await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(res.body.clientToken));
    expect(used.status).toBe(401);
  });

  it('pages the token list with a decimal offset token and filters by method', async () => {
    for (const name of ['p1', 'p2', 'p3']) await call(t.app, 'POST', '/auth/v1/method/token', { name }, bearer(BOOT));
    const all = await call(t.app, 'GET', '/auth/v1/tokens?limit=100', undefined, bearer(BOOT));
    const total = all.body.authentications.length;
    expect(total).toBeGreaterThanOrEqual(4);
    const first = await call(t.app, 'GET', '/auth/v1/tokens?limit=2', undefined, bearer(BOOT));
    expect(first.body.authentications).toHaveLength(2);
    expect(first.body.nextPageToken).toBe('2');
    const second = await call(t.app, 'GET', '/auth/v1/tokens?limit=2&pageToken=2', undefined, bearer(BOOT));
    expect(second.body.authentications.map((a: { id: string }) => a.id)).toEqual(
      all.body.authentications.slice(2, 4).map((a: { id: string }) => a.id),
    );
    const last = await call(t.app, 'GET', `/auth/v1/tokens?limit=2&page_token=${total - 1}`, undefined, bearer(BOOT));
    expect(last.body.authentications).toHaveLength(1);
    expect(last.body.nextPageToken).toBe('');
    const byName = await call(t.app, 'GET', '/auth/v1/tokens?method=METHOD_TOKEN&limit=100', undefined, bearer(BOOT));
    expect(byName.body.authentications).toHaveLength(total);
    const byNumber = await call(t.app, 'GET', '/auth/v1/tokens?method=2', undefined, bearer(BOOT));
    expect(byNumber.body.authentications).toEqual([]);
    const unknown = await call(t.app, 'GET', '/auth/v1/tokens?method=METHOD_FOO', undefined, bearer(BOOT));
    expect(unknown.status).toBe(400);
    const badLimit = await call(t.app, 'GET', '/auth/v1/tokens?limit=abc', undefined, bearer(BOOT));
    expect(badLimit.status).toBe(400);
  });

  it('caps the page size at 100 and defaults it to 25', async () => {
    const rows = Array.from({ length: 101 }, (_, i) => ({
      id: `bulk-${String(i).padStart(3, '0')}`,
      hashed_client_token: `bulk-hash-${i}`,
      method: 1,
      metadata: '{}',
      expires_at: null,
      created_at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
      updated_at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
    }));
    await t.app.db.kysely.insertInto('authentications').values(rows).execute();
    const byDefault = await call(t.app, 'GET', '/auth/v1/tokens', undefined, bearer(BOOT));
    expect(byDefault.body.authentications).toHaveLength(25);
    expect(byDefault.body.nextPageToken).toBe('25');
    const capped = await call(t.app, 'GET', '/auth/v1/tokens?limit=1000', undefined, bearer(BOOT));
    expect(capped.body.authentications).toHaveLength(100);
    expect(capped.body.nextPageToken).toBe('100');
    await t.app.db.kysely.deleteFrom('authentications').where('id', 'like', 'bulk-%').execute();
  });

  it('lists the methods publicly, in Flipt order', async () => {
    const res = await call(t.app, 'GET', '/auth/v1/method');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      methods: [
        { method: 'METHOD_TOKEN', enabled: true, sessionCompatible: false },
        { method: 'METHOD_GITHUB', enabled: false, sessionCompatible: true },
        { method: 'METHOD_OIDC', enabled: false, sessionCompatible: true },
        { method: 'METHOD_KUBERNETES', enabled: false, sessionCompatible: false },
        { method: 'METHOD_JWT', enabled: false, sessionCompatible: false },
      ],
    });
  });

  it('accepts only a Bearer header, or the dashboard cookie', async () => {
    const cases: [Record<string, string>, number][] = [
      [{}, 401],
      [{ authorization: `Bearer ${BOOT}` }, 200],
      // RFC 9110: the scheme in any case, one or more spaces (Flipt: `Bearer` and one space only).
      [{ authorization: `bearer ${BOOT}` }, 200],
      [{ authorization: `Bearer  ${BOOT}` }, 200],
      [{ authorization: 'Bearer ' }, 401],
      [{ authorization: 'Bearer' }, 401],
      [{ authorization: `Basic ${BOOT}` }, 401],
      [{ authorization: `JWT ${BOOT}` }, 401],
      [{ authorization: 'Bearer not-a-token' }, 401],
      [{ authorization: `Bearer ${'x'.repeat(5000)}` }, 401],
      [{ cookie: `flipt_client_token=${BOOT}` }, 200],
      [{ cookie: `other=1; flipt_client_token=${encodeURIComponent(BOOT)}` }, 200],
      [{ cookie: 'flipt_client_token=wrong' }, 401],
    ];
    for (const [headers, status] of cases) {
      const res = await call(t.app, 'GET', '/api/v1/namespaces', undefined, headers);
      expect({ headers, status: res.status }).toEqual({ headers, status });
      if (status === 401) expect(res.body).toEqual(UNAUTHENTICATED);
    }
  });

  it('clears the session cookies on a 401 under /auth/v1 and on expire self', async () => {
    const refused = await call(t.app, 'GET', '/auth/v1/self', undefined, { cookie: 'flipt_client_token=wrong' });
    expect(refused.status).toBe(401);
    const cleared = [refused.headers['set-cookie']].flat().join('\n');
    expect(cleared).toMatch(/flipt_client_token=;[^\n]*Max-Age=0/);
    expect(cleared).toMatch(/flipt_client_state=;[^\n]*Max-Age=0/);

    const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'session' }, bearer(BOOT));
    const expire = await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, {
      cookie: `flipt_client_token=${created.body.clientToken}`,
      // A write authenticated by the cookie must come from this origin (csrf.ts).
      'sec-fetch-site': 'same-origin',
    });
    expect(expire.status).toBe(200);
    expect([expire.headers['set-cookie']].flat().join('\n')).toMatch(/flipt_client_token=;[^\n]*Max-Age=0/);
  });

  it('expires self at a given time (query expiresAt)', async () => {
    const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'later' }, bearer(BOOT));
    const token = created.body.clientToken;
    const res = await call(
      t.app,
      'PUT',
      '/auth/v1/self/expire?expiresAt=2099-05-05T00:00:00Z',
      undefined,
      bearer(token),
    );
    expect(res.status).toBe(200);
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(token));
    expect(self.body.expiresAt).toBe('2099-05-05T00:00:00.000Z');
    const bad = await call(t.app, 'PUT', '/auth/v1/self/expire?expiresAt=soon', undefined, bearer(token));
    expect(bad.status).toBe(400);
  });

  it('answers 401 before validation: an unauthenticated bad request gets 401, not 400', async () => {
    const res = await call(t.app, 'POST', '/api/v1/namespaces', '{"key":', {});
    expect(res.status).toBe(401);
    const routing = await call(t.app, 'GET', '/api/v1/no-such-route');
    expect(routing.status).toBe(404);
  });

  it('restricts a namespace-scoped token to its namespace (403 elsewhere)', async () => {
    await call(t.app, 'POST', '/api/v1/namespaces', { key: 'team-a', name: 'A' }, bearer(BOOT));
    await call(t.app, 'POST', '/api/v1/namespaces', { key: 'team-b', name: 'B' }, bearer(BOOT));
    const scoped = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'a-only', namespaceKey: 'team-a' },
      bearer(BOOT),
    );
    const token = scoped.body.clientToken;
    const h = bearer(token);

    expect((await call(t.app, 'GET', '/api/v1/namespaces/team-a', undefined, h)).status).toBe(200);
    expect((await call(t.app, 'PUT', '/api/v1/namespaces/team-a', { name: 'A2' }, h)).status).toBe(200);

    const denied = await call(t.app, 'GET', '/api/v1/namespaces/team-b', undefined, h);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ code: 7, message: 'permission denied', details: [] });
    // the namespace list is filtered, never refused (issue 41): it shows the token's own namespace only
    const listed = await call(t.app, 'GET', '/api/v1/namespaces', undefined, h);
    expect(listed.status).toBe(200);
    expect(listed.body.namespaces.map((n: { key: string }) => n.key)).toEqual(['team-a']);
    // creating a namespace addresses that namespace's key
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: 'team-c', name: 'C' }, h)).status).toBe(403);
    // services that take no scoped tokens: the auth service and the token method
    expect((await call(t.app, 'GET', '/auth/v1/tokens', undefined, h)).status).toBe(403);
    expect((await call(t.app, 'POST', '/auth/v1/method/token', { name: 'x' }, h)).status).toBe(403);
    // 403 (authorization) comes after 401 (authentication): an unknown token is still 401
    expect((await call(t.app, 'GET', '/api/v1/namespaces/team-b', undefined, bearer('nope'))).status).toBe(401);
    // evaluation: the body's namespaceKey (empty = default); a batch must stay in the token's namespace
    const evalReq = (namespaceKey?: string) => ({
      ...(namespaceKey ? { namespaceKey } : {}),
      flagKey: 'f',
      entityId: 'e',
    });
    const statusOf = async (method: 'GET' | 'POST', url: string, body?: unknown) =>
      (await call(t.app, method, url, body, h)).status;
    expect(await statusOf('POST', '/evaluate/v1/boolean', evalReq('team-b'))).toBe(403);
    expect(await statusOf('POST', '/evaluate/v1/boolean', evalReq())).toBe(403);
    expect([401, 403]).not.toContain(await statusOf('POST', '/evaluate/v1/boolean', evalReq('team-a')));
    expect(await statusOf('POST', '/evaluate/v1/batch', { requests: [evalReq('team-a'), evalReq('team-b')] })).toBe(
      403,
    );
    expect([401, 403]).not.toContain(
      await statusOf('POST', '/evaluate/v1/batch', { requests: [evalReq('team-a'), evalReq('team-a')] }),
    );
    expect(await statusOf('GET', '/internal/v1/evaluation/snapshot/namespace/team-b')).toBe(403);
    expect([401, 403]).not.toContain(await statusOf('GET', '/internal/v1/evaluation/snapshot/namespace/team-a'));
    // OFREP and /meta take no scoped tokens
    expect(await statusOf('POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'e' } })).toBe(403);
    expect(await statusOf('GET', '/meta/info')).toBe(403);
    // the unscoped bootstrap token reaches every namespace
    expect((await call(t.app, 'GET', '/api/v1/namespaces/team-b', undefined, bearer(BOOT))).status).toBe(200);
  });
});

/** Whether the app's root onRequest hooks include the bearer check (read from Fastify's hook table). */
function bearerHookInstalled(t: TestApp): boolean {
  const instance = t.app.http as unknown as Record<symbol, unknown>;
  const symbol = Object.getOwnPropertySymbols(instance).find((s) => s.toString() === 'Symbol(fastify.hooks)');
  const table = instance[symbol as symbol] as { onRequest: { toString(): string }[] };
  return table.onRequest.some((hook) => hook.toString().includes('presentedToken'));
}

describeEachBackend('token authentication, not required', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { authentication: { methods: { token: { enabled: true } } } });
  });
  afterAll(async () => t?.close());

  it('serves everything anonymously but never resolves tokens (self is 401)', async () => {
    expect((await call(t.app, 'GET', '/api/v1/namespaces')).status).toBe(200);
    const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'anon' });
    expect(created.status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/v1/tokens')).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer('garbage'))).status).toBe(200);
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(created.body.clientToken));
    expect(self.status).toBe(401);
    expect(self.body).toEqual(UNAUTHENTICATED);
    expect(self.headers['www-authenticate']).toBe('Bearer');
    expect((await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, bearer(created.body.clientToken))).status).toBe(
      401,
    );
  });

  it('installs no authentication hook at all', async () => {
    expect(bearerHookInstalled(t)).toBe(false);
    // the same probe does see the hook on an app that requires authentication
    const required = await startTestApp(backend, requiredAuth());
    try {
      expect(bearerHookInstalled(required)).toBe(true);
    } finally {
      await required.close();
    }
  });
});

describe('token method disabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ name: 'sqlite' });
  });
  afterAll(async () => t?.close());

  it('has no token-create route, and lists the method as disabled', async () => {
    const res = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 5, message: 'Not Found', details: [] });
    const methods = await call(t.app, 'GET', '/auth/v1/method');
    expect(methods.body.methods[0]).toEqual({ method: 'METHOD_TOKEN', enabled: false, sessionCompatible: false });
    expect(await t.app.db.kysely.selectFrom('authentications').selectAll().execute()).toEqual([]);
  });
});

describeEachBackend('authentication exclusions', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, requiredAuth({ exclude: { management: true } }));
  });
  afterAll(async () => t?.close());

  it('exempts the management API with exclude.management, but never /auth/v1/tokens', async () => {
    expect((await call(t.app, 'GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/v1/tokens')).status).toBe(401);
    expect((await call(t.app, 'GET', '/health')).status).toBe(200);
  });
});
