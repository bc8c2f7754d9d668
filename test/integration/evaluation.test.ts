import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type Http, Seeder, seedRichNamespace } from './evaluation-seed.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const BOOLEAN_KEYS = ['enabled', 'reason', 'requestId', 'requestDurationMillis', 'timestamp', 'flagKey', 'segmentKeys'];
const VARIANT_KEYS = [
  'match',
  'segmentKeys',
  'reason',
  'variantKey',
  'variantAttachment',
  'requestId',
  'requestDurationMillis',
  'timestamp',
  'flagKey',
];

describeEachBackend('evaluation API (/evaluate/v1)', (backend) => {
  let t: TestApp;
  let http: Http;

  beforeAll(async () => {
    t = await startTestApp(backend, { evaluation: { batch_limit: 50 } });
    http = (method, url, body) => call(t.app, method, url, body);
    await seedRichNamespace(new Seeder(http));
    // Flipt's own bucketing vectors (legacy_evaluator_test.go): foo/1 → boz, foo/2 → booz.
    const vectors = new Seeder(http, 'vectors');
    await vectors.namespaceExists();
    await vectors.segment({ key: 'all' });
    await vectors.variantFlag({
      key: 'foo',
      variants: [{ key: 'boz' }, { key: 'booz' }],
      rules: [
        {
          segments: ['all'],
          distributions: [
            ['boz', 50],
            ['booz', 50],
          ],
        },
      ],
    });
    await vectors.booleanFlag({
      key: 'half',
      enabled: false,
      rollouts: [{ threshold: { percentage: 50, value: true } }],
    });
  });
  afterAll(async () => t?.close());

  describe('boolean', () => {
    it("answers Flipt's shape, keys in proto order", async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
        namespaceKey: 'default',
        flagKey: 'new-ui',
        entityId: 'someone',
        context: { plan: 'pro' },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(BOOLEAN_KEYS);
      expect(res.body).toMatchObject({
        enabled: true,
        reason: 'MATCH_EVALUATION_REASON',
        flagKey: 'new-ui',
        segmentKeys: ['pro'],
      });
      expect(res.body.requestId).toMatch(UUID_V4);
      expect(res.body.timestamp).toMatch(RFC3339_UTC);
      // An integer, as interface.md types it (Flipt writes a fractional double).
      expect(Number.isInteger(res.body.requestDurationMillis)).toBe(true);
      expect(res.body.requestDurationMillis).toBeGreaterThanOrEqual(0);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-vexil-revision']).toMatch(/^\d+\.\d+$/);
    });

    it('echoes a given requestId; an empty namespace means default', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
        requestId: 'req-1',
        namespaceKey: '',
        flagKey: 'kill-switch',
        entityId: 'x',
      });
      expect(res.body).toMatchObject({
        requestId: 'req-1',
        enabled: true,
        reason: 'DEFAULT_EVALUATION_REASON',
        segmentKeys: [],
      });
    });

    it('buckets thresholds like Flipt: crc32(entityId + flagKey) % 100 < percentage', async () => {
      // crc32("1half") % 100 and crc32("2half") % 100, checked against an independent CRC32.
      const { crc32 } = await import('node:zlib');
      for (const entityId of ['1', '2', '3', 'alice', 'bob', 'ünï']) {
        const bucket = crc32(Buffer.from(`${entityId}half`)) % 100;
        const res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
          namespaceKey: 'vectors',
          flagKey: 'half',
          entityId,
        });
        expect({ entityId, enabled: res.body.enabled, reason: res.body.reason }).toEqual({
          entityId,
          enabled: bucket < 50,
          reason: bucket < 50 ? 'MATCH_EVALUATION_REASON' : 'DEFAULT_EVALUATION_REASON',
        });
      }
    });

    it('a variant flag is 400 "flag type VARIANT_FLAG_TYPE invalid"', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean', { flagKey: 'color', entityId: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 3, message: 'flag type VARIANT_FLAG_TYPE invalid', details: [] });
    });
  });

  describe('variant', () => {
    it("answers Flipt's shape, keys in proto order, attachment as a JSON string", async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/variant', {
        flagKey: 'color',
        entityId: 'e1',
        context: { plan: 'pro', country: 'de' },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(VARIANT_KEYS);
      expect(res.body).toMatchObject({
        match: true,
        reason: 'MATCH_EVALUATION_REASON',
        variantKey: 'blue',
        variantAttachment: '{"hex":"#00f","dark":true}',
        flagKey: 'color',
      });
      expect([...res.body.segmentKeys].sort()).toEqual(['eu', 'pro']);
      expect(res.body.requestId).toMatch(UUID_V4);
      expect(res.body.timestamp).toMatch(RFC3339_UTC);
    });

    it("Flipt's bucketing vectors: foo/1 → boz, foo/2 → booz", async () => {
      const one = await call(t.app, 'POST', '/evaluate/v1/variant', {
        namespaceKey: 'vectors',
        flagKey: 'foo',
        entityId: '1',
      });
      const two = await call(t.app, 'POST', '/evaluate/v1/variant', {
        namespaceKey: 'vectors',
        flagKey: 'foo',
        entityId: '2',
      });
      expect(one.body).toMatchObject({ match: true, variantKey: 'boz', segmentKeys: ['all'] });
      expect(two.body).toMatchObject({ match: true, variantKey: 'booz', segmentKeys: ['all'] });
    });

    it('disabled, no rule matched, matched without distributions', async () => {
      const disabled = await call(t.app, 'POST', '/evaluate/v1/variant', { flagKey: 'size', entityId: 'x' });
      expect(disabled.body).toMatchObject({
        match: false,
        reason: 'FLAG_DISABLED_EVALUATION_REASON',
        variantKey: 'l',
        segmentKeys: [],
      });
      const unknown = await call(t.app, 'POST', '/evaluate/v1/variant', { flagKey: 'theme', entityId: 'x' });
      expect(unknown.body).toMatchObject({ match: false, reason: 'UNKNOWN_EVALUATION_REASON', variantKey: '' });
      const noDistributions = await call(t.app, 'POST', '/evaluate/v1/variant', {
        flagKey: 'layout',
        entityId: 'x',
        context: { beta: 'true' },
      });
      expect(noDistributions.body).toMatchObject({
        match: true,
        reason: 'MATCH_EVALUATION_REASON',
        variantKey: '',
        segmentKeys: ['beta'],
      });
    });

    it('a boolean flag is 400 "flag type BOOLEAN_FLAG_TYPE invalid"', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/variant', { flagKey: 'new-ui', entityId: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('flag type BOOLEAN_FLAG_TYPE invalid');
    });
  });

  describe('explain (beyond Flipt)', () => {
    it('variant: rules tried in order, segments and constraints with why they failed, the bucket', async () => {
      const body = { flagKey: 'color', entityId: 'e1', context: { plan: 'free', age: 'abc' } };
      const plain = await call(t.app, 'POST', '/evaluate/v1/variant', body);
      const res = await call(t.app, 'POST', '/evaluate/v1/variant?explain=true', body);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([...VARIANT_KEYS, 'explain']);
      const { explain, requestId: _r, requestDurationMillis: _d, timestamp: _t, ...result } = res.body;
      const { requestId: _r2, requestDurationMillis: _d2, timestamp: _t2, ...plainResult } = plain.body;
      expect(result).toEqual(plainResult);
      const { crc32 } = await import('node:zlib');
      expect(explain.bucket).toBe(crc32(Buffer.from('colore1')) % 1000);
      expect(explain.rules.map((r: { rank: number; matched: boolean }) => [r.rank, r.matched])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
      const [first, second] = explain.rules;
      const pro = first.segments.find((s: { key: string }) => s.key === 'pro');
      expect(pro.constraints[0]).toMatchObject({
        property: 'plan',
        actual: 'free',
        matched: false,
        failure: 'comparison false',
      });
      const eu = first.segments.find((s: { key: string }) => s.key === 'eu');
      expect(eu.constraints[0]).toMatchObject({
        property: 'country',
        actual: null,
        matched: false,
        failure: 'missing property',
      });
      expect(second.segments[0].constraints[0]).toMatchObject({
        property: 'age',
        actual: 'abc',
        matched: false,
        failure: 'parse failure',
        unparsable: 'context value',
      });
      expect(explain.decision).toBe(result.match ? 'RULE_MATCHED_DISTRIBUTION' : 'RULE_MATCHED_BUCKET_GAP');
      expect(explain.result).toBeUndefined();
    });

    it('boolean: rollouts tried and the threshold bucket', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean?explain=true', {
        flagKey: 'new-ui',
        entityId: 'e2',
        context: { plan: 'free' },
      });
      expect(Object.keys(res.body)).toEqual([...BOOLEAN_KEYS, 'explain']);
      const { crc32 } = await import('node:zlib');
      const bucket = crc32(Buffer.from('e2new-ui')) % 100;
      expect(res.body.explain.bucket).toBe(bucket);
      expect(res.body.explain.rollouts[0]).toMatchObject({ kind: 'segment', matched: false });
      expect(res.body.explain.rollouts[1]).toMatchObject({ kind: 'threshold', matched: bucket < 30, percentage: 30 });
      expect(res.body.enabled).toBe(bucket < 30);
    });

    it('without the flag the answer has no explain member', async () => {
      for (const q of ['', '?explain=false']) {
        const res = await call(t.app, 'POST', `/evaluate/v1/boolean${q}`, { flagKey: 'new-ui', entityId: 'e2' });
        expect(Object.keys(res.body)).toEqual(BOOLEAN_KEYS);
      }
    });
  });

  describe('answers written as text', () => {
    const raw = (url: string, payload?: string, headers: Record<string, string> = {}) =>
      t.app.http.inject({ method: 'POST', url, payload, headers });

    it('JSON content type, the request id in the body and in X-Request-Id, the revision header', async () => {
      for (const url of ['/evaluate/v1/boolean', '/evaluate/v1/variant']) {
        const flagKey = url.endsWith('boolean') ? 'new-ui' : 'color';
        const res = await raw(url, JSON.stringify({ flagKey, entityId: 'e1' }), { 'content-type': 'application/json' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.headers['x-request-id']).toMatch(UUID_V4);
        expect(res.json().requestId).toBe(res.headers['x-request-id']);
        expect(res.headers['x-vexil-revision']).toBeTruthy();
      }
    });

    it('every answer of the evaluation routes echoes X-Request-Id, errors and 304s included', async () => {
      const json = { 'content-type': 'application/json' };
      const bulk = JSON.stringify({ context: { targetingKey: 'e1' } });
      const first = await raw('/ofrep/v1/evaluate/flags', bulk, json);
      const cases: [string, string | undefined, Record<string, string>, number][] = [
        ['/evaluate/v1/boolean', JSON.stringify({ flagKey: 'new-ui', entityId: 'e' }), json, 200],
        ['/evaluate/v1/variant?explain=true', JSON.stringify({ flagKey: 'color', entityId: 'e' }), json, 200],
        ['/evaluate/v1/boolean', JSON.stringify({ flagKey: 'missing' }), json, 404],
        ['/evaluate/v1/variant', '{not json', json, 400],
        ['/evaluate/v1/batch', JSON.stringify({ requests: [{ flagKey: 'new-ui' }] }), json, 200],
        ['/evaluate/v1/batch', JSON.stringify({ requests: 'no' }), json, 400],
        ['/ofrep/v1/evaluate/flags/new-ui', bulk, json, 200],
        ['/ofrep/v1/evaluate/flags/missing', bulk, json, 404],
        ['/ofrep/v1/evaluate/flags', bulk, json, 200],
        ['/ofrep/v1/evaluate/flags', bulk, { ...json, 'if-none-match': String(first.headers.etag) }, 304],
        ['/ofrep/v1/nowhere', bulk, json, 404],
        ['/evaluate/v1/nowhere', bulk, json, 404],
      ];
      for (const [i, [url, payload, headers, status]] of cases.entries()) {
        const res = await raw(url, payload, { ...headers, 'x-request-id': `case-${i}` });
        expect([url, res.statusCode]).toEqual([url, status]);
        expect([url, res.headers['x-request-id']]).toEqual([url, `case-${i}`]);
      }
    });

    it('?pretty and Accept: application/json+pretty indent plain, explained, batch and error answers', async () => {
      const body = JSON.stringify({ flagKey: 'new-ui', entityId: 'e1' });
      const compact = await raw('/evaluate/v1/boolean', body);
      const pretty = await raw('/evaluate/v1/boolean?pretty', body);
      expect(pretty.statusCode).toBe(200);
      expect(pretty.body).toContain('\n  "enabled": ');
      const strip = (b: Record<string, unknown>) => ({ ...b, requestId: 0, requestDurationMillis: 0, timestamp: 0 });
      expect(strip(pretty.json())).toEqual(strip(compact.json()));
      const accept = await raw('/evaluate/v1/variant', JSON.stringify({ flagKey: 'color', entityId: 'e1' }), {
        accept: 'application/json+pretty',
      });
      expect(accept.body).toContain('\n  "match": ');
      const explained = await raw('/evaluate/v1/variant?explain=true&pretty', JSON.stringify({ flagKey: 'color' }));
      expect(explained.body).toContain('\n  "explain": {');
      const batch = await raw('/evaluate/v1/batch?pretty', JSON.stringify({ requests: [{ flagKey: 'new-ui' }] }));
      expect(batch.body).toContain('\n  "responses": [');
      const missing = await raw('/evaluate/v1/boolean?pretty', JSON.stringify({ flagKey: 'nope' }));
      expect(missing.statusCode).toBe(404);
      expect(missing.body).toContain('\n  "code": 5');
      const notFound = await t.app.http.inject({ method: 'GET', url: '/api/v1/nothing-here?pretty' });
      expect(notFound.statusCode).toBe(404);
      expect(notFound.body).toBe(JSON.stringify({ code: 5, message: 'Not Found', details: [] }, null, 2));
    });

    it('a POST without body or content type is an empty request, as with {}', async () => {
      for (const url of ['/evaluate/v1/boolean', '/evaluate/v1/variant']) {
        const none = await raw(url);
        const empty = await raw(url, '{}', { 'content-type': 'application/json' });
        expect(none.statusCode).toBe(empty.statusCode);
        expect(none.json()).toEqual(empty.json());
      }
      const batch = await raw('/evaluate/v1/batch');
      expect(batch.statusCode).toBe(200);
      expect(batch.json()).toMatchObject({ responses: [] });
    });
  });

  describe('batch', () => {
    it('one item per request item, in order, across namespaces, not-found items in place', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/batch', {
        requestId: 'batch-1',
        requests: [
          { flagKey: 'new-ui', entityId: 'x', context: { plan: 'pro' }, requestId: 'item-1' },
          { namespaceKey: 'vectors', flagKey: 'foo', entityId: '1' },
          { flagKey: 'missing', entityId: 'x' },
          { namespaceKey: 'ghost', flagKey: 'color', entityId: 'x' },
          { namespaceKey: 'default', flagKey: 'size', entityId: 'x' },
        ],
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['requestId', 'responses', 'requestDurationMillis']);
      expect(res.body.requestId).toBe('batch-1');
      const r = res.body.responses;
      expect(r).toHaveLength(5);
      expect(Object.keys(r[0])).toEqual(['type', 'booleanResponse']);
      expect(r[0].type).toBe('BOOLEAN_EVALUATION_RESPONSE_TYPE');
      expect(Object.keys(r[0].booleanResponse)).toEqual(BOOLEAN_KEYS);
      expect(r[0].booleanResponse).toMatchObject({ enabled: true, requestId: 'item-1', segmentKeys: ['pro'] });
      expect(r[1]).toMatchObject({
        type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
        variantResponse: { variantKey: 'boz', requestId: '' },
      });
      expect(Object.keys(r[1].variantResponse)).toEqual(VARIANT_KEYS);
      expect(r[2]).toEqual({
        type: 'ERROR_EVALUATION_RESPONSE_TYPE',
        errorResponse: { flagKey: 'missing', namespaceKey: '', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
      });
      expect(r[3].errorResponse).toEqual({
        flagKey: 'color',
        namespaceKey: 'ghost',
        reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
      });
      expect(r[4].variantResponse).toMatchObject({ reason: 'FLAG_DISABLED_EVALUATION_REASON', variantKey: 'l' });
      // Every item carries the batch's duration (whole milliseconds) and timestamp.
      expect(Number.isInteger(res.body.requestDurationMillis)).toBe(true);
      expect(r[0].booleanResponse.requestDurationMillis).toBe(res.body.requestDurationMillis);
      expect(r[1].variantResponse.timestamp).toBe(r[0].booleanResponse.timestamp);
    });

    it('generates the top-level requestId; an empty or absent list is an empty answer', async () => {
      for (const body of [{ requests: [] }, {}, { requests: null }]) {
        const res = await call(t.app, 'POST', '/evaluate/v1/batch', body);
        expect(res.status).toBe(200);
        expect(res.body.responses).toEqual([]);
        expect(res.body.requestId).toMatch(UUID_V4);
      }
    });

    it('more items than evaluation.batch_limit (here 50) is 400; exactly the limit is fine', async () => {
      const item = { flagKey: 'kill-switch', entityId: 'x' };
      const ok = await call(t.app, 'POST', '/evaluate/v1/batch', { requests: Array(50).fill(item) });
      expect(ok.status).toBe(200);
      expect(ok.body.responses).toHaveLength(50);
      const over = await call(t.app, 'POST', '/evaluate/v1/batch', { requests: Array(51).fill(item) });
      expect(over.status).toBe(400);
      expect(over.body).toEqual({
        code: 3,
        message: 'invalid field requests: must contain at most 50 items (got 51)',
        details: [],
      });
      const legacy = await call(t.app, 'POST', '/api/v1/batch-evaluate', {
        requests: Array(51).fill({ flagKey: 'color', entityId: 'x' }),
      });
      expect(legacy.status).toBe(400);
    });
  });

  describe('bad input gets a 4xx, never a 500', () => {
    const cases: [string, string, unknown, number, string][] = [
      [
        'boolean, number in context',
        '/evaluate/v1/boolean',
        { flagKey: 'new-ui', entityId: 'x', context: { age: 30 } },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'boolean, boolean in context',
        '/evaluate/v1/boolean',
        { flagKey: 'new-ui', entityId: 'x', context: { beta: true } },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'variant, object in context',
        '/evaluate/v1/variant',
        { flagKey: 'color', entityId: 'x', context: { a: { b: 'c' } } },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'variant, array in context',
        '/evaluate/v1/variant',
        { flagKey: 'color', entityId: 'x', context: { a: ['b'] } },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'variant, context not an object',
        '/evaluate/v1/variant',
        { flagKey: 'color', context: 'plan=pro' },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'variant, flagKey a number',
        '/evaluate/v1/variant',
        { flagKey: 12 },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'batch, item context number',
        '/evaluate/v1/batch',
        { requests: [{ flagKey: 'color', context: { n: 1 } }] },
        400,
        'invalid values for key(s) in json body',
      ],
      [
        'batch, requests not a list',
        '/evaluate/v1/batch',
        { requests: { flagKey: 'color' } },
        400,
        'invalid values for key(s) in json body',
      ],
      ['body is a list', '/evaluate/v1/boolean', [], 400, 'invalid values for key(s) in json body'],
      [
        'unknown flag',
        '/evaluate/v1/boolean',
        { flagKey: 'nope', entityId: 'x' },
        404,
        'flag "default/nope" not found',
      ],
      [
        'unknown namespace',
        '/evaluate/v1/variant',
        { namespaceKey: 'ghost', flagKey: 'color', entityId: 'x' },
        404,
        'flag "ghost/color" not found',
      ],
      ['empty body', '/evaluate/v1/boolean', '', 404, 'flag "default/" not found'],
      ['empty object', '/evaluate/v1/variant', {}, 404, 'flag "default/" not found'],
      ['not JSON', '/evaluate/v1/variant', '{"flagKey":', 400, 'request body is not valid JSON'],
    ];
    for (const [name, url, body, status, message] of cases) {
      it(name, async () => {
        const res = await call(t.app, 'POST', url, body);
        expect({ status: res.status, body: res.body }).toEqual({
          status,
          body: { code: status === 404 ? 5 : 3, message, details: [] },
        });
      });
    }

    it('a body-less POST without a content type is an empty request', async () => {
      const res = await t.app.http.inject({ method: 'POST', url: '/evaluate/v1/boolean' });
      expect(res.statusCode).toBe(404);
      expect(JSON.parse(res.body).message).toBe('flag "default/" not found');
    });

    it('null context values read as "" and null fields as absent', async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
        requestId: null,
        namespaceKey: null,
        flagKey: 'new-ui',
        entityId: 'x',
        context: { plan: null },
      });
      expect(res.status).toBe(200);
      expect(res.body.requestId).toMatch(UUID_V4);
      const nullContext = await call(t.app, 'POST', '/evaluate/v1/variant', {
        flagKey: 'color',
        entityId: 'x',
        context: null,
      });
      expect(nullContext.status).toBe(200);
    });

    it('GET on an evaluation path is 501', async () => {
      const res = await call(t.app, 'GET', '/evaluate/v1/boolean');
      expect(res.status).toBe(501);
    });
  });

  describe('legacy /api/v1/evaluate', () => {
    it('answers flipt.EvaluationResponse, keys in proto order', async () => {
      const res = await call(t.app, 'POST', '/api/v1/evaluate', {
        flagKey: 'color',
        entityId: 'e1',
        context: { plan: 'pro', country: 'de', region: null },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([
        'requestId',
        'entityId',
        'requestContext',
        'match',
        'flagKey',
        'segmentKey',
        'timestamp',
        'value',
        'requestDurationMillis',
        'attachment',
        'reason',
        'namespaceKey',
        'segmentKeys',
      ]);
      expect(res.body).toMatchObject({
        entityId: 'e1',
        requestContext: { plan: 'pro', country: 'de', region: '' },
        match: true,
        flagKey: 'color',
        value: 'blue',
        attachment: '{"hex":"#00f","dark":true}',
        reason: 'MATCH_EVALUATION_REASON',
        namespaceKey: '',
      });
      expect(['pro', 'eu']).toContain(res.body.segmentKey);
      expect(res.body.requestId).toMatch(UUID_V4);
    });

    it('the namespace comes from the path; validation and type errors are 400', async () => {
      const viaPath = await call(t.app, 'POST', '/api/v1/namespaces/vectors/evaluate', {
        namespaceKey: 'ignored',
        flagKey: 'foo',
        entityId: '2',
      });
      expect(viaPath.body).toMatchObject({ value: 'booz', namespaceKey: 'vectors' });
      const noFlag = await call(t.app, 'POST', '/api/v1/evaluate', { entityId: 'x' });
      expect(noFlag.body).toEqual({ code: 3, message: 'invalid field flagKey: must not be empty', details: [] });
      const noEntity = await call(t.app, 'POST', '/api/v1/evaluate', { flagKey: 'color' });
      expect(noEntity.body.message).toBe('invalid field entityId: must not be empty');
      const boolean = await call(t.app, 'POST', '/api/v1/evaluate', { flagKey: 'new-ui', entityId: 'x' });
      expect(boolean.body.message).toBe('flag type BOOLEAN_FLAG_TYPE invalid');
    });

    it('batch: one namespace, excludeNotFound drops missing flags, items have no request id', async () => {
      const res = await call(t.app, 'POST', '/api/v1/batch-evaluate', {
        requestId: 'b1',
        excludeNotFound: true,
        requests: [
          { requestId: 'dropped', flagKey: 'color', entityId: 'e1', context: { plan: 'pro', country: 'fr' } },
          { flagKey: 'missing', entityId: 'x' },
          { namespaceKey: 'default', flagKey: 'size', entityId: 'x' },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.requestId).toBe('b1');
      expect(res.body.responses.map((r: { flagKey: string }) => r.flagKey)).toEqual(['color', 'size']);
      expect(res.body.responses[0]).toMatchObject({
        requestId: '',
        value: 'blue',
        namespaceKey: 'default',
        requestDurationMillis: 0,
      });
      expect(res.body.responses[0].timestamp).toMatch(RFC3339_UTC);

      const notFound = await call(t.app, 'POST', '/api/v1/batch-evaluate', {
        requests: [{ flagKey: 'missing', entityId: 'x' }],
      });
      expect(notFound.status).toBe(404);
      const mixed = await call(t.app, 'POST', '/api/v1/namespaces/default/batch-evaluate', {
        requests: [{ namespaceKey: 'vectors', flagKey: 'foo', entityId: 'x' }],
      });
      expect(mixed.body).toEqual({
        code: 3,
        message: 'invalid field namespace_key: must be the same for all requests if specified',
        details: [],
      });
    });
  });

  describe('snapshot cache', () => {
    it('10,000 evaluations of an unchanged namespace load its snapshot at most once', async () => {
      t.app.snapshots.invalidate('vectors');
      const before = t.app.snapshots.stats.loads;
      let evaluations = 0;
      // 200 requests: single boolean and variant evaluations, and batches of 50.
      for (let i = 0; evaluations < 10_000; i++) {
        let res: Awaited<ReturnType<typeof call>>;
        if (i % 4 === 0) {
          res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
            namespaceKey: 'vectors',
            flagKey: 'half',
            entityId: `e${i}`,
          });
          evaluations += 1;
        } else if (i % 4 === 1) {
          res = await call(t.app, 'POST', '/evaluate/v1/variant', {
            namespaceKey: 'vectors',
            flagKey: 'foo',
            entityId: `e${i}`,
          });
          evaluations += 1;
        } else {
          const requests = Array.from({ length: 50 }, (_, j) => ({
            namespaceKey: 'vectors',
            flagKey: j % 2 ? 'foo' : 'half',
            entityId: `e${i}-${j}`,
          }));
          res = await call(t.app, 'POST', '/evaluate/v1/batch', { requests });
          evaluations += 50;
        }
        expect(res.status).toBe(200);
        // An unchanged revision never drops the snapshot, whatever the poller sees.
        if (i === 100) expect(await t.app.snapshots.refreshFromRevisions()).toEqual([]);
      }
      expect(evaluations).toBeGreaterThanOrEqual(10_000);
      expect(t.app.snapshots.stats.loads - before).toBe(1);
    });

    it('snapshots of namespaces that do not exist are bounded in number', async () => {
      for (let i = 0; i < 1_100; i++) {
        const res = await call(t.app, 'POST', '/evaluate/v1/boolean', {
          namespaceKey: `ghost-${i}`,
          flagKey: 'x',
          entityId: 'y',
        });
        expect(res.status).toBe(404);
      }
      const held = t.app.snapshots.heldNamespaces();
      expect(held.filter((k) => k.startsWith('ghost-')).length).toBeLessThanOrEqual(1_024);
      expect(held).toContain('ghost-1099');
      expect(held).toContain('vectors');
    });

    it('a write invalidates only its namespace, and the next evaluation sees it', async () => {
      const evaluate = (namespaceKey: string, flagKey: string) =>
        call(t.app, 'POST', '/evaluate/v1/boolean', { namespaceKey, flagKey, entityId: 'rw' });
      await evaluate('default', 'kill-switch');
      await evaluate('vectors', 'half');
      const vectorsRevision = t.app.snapshots.heldRevision('vectors');
      const defaultRevision = t.app.snapshots.heldRevision('default');
      expect(vectorsRevision).toBeDefined();
      const loads = t.app.snapshots.stats.loads;

      const updated = await call(t.app, 'PUT', '/api/v1/namespaces/default/flags/kill-switch', {
        name: 'kill-switch',
        enabled: false,
      });
      expect(updated.status).toBe(200);
      expect(t.app.snapshots.heldRevision('default')).toBeUndefined();
      expect(t.app.snapshots.heldRevision('vectors')).toBe(vectorsRevision);

      const after = await evaluate('default', 'kill-switch');
      expect(after.body).toMatchObject({ enabled: false, reason: 'DEFAULT_EVALUATION_REASON' });
      expect(after.headers['x-vexil-revision']).not.toBe(defaultRevision);
      await evaluate('vectors', 'half');
      expect(t.app.snapshots.stats.loads - loads).toBe(1);

      await call(t.app, 'PUT', '/api/v1/namespaces/default/flags/kill-switch', { name: 'kill-switch', enabled: true });
      expect((await evaluate('default', 'kill-switch')).body.enabled).toBe(true);
    });
  });
});
