// Tiers on every backend: a read-tier instance (server.mode: read) beside a normal one on the same
// database refuses every write route with 405 and Flipt's error body, and serves every other route —
// checked by walking the route table, not a hand-kept list. storage.read_only refuses the management
// writes only. And the X-Vexil-Revision header of management and evaluation responses.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY_MESSAGE, type TierRoute, tierRoutes } from '../../src/api/http/tiers.js';
import type { App } from '../../src/app/build-app.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { promiseHooksOn } from '../helpers/async-hooks.js';
import { describeEachBackend } from '../helpers/backends.js';
import { buildAppOn, type Fixture, seedFixture } from './cache-support.js';

// With `authorization.roles` set, so role bindings can be stored and walked like every other route.
const TOKENS = { authentication: { methods: { token: { enabled: true } } }, authorization: { roles: {} } };
const REVISION = /^\d+\.\d+$/;

/** A concrete URL for a route template, with the fixture's ids in its parameters. */
function concreteUrl(url: string, f: Fixture, tokenId: string, changeId = '', bindingId = ''): string {
  const parts = url.split('/');
  return parts
    .map((part, i) => {
      if (!part.startsWith(':')) return part;
      const owner = parts[i - 1];
      switch (owner) {
        case 'namespaces':
          return f.namespaceKey;
        case 'flags':
          return url.includes('/rollouts') ? f.booleanFlagKey : f.flagKey;
        case 'segments':
          return f.segmentKey;
        case 'variants':
          return f.variantId;
        case 'rules':
          return f.ruleId;
        case 'distributions':
          return f.distributionId;
        case 'constraints':
          return f.constraintId;
        case 'rollouts':
          return f.rolloutId;
        case 'tokens':
          return tokenId;
        case 'changes':
          return changeId;
        case 'bindings':
          return bindingId;
        case 'namespace': // /internal/v1/evaluation/snapshot/namespace/:key
          return f.namespaceKey;
        default:
          throw new Error(`no fixture value for ${part} in ${url}`);
      }
    })
    .join('/');
}

/** A body each evaluation route accepts. */
function evaluationBody(url: string, f: Fixture): unknown {
  const flagKey = url.endsWith('/boolean') ? f.booleanFlagKey : f.flagKey;
  const item = { namespaceKey: f.namespaceKey, flagKey, entityId: 'e1', context: { plan: 'gold' } };
  if (url.startsWith('/ofrep/')) return { context: { targetingKey: 'e1', plan: 'gold' } };
  if (url.endsWith('/batch') || url.endsWith('batch-evaluate')) return { requests: [item] };
  return item;
}

describeEachBackend('tiers', (backend) => {
  let t: TestApp;
  let reader: App;
  let fixture: Fixture;
  let tokenId: string;
  let changeId: string;
  let bindingId: string;

  beforeAll(async () => {
    t = await startTestApp(backend, TOKENS);
    fixture = await seedFixture(t.app, 'default');
    const token = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'tiers', description: 'walk' });
    expect(token.status).toBe(200);
    tokenId = token.body.authentication.id;
    const changes = await call(t.app, 'GET', `/api/v1/namespaces/${fixture.namespaceKey}/changes?limit=1`);
    changeId = changes.body.changes[0].id;
    const binding = await call(t.app, 'POST', '/api/v1/roles/bindings', {
      match: { claim: 'groups', pattern: 'walkers' },
      role: 'viewer',
      namespace: fixture.namespaceKey,
    });
    expect(binding.status).toBe(200);
    bindingId = binding.body.id;
    reader = await buildAppOn(t.database.url, { ...TOKENS, server: { mode: 'read' } });
  });
  afterAll(async () => {
    await reader?.close();
    await t?.close();
  });

  const routes = () => tierRoutes(reader.http).filter((r) => r.method !== 'HEAD' && !r.url.includes('*'));

  it('knows the same routes as the full instance, minus the dashboard', () => {
    const key = (r: TierRoute) => `${r.method} ${r.url}`;
    const full = new Set(tierRoutes(t.app.http).map(key));
    const read = new Set(tierRoutes(reader.http).map(key));
    expect([...read].filter((r) => !full.has(r))).toEqual([]);
    const missing = [...full].filter((r) => !read.has(r));
    expect(missing.length).toBeGreaterThan(0);
    // What the read tier lacks is the dashboard: `/`, its files and index.html.
    for (const route of missing) expect(route).toMatch(/^(GET|HEAD) \/(|index\.html|assets\/.*|\*)$/);
    expect(routes().filter((r) => r.tier === 'management-write').length).toBeGreaterThan(20);
    expect(routes().filter((r) => r.tier === 'management-read').length).toBeGreaterThan(10);
  });

  it('refuses every write route with 405 and the Flipt error body, changing nothing', async () => {
    const before = await call(t.app, 'GET', `/api/v1/namespaces/${fixture.namespaceKey}`);
    const revisionBefore = before.headers['x-vexil-revision'];
    expect(revisionBefore).toMatch(REVISION);
    const writes = routes().filter((r) => r.tier === 'management-write' || r.tier === 'auth-write');
    expect(writes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['POST /auth/v1/method/token', 'DELETE /auth/v1/tokens/:id', 'PUT /auth/v1/self/expire']),
    );
    for (const route of writes) {
      const url = concreteUrl(route.url, fixture, tokenId, changeId, bindingId);
      const res = await call(
        reader,
        route.method as 'POST',
        url,
        route.method === 'DELETE' ? undefined : { key: 'x', name: 'x' },
      );
      expect({ route: `${route.method} ${route.url}`, status: res.status, body: res.body }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 405,
        body: { code: 12, message: READ_ONLY_MESSAGE, details: [] },
      });
    }
    // Nothing was written: same revision, the token still there.
    const after = await call(t.app, 'GET', `/api/v1/namespaces/${fixture.namespaceKey}`);
    expect(after.headers['x-vexil-revision']).toBe(revisionBefore);
    expect((await call(t.app, 'GET', `/auth/v1/tokens/${tokenId}`)).status).toBe(200);
  });

  it('serves every read route: management reads, evaluation, OFREP, snapshot, health, metrics, meta, auth reads', async () => {
    const reads = routes().filter((r) => r.tier !== 'management-write' && r.tier !== 'auth-write');
    expect(reads.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/evaluate/v1/boolean',
        '/ofrep/v1/evaluate/flags/:key',
        '/internal/v1/evaluation/snapshot/namespace/:key',
        '/health',
        '/metrics',
        '/meta/info',
      ]),
    );
    for (const route of reads) {
      const url = concreteUrl(route.url, fixture, tokenId, changeId, bindingId);
      const res =
        route.method === 'GET'
          ? await call(reader, 'GET', url)
          : await call(reader, route.method as 'POST', url, evaluationBody(route.url, fixture));
      // /auth/v1/self has no "self" without a presented token (Flipt: 401); everything else is 200.
      const expected = route.url === '/auth/v1/self' ? 401 : 200;
      expect({ route: `${route.method} ${route.url}`, status: res.status }).toEqual({
        route: `${route.method} ${route.url}`,
        status: expected,
      });
    }
    // None of them leaves async hooks behind for the evaluations that follow (ADR 0009).
    expect(await promiseHooksOn()).toBe(false);
  });

  it('does not serve the dashboard on the read tier', async () => {
    expect((await call(reader, 'GET', '/')).status).toBe(404);
    expect((await call(t.app, 'GET', '/')).status).not.toBe(404);
  });

  describe('storage.read_only', () => {
    let readOnly: App;
    beforeAll(async () => {
      readOnly = await buildAppOn(t.database.url, { ...TOKENS, storage: { read_only: true } });
    });
    afterAll(async () => readOnly?.close());

    it('refuses management writes with 405, keeps reads, evaluation and token management', async () => {
      const created = await call(readOnly, 'POST', '/api/v1/namespaces/default/flags', { key: 'ro', name: 'ro' });
      expect(created.status).toBe(405);
      expect(created.body).toEqual({ code: 12, message: READ_ONLY_MESSAGE, details: [] });
      const deleted = await call(readOnly, 'DELETE', `/api/v1/namespaces/default/flags/${fixture.flagKey}`);
      expect(deleted.status).toBe(405);
      expect((await call(readOnly, 'GET', `/api/v1/namespaces/default/flags/${fixture.flagKey}`)).status).toBe(200);
      const evaluation = await call(
        readOnly,
        'POST',
        '/evaluate/v1/variant',
        evaluationBody('/evaluate/v1/variant', fixture),
      );
      expect(evaluation.status).toBe(200);
      const token = await call(readOnly, 'POST', '/auth/v1/method/token', { name: 'ro', description: '' });
      expect(token.status).toBe(200);
      expect((await call(readOnly, 'DELETE', `/auth/v1/tokens/${token.body.authentication.id}`)).status).toBe(200);
    });
  });

  describe('X-Vexil-Revision', () => {
    const ns = '/api/v1/namespaces/revs';
    const header = (res: { headers: Record<string, unknown> }) => res.headers['x-vexil-revision'] as string | undefined;
    const counter = (revision: string | undefined) => Number(revision?.split('.')[1]);

    beforeAll(async () => {
      expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: 'revs', name: 'Revs' })).status).toBe(200);
    });

    it('carries the revision a write created, and reads and evaluations carry the current one', async () => {
      const created = await call(t.app, 'POST', `${ns}/flags`, {
        key: 'r1',
        name: 'R1',
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: true,
      });
      expect(created.status).toBe(200);
      const first = header(created);
      expect(first).toMatch(REVISION);

      const read = await call(t.app, 'GET', `${ns}/flags/r1`);
      expect(header(read)).toBe(first);
      const list = await call(t.app, 'GET', `${ns}/flags`);
      expect(header(list)).toBe(first);
      expect(header(await call(t.app, 'GET', '/api/v1/namespaces/revs'))).toBe(first);

      const evaluation = await call(t.app, 'POST', '/evaluate/v1/boolean', {
        namespaceKey: 'revs',
        flagKey: 'r1',
        entityId: 'e',
      });
      expect(evaluation.status).toBe(200);
      expect(header(evaluation)).toBe(first);

      const updated = await call(t.app, 'PUT', `${ns}/flags/r1`, { name: 'R1', enabled: false });
      expect(updated.status).toBe(200);
      expect(counter(header(updated))).toBe(counter(first) + 1);
      // The read tier, on the same database, reports the same revision and already evaluates it.
      expect(header(await call(reader, 'GET', `${ns}/flags/r1`))).toBe(header(updated));
      const onReader = await call(reader, 'POST', '/evaluate/v1/boolean', {
        namespaceKey: 'revs',
        flagKey: 'r1',
        entityId: 'e',
      });
      expect(onReader.body.enabled).toBe(false);
      expect(header(onReader)).toBe(header(updated));

      const deleted = await call(t.app, 'DELETE', `${ns}/flags/r1`);
      expect(counter(header(deleted))).toBe(counter(first) + 2);
    });

    it('gives each of concurrent writes its own revision', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call(t.app, 'POST', `${ns}/flags`, { key: `c${i}`, name: `C${i}`, type: 'BOOLEAN_FLAG_TYPE' }),
        ),
      );
      for (const res of results) expect(res.status).toBe(200);
      const revisions = results.map((res) => counter(header(res)));
      expect(new Set(revisions).size).toBe(8);
      const latest = header(await call(t.app, 'GET', `${ns}/flags`));
      expect(counter(latest)).toBe(Math.max(...revisions));
    });

    it('leaves no async hooks behind once the requests are answered (ADR 0009)', async () => {
      await Promise.all([
        call(t.app, 'POST', `${ns}/flags`, { key: 'h1', name: 'H1', type: 'BOOLEAN_FLAG_TYPE' }),
        call(t.app, 'GET', `${ns}/flags`),
        call(t.app, 'DELETE', `${ns}/flags/nope`),
      ]);
      expect(await promiseHooksOn()).toBe(false);
    });

    it('is absent where no single namespace is addressed, and on errors', async () => {
      expect(header(await call(t.app, 'GET', '/api/v1/namespaces'))).toBeUndefined();
      expect(header(await call(t.app, 'GET', '/health'))).toBeUndefined();
      const missing = await call(t.app, 'GET', `${ns}/flags/nope`);
      expect(missing.status).toBe(404);
      expect(header(missing)).toBeUndefined();
      expect(header(await call(t.app, 'GET', '/api/v1/namespaces/nope/flags'))).toBeUndefined();
      const legacy = await call(t.app, 'GET', '/api/v1/flags');
      expect(legacy.status).toBe(200);
      expect(header(legacy)).toBe(header(await call(t.app, 'GET', '/api/v1/namespaces/default')));
    });
  });
});
