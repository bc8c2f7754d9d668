// Bad input across the whole HTTP API (fast-check): every route the OpenAPI document lists, called
// with path parameters that name real objects or odd strings, random query parameters and random
// bodies (JSON of any shape, the right field names with values of the wrong type, text that is not
// JSON). Whatever comes in, the answer is below 500 (or grpc-gateway's 501 when a path names another
// route), a failure carries the API's error body (Flipt's, or OFREP's under /ofrep), and afterwards
// the store is consistent: every list reads, every namespace exports, every stored flag evaluates, and
// each held evaluation snapshot is the database's current revision. Inputs include text no database
// stores as given (NUL, unpaired surrogates), numbers past every range, deep nesting and the keys
// that pollute prototypes (`__proto__`, `constructor`, `prototype`).

import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const NS = '/api/v1/namespaces/default';

/** Field names the API reads somewhere, so random bodies reach validation beyond "unknown field". */
const FIELDS = [
  'key',
  'name',
  'description',
  'type',
  'enabled',
  'matchType',
  'property',
  'operator',
  'value',
  'segmentKey',
  'segmentKeys',
  'segmentOperator',
  'rank',
  'variantId',
  'rollout',
  'attachment',
  'threshold',
  'segment',
  'percentage',
  'flagKey',
  'entityId',
  'context',
  'requests',
  'namespaceKey',
  'ruleIds',
  'rolloutIds',
  'defaultVariantId',
  'metadata',
  'expiresAt',
  'protected',
  'flags',
  'targetingKey',
  '__proto__',
  'constructor',
  'prototype',
];

/** Text PostgreSQL refuses (NUL) or every driver silently changes (unpaired surrogates). */
const UNSTORABLE = ['a\u0000b', '\u0000', 'x\ud800', '\udc00y', 'a\ud83db', '\u0000\ud800'];

/** Nested `depth` levels deep, as JSON text (fast-check's own values stay shallow). */
const nested = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;

/** Bodies that only raw JSON text can carry: own `__proto__` keys, nesting deeper than any schema. */
const RAW_BODIES = [
  '{"__proto__":{"key":"polluted","name":"p"},"key":"proto1","name":"p"}',
  '{"constructor":{"prototype":{"polluted":true}},"key":"proto2","name":"p"}',
  '{"key":"proto3","name":"p","metadata":{"__proto__":{"polluted":true},"constructor":1}}',
  '{"flagKey":"f1","entityId":"e","context":{"__proto__":"x","constructor":"y"}}',
  nested(5000, '[', ']'),
  nested(2000, '{"a":', '}'),
  `{"key":"deep","name":"d","metadata":${nested(200, '{"m":', '}')}}`,
  `{"flagKey":"f1","entityId":"e","context":${nested(300, '{"c":', '}')}}`,
  '{"key":"big","name":"b","rank":1e400,"rollout":-1e400}',
  `{"key":"k\\u0000k","name":"n\\u0000n","description":"\\ud800"}`,
];

const ENUMS = [
  'ALL_MATCH_TYPE',
  'ANY_MATCH_TYPE',
  'VARIANT_FLAG_TYPE',
  'BOOLEAN_FLAG_TYPE',
  'THRESHOLD_ROLLOUT_TYPE',
  'SEGMENT_ROLLOUT_TYPE',
  'STRING_COMPARISON_TYPE',
  'NUMBER_COMPARISON_TYPE',
  'DATETIME_COMPARISON_TYPE',
  'ENTITY_ID_COMPARISON_TYPE',
  'BOOLEAN_COMPARISON_TYPE',
  'AND_SEGMENT_OPERATOR',
  'eq',
  'isoneof',
  'lt',
  'present',
  'true',
  '1',
  '',
];

/**
 * A path segment as a client's bytes: percent-encoded UTF-8, and an unpaired surrogate as its
 * three WTF-8 bytes (not valid UTF-8), which is how one reaches a server in a URL.
 */
function pathSegment(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

describeEachBackend('bad input anywhere in the API', (backend) => {
  let t: TestApp;
  /** Path parameter values that name stored objects, by parameter name. */
  const stored: Record<string, string> = { namespaceKey: 'default', key: 'f1', flagKey: 'f1', segmentKey: 's1' };
  let routes: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string }[] = [];

  const ok = async (method: 'POST' | 'PUT', url: string, body: unknown) => {
    const res = await call(t.app, method, url, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestApp(backend);
    await ok('POST', `${NS}/segments`, { key: 's1', name: 's1', matchType: 'ALL_MATCH_TYPE' });
    await ok('POST', `${NS}/segments/s1/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    await ok('POST', `${NS}/flags`, { key: 'f1', name: 'f1', type: 'VARIANT_FLAG_TYPE', enabled: true });
    const variant = await ok('POST', `${NS}/flags/f1/variants`, { key: 'v1', attachment: '{"a":1}' });
    const rule = await ok('POST', `${NS}/flags/f1/rules`, { segmentKey: 's1', rank: 1 });
    await ok('POST', `${NS}/flags/f1/rules/${rule.id}/distributions`, { variantId: variant.id, rollout: 50 });
    await ok('POST', `${NS}/flags`, { key: 'b1', name: 'b1', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    const rollout = await ok('POST', `${NS}/flags/b1/rollouts`, {
      rank: 1,
      type: 'THRESHOLD_ROLLOUT_TYPE',
      threshold: { percentage: 50, value: true },
    });
    Object.assign(stored, { id: rule.id, ruleId: rule.id, variantId: variant.id, rolloutId: rollout.id });

    const spec = (await call(t.app, 'GET', '/openapi.json')).body as { paths: Record<string, object> };
    routes = Object.entries(spec.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method: method.toUpperCase() as 'GET', path })),
    );
  });
  afterAll(async () => t?.close());

  it('answers every request below 500, with the error body of its API', async () => {
    expect(routes.length).toBeGreaterThan(40);
    const oddSegment = fc.oneof(
      fc.constantFrom('default', 'f1', 'b1', 's1', 'missing', '', ' ', '%', '..', 'ü', 'k'.repeat(300)),
      fc.constantFrom(...UNSTORABLE, '__proto__', 'constructor', 'prototype'),
      fc.string({ maxLength: 20 }),
    );
    const scalar = fc.oneof(
      fc.constantFrom(...ENUMS),
      // Past the columns' ranges and lengths: INTEGER, float, VARCHAR(255).
      fc.constantFrom(2 ** 31, 2 ** 53 + 2, 1e300, -1e300, 'k'.repeat(256), '2026-11-27T00:00:00Z'),
      fc.constantFrom(
        Number.MAX_VALUE,
        -Number.MAX_VALUE,
        2 ** 64,
        -(2 ** 63),
        Number.MIN_VALUE,
        '1e999',
        '9'.repeat(40),
      ),
      fc.constantFrom(...UNSTORABLE, '__proto__', 'constructor', 'prototype'),
      fc.string({ maxLength: 12, unit: 'binary' }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 12 }),
    );
    const fields = (value: fc.Arbitrary<unknown>) => fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 });
    const body = fc.oneof(
      fields(
        fc.oneof(
          scalar,
          fields(scalar),
          fc.array(scalar, { maxLength: 3 }),
          fc.array(fields(scalar), { maxLength: 3 }),
        ),
      ),
      fc.anything(),
      fc.constantFrom('', '{', 'null', '[]', '"text"', '1e999', '{"key":', ...RAW_BODIES),
    );
    const query = fc.dictionary(
      fc.constantFrom('limit', 'offset', 'pageToken', 'force', 'reference', 'pretty', 'explain', 'type'),
      fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.constantFrom('-1', '0', 'true', '1e9', '99999999999999999999', '1e999', ...UNSTORABLE, '__proto__'),
      ),
      { maxKeys: 3 },
    );

    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(routes.length - 1),
        fc.array(oddSegment, { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        query,
        body,
        async (index, segments, useStored, params, payload) => {
          const route = routes[index] as (typeof routes)[number];
          let next = 0;
          const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
            pathSegment((useStored ? stored[name] : undefined) ?? (segments[next++] as string)),
          );
          const search = new URLSearchParams(params).toString();
          const url = search ? `${path}?${search}` : path;
          const sendsBody = route.method === 'POST' || route.method === 'PUT';
          const res = await call(t.app, route.method, url, sendsBody ? payload : undefined);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const seen = `${route.method} ${url} ${JSON.stringify(payload)?.slice(0, 200)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`;
          // An empty path parameter can leave a path that names another route, with other methods
          // (`/constraints/` is `/constraints`, which has POST only): 501 Method Not Allowed, as in Flipt.
          if (res.status === 501)
            expect(res.body, seen).toEqual({ code: 12, message: 'Method Not Allowed', details: [] });
          else expect(res.status, seen).toBeLessThan(500);
          if (res.status >= 400) {
            if (path.startsWith('/ofrep/')) {
              expect(typeof res.body?.errorCode, seen).toBe('string');
              expect(typeof res.body?.errorDetails, seen).toBe('string');
            } else {
              expect(typeof res.body?.code, seen).toBe('number');
              expect(typeof res.body?.message, seen).toBe('string');
              expect(Array.isArray(res.body?.details), seen).toBe(true);
            }
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 10_000) },
    );

    // The requests got past validation too: some were answered, some found nothing.
    expect(statuses.get(200)).toBeGreaterThan(100);
    expect(statuses.get(404)).toBeGreaterThan(100);

    // Whatever the requests above changed, the store is consistent: every list reads, every namespace
    // exports, every stored flag evaluates, and each held snapshot is the database's current revision.
    const listed = await call(t.app, 'GET', '/api/v1/namespaces?limit=1000');
    expect(listed.status).toBe(200);
    const namespaces = listed.body.namespaces as { key: string }[];
    expect(namespaces.length).toBeGreaterThan(0);
    for (const { key: namespaceKey } of namespaces) {
      const ns = `/api/v1/namespaces/${encodeURIComponent(namespaceKey)}`;
      const flags = await call(t.app, 'GET', `${ns}/flags?limit=1000`);
      expect(flags.status, JSON.stringify(flags.body)).toBe(200);
      expect((await call(t.app, 'GET', `${ns}/segments?limit=1000`)).status).toBe(200);
      expect((await call(t.app, 'GET', `${ns}/export`)).status).toBe(200);
      for (const flag of flags.body.flags as { key: string; type: string }[]) {
        const flagPath = `${ns}/flags/${encodeURIComponent(flag.key)}`;
        for (const list of ['rules', 'rollouts']) {
          const res = await call(t.app, 'GET', `${flagPath}/${list}?limit=1000`);
          expect(res.status, `${flagPath}/${list}: ${JSON.stringify(res.body)}`).toBe(200);
        }
        const kind = flag.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant';
        const res = await call(t.app, 'POST', `/evaluate/v1/${kind}`, {
          namespaceKey,
          flagKey: flag.key,
          entityId: 'e',
          context: { plan: 'pro' },
        });
        expect(res.status, `${namespaceKey}/${flag.key}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      const held = await t.app.snapshots.get(namespaceKey);
      t.app.snapshots.invalidate(namespaceKey, 'poll');
      const current = await t.app.snapshots.get(namespaceKey);
      expect(held.revision, namespaceKey).toBe(current.revision);
      expect([...held.flags.keys()].sort()).toEqual((flags.body.flags as { key: string }[]).map((f) => f.key).sort());
    }
    // No prototype was polluted by the keys the requests carried.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('key');
    expect((await call(t.app, 'GET', '/health')).body).toEqual({ status: 'SERVING' });
  }, 300_000);
});
