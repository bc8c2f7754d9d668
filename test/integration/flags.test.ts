// Flags API on every backend: shapes in Flipt's key order, create/update semantics, paging, errors,
// legacy routes, cascades on delete and the namespace revision bump of every write.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FLAG_KEYS = [
  'key',
  'name',
  'description',
  'enabled',
  'createdAt',
  'updatedAt',
  'variants',
  'namespaceKey',
  'type',
];

describeEachBackend('flags API', (backend) => {
  let t: TestApp;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, body?: unknown) =>
    call(t.app, method, url, body);
  const revision = async (ns: string) => {
    const row = await t.app.db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', ns)
      .executeTakeFirst();
    return Number(row?.revision);
  };
  const count = async (table: 'flags' | 'variants' | 'rules' | 'rule_segments' | 'distributions' | 'rollouts') => {
    const row = await t.app.db.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  beforeAll(async () => {
    t = await startTestApp(backend);
    expect((await api('POST', '/api/v1/namespaces', { key: 'team', name: 'Team' })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  describe('create and get', () => {
    it('creates a flag with Flipt defaults and its exact shape', async () => {
      const res = await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'checkout',
        name: 'Checkout',
        description: 'd',
        enabled: true,
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body)).toEqual(FLAG_KEYS);
      expect(res.body).toMatchObject({
        key: 'checkout',
        name: 'Checkout',
        description: 'd',
        enabled: true,
        variants: [],
        namespaceKey: 'team',
        type: 'VARIANT_FLAG_TYPE',
      });
      expect(res.body.createdAt).toMatch(TS);
      expect(res.body.updatedAt).toBe(res.body.createdAt);

      const got = await api('GET', '/api/v1/namespaces/team/flags/checkout');
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
      expect(Object.keys(got.body)).toEqual(FLAG_KEYS);
    });

    it('defaults description and enabled, accepts the type by name or number', async () => {
      const byName = await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'bool-a',
        name: 'A',
        type: 'BOOLEAN_FLAG_TYPE',
      });
      expect(byName.body).toMatchObject({ description: '', enabled: false, type: 'BOOLEAN_FLAG_TYPE' });
      const byNumber = await api('POST', '/api/v1/namespaces/team/flags', { key: 'bool-b', name: 'B', type: 1 });
      expect(byNumber.body.type).toBe('BOOLEAN_FLAG_TYPE');
      const zero = await api('POST', '/api/v1/namespaces/team/flags', { key: 'var-c', name: 'C', type: 0 });
      expect(zero.body.type).toBe('VARIANT_FLAG_TYPE');
      expect((await api('GET', '/api/v1/namespaces/team/flags/bool-b')).body.type).toBe('BOOLEAN_FLAG_TYPE');
    });

    it('stores metadata only when it has fields; a single flag omits it, lists show {}', async () => {
      const withMeta = await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'meta-full',
        name: 'M',
        metadata: { owner: 'ops', nested: { n: [1, 2] } },
      });
      expect(withMeta.body.metadata).toEqual({ owner: 'ops', nested: { n: [1, 2] } });
      expect(Object.keys(withMeta.body)).toEqual([...FLAG_KEYS, 'metadata']);
      expect((await api('GET', '/api/v1/namespaces/team/flags/meta-full')).body.metadata).toEqual({
        owner: 'ops',
        nested: { n: [1, 2] },
      });

      const empty = await api('POST', '/api/v1/namespaces/team/flags', { key: 'meta-empty', name: 'M', metadata: {} });
      expect(empty.body.metadata).toEqual({}); // echoed as sent
      const got = await api('GET', '/api/v1/namespaces/team/flags/meta-empty');
      expect(got.body).not.toHaveProperty('metadata');

      const list = await api('GET', '/api/v1/namespaces/team/flags');
      const listed = list.body.flags.find((f: { key: string }) => f.key === 'meta-empty');
      expect(listed.metadata).toEqual({});
      expect(list.body.flags.find((f: { key: string }) => f.key === 'meta-full').metadata).toEqual({
        owner: 'ops',
        nested: { n: [1, 2] },
      });
    });

    it('answers an unknown flag with 404', async () => {
      const res = await api('GET', '/api/v1/namespaces/team/flags/nope');
      expect(res).toMatchObject({ status: 404, body: { code: 5, message: 'flag "team/nope" not found', details: [] } });
    });

    it('lets path parameters override body fields and accepts snake_case', async () => {
      const res = await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'override',
        name: 'O',
        namespace_key: 'default',
        namespaceKey: 'default',
      });
      expect(res.body.namespaceKey).toBe('team');
      expect((await api('GET', '/api/v1/namespaces/default/flags/override')).status).toBe(404);
      const snake = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/namespaces/team/flags',
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({
          key: 'snake',
          name: 'S',
          flag_type: 'ignored',
          unknown_field: 1,
          metadata: { some_key: 1 },
        }),
      });
      expect(snake.statusCode).toBe(200);
      // keys inside metadata are data and keep their spelling
      expect(JSON.parse(snake.body).metadata).toEqual({ some_key: 1 });
    });

    it('accepts an empty body as {} and null as absent', async () => {
      const empty = await t.app.http.inject({ method: 'POST', url: '/api/v1/namespaces/team/flags' });
      expect(empty.statusCode).toBe(400);
      expect(JSON.parse(empty.body)).toEqual({ code: 3, message: 'invalid field key: must not be empty', details: [] });
      const nulls = await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'nulls',
        name: 'N',
        description: null,
        enabled: null,
        type: null,
        metadata: null,
      });
      expect(nulls.status).toBe(200);
      expect(nulls.body).toMatchObject({ description: '', enabled: false, type: 'VARIANT_FLAG_TYPE' });
      expect(nulls.body).not.toHaveProperty('metadata');
    });
  });

  describe('client mistakes', () => {
    it('answers each with a 4xx and the Flipt error body', async () => {
      const cases: [string, string, unknown, number, string | RegExp][] = [
        ['POST', '/api/v1/namespaces/team/flags', { name: 'x' }, 400, 'invalid field key: must not be empty'],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1' }, 400, 'invalid field name: must not be empty'],
        [
          'POST',
          '/api/v1/namespaces/team/flags',
          { key: 'k1', name: '' },
          400,
          'invalid field name: must not be empty',
        ],
        [
          'POST',
          '/api/v1/namespaces/team/flags',
          { key: 'bad key', name: 'x' },
          400,
          'invalid field key: contains invalid characters',
        ],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'x'.repeat(256), name: 'x' }, 400, /^invalid field key: /],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1', name: 'x'.repeat(256) }, 400, /^invalid field name: /],
        [
          'POST',
          '/api/v1/namespaces/team/flags',
          { key: 'checkout', name: 'x' },
          400,
          'flag "team/checkout" is not unique',
        ],
        ['POST', '/api/v1/namespaces/ghost/flags', { key: 'k1', name: 'x' }, 404, 'namespace "ghost" not found'],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1', name: 'x', type: 'FOO_FLAG_TYPE' }, 400, /type/],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1', name: 'x', type: 7 }, 400, /type/],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1', name: 'x', enabled: 'yes' }, 400, /enabled/],
        ['POST', '/api/v1/namespaces/team/flags', { key: 'k1', name: 'x', metadata: [1] }, 400, /metadata/],
        ['POST', '/api/v1/namespaces/team/flags', { key: 5, name: 'x' }, 400, /key/],
        ['POST', '/api/v1/namespaces/team/flags', '{"key":', 400, 'request body is not valid JSON'],
        [
          'PUT',
          '/api/v1/namespaces/team/flags/checkout',
          { description: 'no name' },
          400,
          'invalid field name: must not be empty',
        ],
        ['PUT', '/api/v1/namespaces/team/flags/nope', { name: 'x' }, 404, 'flag "team/nope" not found'],
        ['PUT', '/api/v1/namespaces/ghost/flags/nope', { name: 'x' }, 404, 'flag "ghost/nope" not found'],
        ['PATCH', '/api/v1/namespaces/team/flags/checkout', {}, 501, 'Method Not Allowed'],
      ];
      for (const [method, url, body, status, message] of cases) {
        const res = await api(method as 'GET', url, body);
        expect({ method, url, body, status: res.status }).toEqual({ method, url, body, status });
        expect(res.body).toEqual({ code: expect.any(Number), message: expect.anything(), details: [] });
        if (typeof message === 'string') expect(res.body.message).toBe(message);
        else expect(res.body.message).toMatch(message);
        expect(res.body.code).toBe(status === 404 ? 5 : status === 501 ? 12 : 3);
      }
      // nothing half-written by the failures
      expect((await api('GET', '/api/v1/namespaces/team/flags/k1')).status).toBe(404);
    });
  });

  describe('update', () => {
    it('sets name, description and enabled, keeps the type, and returns the full flag', async () => {
      await api('POST', '/api/v1/namespaces/team/flags', {
        key: 'upd',
        name: 'U',
        type: 'BOOLEAN_FLAG_TYPE',
        metadata: { a: 1 },
      });
      const before = await api('GET', '/api/v1/namespaces/team/flags/upd');
      const res = await api('PUT', '/api/v1/namespaces/team/flags/upd', {
        key: 'ignored-key',
        name: 'U2',
        description: 'new',
        enabled: true,
        type: 'VARIANT_FLAG_TYPE',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        key: 'upd',
        name: 'U2',
        description: 'new',
        enabled: true,
        type: 'BOOLEAN_FLAG_TYPE',
        metadata: { a: 1 },
        createdAt: before.body.createdAt,
      });
      expect(res.body.updatedAt >= before.body.updatedAt).toBe(true);
      expect((await api('GET', '/api/v1/namespaces/team/flags/upd')).body).toEqual(res.body);
      expect((await api('GET', '/api/v1/namespaces/team/flags/ignored-key')).status).toBe(404);
    });

    it('replaces metadata when sent with fields, clears it with {}, keeps it when absent or null', async () => {
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'meta-upd', name: 'M', metadata: { a: 1 } });
      const url = '/api/v1/namespaces/team/flags/meta-upd';
      expect((await api('PUT', url, { name: 'M' })).body.metadata).toEqual({ a: 1 });
      expect((await api('PUT', url, { name: 'M', metadata: null })).body.metadata).toEqual({ a: 1 });
      expect((await api('PUT', url, { name: 'M', metadata: { b: 'x' } })).body.metadata).toEqual({ b: 'x' });
      const cleared = await api('PUT', url, { name: 'M', metadata: {} });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('metadata');
      expect((await api('GET', url)).body).not.toHaveProperty('metadata');
    });

    it('sets the default variant, and clears it when defaultVariantId is omitted', async () => {
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'dv', name: 'DV' });
      const v1 = (await api('POST', '/api/v1/namespaces/team/flags/dv/variants', { key: 'v1', attachment: '{"x":1}' }))
        .body;
      const url = '/api/v1/namespaces/team/flags/dv';
      const set = await api('PUT', url, { name: 'DV', defaultVariantId: v1.id });
      expect(set.status).toBe(200);
      expect(Object.keys(set.body)).toEqual([...FLAG_KEYS, 'defaultVariant']);
      expect(set.body.defaultVariant).toEqual(v1);
      expect(set.body.variants).toEqual([v1]);
      expect((await api('GET', url)).body.defaultVariant).toEqual(v1);
      // the list shows it too
      const listed = (await api('GET', '/api/v1/namespaces/team/flags')).body.flags.find(
        (f: { key: string }) => f.key === 'dv',
      );
      expect(listed.defaultVariant).toEqual(v1);

      const snake = await api('PUT', url, { name: 'DV', default_variant_id: v1.id });
      expect(snake.body.defaultVariant).toEqual(v1);

      const cleared = await api('PUT', url, { name: 'DV renamed' });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty('defaultVariant');
      expect((await api('GET', url)).body).not.toHaveProperty('defaultVariant');

      await api('PUT', url, { name: 'DV', defaultVariantId: v1.id });
      expect((await api('PUT', url, { name: 'DV', defaultVariantId: '' })).body).not.toHaveProperty('defaultVariant');
    });

    it('refuses a default variant that is not one of the flag’s variants', async () => {
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'dv-a', name: 'A' });
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'dv-b', name: 'B' });
      const other = (await api('POST', '/api/v1/namespaces/team/flags/dv-b/variants', { key: 'vb' })).body;
      for (const id of [other.id, 'no-such-variant']) {
        const res = await api('PUT', '/api/v1/namespaces/team/flags/dv-a', { name: 'A', defaultVariantId: id });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ code: 3, message: `variant "${id}" not found for flag "team/dv-a"`, details: [] });
      }
      expect((await api('GET', '/api/v1/namespaces/team/flags/dv-a')).body.name).toBe('A');
    });
  });

  describe('list and paging', () => {
    beforeAll(async () => {
      await api('POST', '/api/v1/namespaces', { key: 'paged', name: 'Paged' });
      for (const key of ['f1', 'f2', 'f3', 'f4', 'f5']) {
        expect((await api('POST', '/api/v1/namespaces/paged/flags', { key, name: key })).status).toBe(200);
      }
    });

    it('lists everything in creation order without a limit', async () => {
      const res = await api('GET', '/api/v1/namespaces/paged/flags');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['flags', 'nextPageToken', 'totalCount']);
      expect(res.body.flags.map((f: { key: string }) => f.key)).toEqual(['f1', 'f2', 'f3', 'f4', 'f5']);
      expect(res.body.nextPageToken).toBe('');
      expect(res.body.totalCount).toBe(5);
      expect(Object.keys(res.body.flags[0])).toEqual([...FLAG_KEYS, 'metadata']);
      expect(res.body.flags[0].metadata).toEqual({});
      expect((await api('GET', '/api/v1/namespaces/paged/flags?limit=0')).body.flags).toHaveLength(5);
    });

    it('pages with limit and a base64 JSON token', async () => {
      const first = await api('GET', '/api/v1/namespaces/paged/flags?limit=2');
      expect(first.body.flags.map((f: { key: string }) => f.key)).toEqual(['f1', 'f2']);
      expect(first.body.totalCount).toBe(5);
      expect(JSON.parse(Buffer.from(first.body.nextPageToken, 'base64').toString())).toEqual({ key: 'f3', offset: 2 });
      const second = await api(
        'GET',
        `/api/v1/namespaces/paged/flags?limit=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(second.body.flags.map((f: { key: string }) => f.key)).toEqual(['f3', 'f4']);
      const third = await api(
        'GET',
        `/api/v1/namespaces/paged/flags?limit=2&page_token=${encodeURIComponent(second.body.nextPageToken)}`,
      );
      expect(third.body.flags.map((f: { key: string }) => f.key)).toEqual(['f5']);
      expect(third.body.nextPageToken).toBe('');
      const byOffset = await api('GET', '/api/v1/namespaces/paged/flags?limit=1&offset=3');
      expect(byOffset.body.flags.map((f: { key: string }) => f.key)).toEqual(['f4']);
      // the token wins over offset
      const both = await api(
        'GET',
        `/api/v1/namespaces/paged/flags?limit=1&offset=4&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(both.body.flags.map((f: { key: string }) => f.key)).toEqual(['f3']);
    });

    it('refuses a bad token and an offset or token without a limit', async () => {
      const bad = await api('GET', '/api/v1/namespaces/paged/flags?limit=2&pageToken=zzz');
      expect(bad).toMatchObject({
        status: 400,
        body: { code: 3, message: 'pageToken is not valid: "zzz"', details: [] },
      });
      for (const query of ['offset=1', 'pageToken=abc', 'limit=0&offset=2']) {
        const res = await api('GET', `/api/v1/namespaces/paged/flags?${query}`);
        expect(res).toMatchObject({
          status: 400,
          body: { code: 3, message: 'limit must be set when offset or pageToken is set' },
        });
      }
      expect((await api('GET', '/api/v1/namespaces/paged/flags?limit=abc')).status).toBe(400);
    });

    it('lists more flags than one IN list holds, each with its own variants', async () => {
      await api('POST', '/api/v1/namespaces', { key: 'many', name: 'Many' });
      const start = Date.now();
      const keys = Array.from({ length: 600 }, (_, i) => `m${String(i).padStart(3, '0')}`);
      for (let i = 0; i < keys.length; i += 100) {
        await t.app.db.kysely
          .insertInto('flags')
          .values(
            keys.slice(i, i + 100).map((key, j) => ({
              namespace_key: 'many',
              key,
              name: key,
              description: '',
              enabled: false,
              type: 0,
              default_variant_id: null,
              metadata: null,
              created_at: new Date(start + i + j),
              updated_at: new Date(start + i + j),
            })),
          )
          .execute();
      }
      const first = (await api('POST', '/api/v1/namespaces/many/flags/m000/variants', { key: 'a' })).body;
      const last = (await api('POST', '/api/v1/namespaces/many/flags/m599/variants', { key: 'z' })).body;
      const list = await api('GET', '/api/v1/namespaces/many/flags');
      expect(list.body.totalCount).toBe(600);
      expect(list.body.flags.map((f: { key: string }) => f.key)).toEqual(keys);
      expect(list.body.flags[0].variants).toEqual([first]);
      expect(list.body.flags[599].variants).toEqual([last]);
      expect(list.body.flags.slice(1, 599).every((f: { variants: unknown[] }) => f.variants.length === 0)).toBe(true);
    });

    it('lists an unknown namespace as empty', async () => {
      const res = await api('GET', '/api/v1/namespaces/ghost/flags');
      expect(res).toMatchObject({ status: 200, body: { flags: [], nextPageToken: '', totalCount: 0 } });
    });
  });

  describe('legacy routes without the namespace prefix', () => {
    it('serve the default namespace', async () => {
      const created = await api('POST', '/api/v1/flags', { key: 'legacy', name: 'L' });
      expect(created.status).toBe(200);
      expect(created.body.namespaceKey).toBe('default');
      expect((await api('GET', '/api/v1/namespaces/default/flags/legacy')).body).toEqual(created.body);
      expect((await api('GET', '/api/v1/flags/legacy')).body).toEqual(created.body);
      expect((await api('GET', '/api/v1/flags/legacy/')).status).toBe(200);
      const list = await api('GET', '/api/v1/flags');
      expect(list.body.flags.map((f: { key: string }) => f.key)).toContain('legacy');
      expect((await api('GET', '/api/v1/flags?offset=1')).status).toBe(400);
      const updated = await api('PUT', '/api/v1/flags/legacy', { name: 'L2' });
      expect(updated.body).toMatchObject({ key: 'legacy', name: 'L2', namespaceKey: 'default' });
      expect((await api('DELETE', '/api/v1/flags/legacy')).body).toEqual({});
      expect((await api('GET', '/api/v1/flags/legacy')).body.message).toBe('flag "default/legacy" not found');
    });

    it('take a namespace named in the body or query, as grpc-gateway binds it', async () => {
      const created = await api('POST', '/api/v1/flags', { key: 'legacy-team', name: 'L', namespaceKey: 'team' });
      expect(created.body.namespaceKey).toBe('team');
      expect((await api('GET', '/api/v1/flags/legacy-team?namespaceKey=team')).status).toBe(200);
      expect((await api('GET', '/api/v1/flags/legacy-team')).status).toBe(404);
    });
  });

  describe('delete', () => {
    it('is idempotent', async () => {
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'gone', name: 'G' });
      expect(await api('DELETE', '/api/v1/namespaces/team/flags/gone')).toMatchObject({ status: 200, body: {} });
      expect((await api('GET', '/api/v1/namespaces/team/flags/gone')).status).toBe(404);
      expect(await api('DELETE', '/api/v1/namespaces/team/flags/gone')).toMatchObject({ status: 200, body: {} });
      expect(await api('DELETE', '/api/v1/namespaces/ghost/flags/gone')).toMatchObject({ status: 200, body: {} });
    });

    it('cascades to variants, rules, rule segments, distributions and rollouts', async () => {
      await api('POST', '/api/v1/namespaces', { key: 'cascade', name: 'C' });
      const now = new Date();
      await t.app.db.kysely
        .insertInto('segments')
        .values({
          namespace_key: 'cascade',
          key: 'seg',
          name: 'S',
          description: '',
          match_type: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const base = '/api/v1/namespaces/cascade/flags';
      await api('POST', base, { key: 'doomed', name: 'D' });
      await api('POST', base, { key: 'kept', name: 'K' });
      const variant = (await api('POST', `${base}/doomed/variants`, { key: 'on' })).body;
      await api('PUT', `${base}/doomed`, { name: 'D', defaultVariantId: variant.id });
      const keptVariant = (await api('POST', `${base}/kept/variants`, { key: 'on' })).body;
      const rule = (await api('POST', `${base}/doomed/rules`, { rank: 1, segmentKey: 'seg' })).body;
      expect(
        (await api('POST', `${base}/doomed/rules/${rule.id}/distributions`, { variantId: variant.id, rollout: 100 }))
          .status,
      ).toBe(200);
      await t.app.db.kysely
        .insertInto('rollouts')
        .values({
          id: 'ro-1',
          namespace_key: 'cascade',
          flag_key: 'doomed',
          type: 2,
          description: '',
          rank: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();

      const before = {
        flags: await count('flags'),
        variants: await count('variants'),
        rules: await count('rules'),
        rule_segments: await count('rule_segments'),
        distributions: await count('distributions'),
        rollouts: await count('rollouts'),
      };
      expect((await api('DELETE', `${base}/doomed`)).status).toBe(200);
      expect({
        flags: await count('flags'),
        variants: await count('variants'),
        rules: await count('rules'),
        rule_segments: await count('rule_segments'),
        distributions: await count('distributions'),
        rollouts: await count('rollouts'),
      }).toEqual({
        flags: before.flags - 1,
        variants: before.variants - 1,
        rules: before.rules - 1,
        rule_segments: before.rule_segments - 1,
        distributions: before.distributions - 1,
        rollouts: before.rollouts - 1,
      });
      expect((await api('GET', `${base}/kept`)).body.variants).toEqual([keptVariant]);
      expect((await api('GET', `${base}/doomed/rules/${rule.id}`)).status).toBe(404);
      // the segment is free again
      await t.app.db.kysely
        .deleteFrom('segments')
        .where('namespace_key', '=', 'cascade')
        .where('key', '=', 'seg')
        .execute();
    });
  });

  describe('namespace revision', () => {
    it('increases on every write and not on reads or failed writes', async () => {
      let last = await revision('team');
      const expectBump = async () => {
        const now = await revision('team');
        expect(now).toBeGreaterThan(last);
        last = now;
      };
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'rev', name: 'R' });
      await expectBump();
      await api('PUT', '/api/v1/namespaces/team/flags/rev', { name: 'R2' });
      await expectBump();
      await api('GET', '/api/v1/namespaces/team/flags/rev');
      await api('GET', '/api/v1/namespaces/team/flags');
      expect(await revision('team')).toBe(last);
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'rev', name: 'dup' });
      await api('PUT', '/api/v1/namespaces/team/flags/rev', { name: 'R3', defaultVariantId: 'nope' });
      expect(await revision('team')).toBe(last);
      expect((await api('GET', '/api/v1/namespaces/team/flags/rev')).body.name).toBe('R2');
      await api('DELETE', '/api/v1/namespaces/team/flags/rev');
      await expectBump();
      const other = await revision('default');
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'rev2', name: 'R' });
      expect(await revision('default')).toBe(other);
    });

    it('publishes the change after the write', async () => {
      const seen: string[] = [];
      const unsubscribe = t.app.services.changes.subscribe((ns) => seen.push(ns));
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'published', name: 'P' });
      await api('POST', '/api/v1/namespaces/team/flags', { key: 'published', name: 'P' });
      unsubscribe();
      expect(seen).toEqual(['team']);
    });
  });

  it('documents the namespaced routes in the OpenAPI document', async () => {
    const doc = await api('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/namespaces/{namespaceKey}/flags',
        '/api/v1/namespaces/{namespaceKey}/flags/{key}',
      ]),
    );
  });
});
