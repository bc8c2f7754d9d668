// Rules and distributions API on every backend: shapes (incl. the single-segment quirk), create,
// update, order, delete with renumbering, paging, distributions and their checks, cascades, legacy
// routes and the namespace revision bump of every write.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const RULE_KEYS = [
  'id',
  'flagKey',
  'segmentKey',
  'distributions',
  'rank',
  'createdAt',
  'updatedAt',
  'namespaceKey',
  'segmentKeys',
  'segmentOperator',
];
const DISTRIBUTION_KEYS = ['id', 'ruleId', 'variantId', 'rollout', 'createdAt', 'updatedAt'];

interface WireRule {
  id: string;
  rank: number;
  segmentKey: string;
  segmentKeys: string[];
}

describeEachBackend('rules and distributions API', (backend) => {
  let t: TestApp;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    call(t.app, method, url, body);
  const base = '/api/v1/namespaces/team/flags';
  const revision = async (ns: string) => {
    const row = await t.app.db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', ns)
      .executeTakeFirst();
    return Number(row?.revision);
  };
  /** Segments belong to another module; rows are inserted directly so these tests stand alone. */
  const createSegment = async (namespaceKey: string, key: string) => {
    const now = new Date();
    await t.app.db.kysely
      .insertInto('segments')
      .values({
        namespace_key: namespaceKey,
        key,
        name: key,
        description: '',
        match_type: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  };
  const rulesOf = async (flagKey: string, ns = 'team') =>
    (await api('GET', `/api/v1/namespaces/${ns}/flags/${flagKey}/rules`)).body.rules as WireRule[];
  let variantA: { id: string };
  let variantB: { id: string };
  let otherFlagVariant: { id: string };

  beforeAll(async () => {
    t = await startTestApp(backend);
    await api('POST', '/api/v1/namespaces', { key: 'team', name: 'Team' });
    for (const key of ['beta', 'internal', 'eu']) await createSegment('team', key);
    await createSegment('default', 'beta');
    await api('POST', base, { key: 'checkout', name: 'Checkout' });
    await api('POST', base, { key: 'other', name: 'Other' });
    variantA = (await api('POST', `${base}/checkout/variants`, { key: 'a' })).body;
    variantB = (await api('POST', `${base}/checkout/variants`, { key: 'b' })).body;
    otherFlagVariant = (await api('POST', `${base}/other/variants`, { key: 'x' })).body;
  });
  afterAll(async () => t?.close());

  describe('rules', () => {
    it('creates a one-segment rule: segmentKey set, segmentKeys empty, operator OR', async () => {
      const res = await api('POST', `${base}/checkout/rules`, {
        rank: 1,
        segmentKey: 'beta',
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(RULE_KEYS);
      expect(res.body).toMatchObject({
        flagKey: 'checkout',
        segmentKey: 'beta',
        distributions: [],
        rank: 1,
        namespaceKey: 'team',
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
      });
      expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.createdAt).toMatch(TS);
      const got = await api('GET', `${base}/checkout/rules/${res.body.id}`);
      expect(got.body).toEqual(res.body);
    });

    it('creates a multi-segment rule: segmentKey empty, all keys in segmentKeys', async () => {
      const res = await api('POST', `${base}/checkout/rules`, {
        rank: '2',
        segmentKeys: ['internal', 'eu', 'internal'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        segmentKey: '',
        segmentKeys: ['internal', 'eu'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 2,
      });
      expect((await api('GET', `${base}/checkout/rules/${res.body.id}`)).body).toEqual(res.body);
      const byNumber = await api('POST', `${base}/checkout/rules`, {
        rank: 3,
        segment_keys: ['eu', 'beta'],
        segment_operator: 1,
      });
      expect(byNumber.body).toMatchObject({ segmentKeys: ['eu', 'beta'], segmentOperator: 'AND_SEGMENT_OPERATOR' });
      // duplicates that leave one key: the single-segment form, operator forced to OR
      const deduped = await api('POST', `${base}/checkout/rules`, {
        rank: 4,
        segmentKeys: ['eu', 'eu'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(deduped.body).toMatchObject({ segmentKey: 'eu', segmentKeys: [], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    });

    it('accepts duplicate ranks and lists by rank', async () => {
      const dup = await api('POST', `${base}/checkout/rules`, { rank: 1, segmentKey: 'eu' });
      expect(dup.status).toBe(200);
      const ranks = (await rulesOf('checkout')).map((r) => r.rank);
      expect(ranks).toEqual([1, 1, 2, 3, 4]);
      const list = await api('GET', `${base}/checkout/rules`);
      expect(Object.keys(list.body)).toEqual(['rules', 'nextPageToken', 'totalCount']);
      expect(list.body.totalCount).toBe(5);
      expect(list.body.nextPageToken).toBe('');
      expect(Object.keys(list.body.rules[0])).toEqual(RULE_KEYS);
      // creation order breaks the tie between equal ranks
      expect(list.body.rules[1].id).toBe(dup.body.id);
    });

    it('answers client mistakes on create with 4xx and the Flipt error body', async () => {
      const cases: [string, unknown, number, string | RegExp][] = [
        [`${base}/checkout/rules`, { rank: 1 }, 400, 'invalid field segmentKey or segmentKeys: must not be empty'],
        [
          `${base}/checkout/rules`,
          { rank: 1, segmentKeys: [] },
          400,
          'invalid field segmentKey or segmentKeys: must not be empty',
        ],
        [
          `${base}/checkout/rules`,
          { rank: 1, segmentKey: 'beta', segmentKeys: ['eu'] },
          400,
          'invalid field segmentKey or segmentKeys: only one can be present',
        ],
        [`${base}/checkout/rules`, { segmentKey: 'beta' }, 400, 'invalid field rank: must be greater than 0'],
        [`${base}/checkout/rules`, { rank: 0, segmentKey: 'beta' }, 400, 'invalid field rank: must be greater than 0'],
        [
          `${base}/checkout/rules`,
          { rank: '-3', segmentKey: 'beta' },
          400,
          'invalid field rank: must be greater than 0',
        ],
        [`${base}/checkout/rules`, { rank: 'one', segmentKey: 'beta' }, 400, /rank/],
        [`${base}/checkout/rules`, { rank: 1.5, segmentKey: 'beta' }, 400, /rank/],
        [`${base}/checkout/rules`, { rank: 2 ** 31, segmentKey: 'beta' }, 400, /rank/],
        [
          `${base}/checkout/rules`,
          { rank: 1, segmentKey: 'beta', segmentOperator: 'XOR_SEGMENT_OPERATOR' },
          400,
          /segmentOperator/,
        ],
        [`${base}/checkout/rules`, { rank: 1, segmentKey: 'beta', segmentOperator: 2 }, 400, /segmentOperator/],
        [`${base}/checkout/rules`, { rank: 1, segmentKeys: 'beta' }, 400, /segmentKeys/],
        [
          `${base}/nope/rules`,
          { rank: 1, segmentKey: 'beta' },
          404,
          'flag "team/nope" or segment "team/beta" not found',
        ],
        [
          `${base}/checkout/rules`,
          { rank: 1, segmentKey: 'ghost' },
          404,
          'flag "team/checkout" or segment "team/ghost" not found',
        ],
        [
          `${base}/checkout/rules`,
          { rank: 1, segmentKeys: ['beta', 'ghost'] },
          404,
          'flag "team/checkout" or segment "team/" not found',
        ],
        [
          '/api/v1/namespaces/ghost/flags/checkout/rules',
          { rank: 1, segmentKey: 'beta' },
          404,
          /^flag "ghost\/checkout" or segment/,
        ],
      ];
      const before = (await rulesOf('checkout')).length;
      for (const [url, body, status, message] of cases) {
        const res = await api('POST', url, body);
        expect({ url, body, status: res.status }).toEqual({ url, body, status });
        expect(res.body).toEqual({ code: status === 404 ? 5 : 3, message: expect.anything(), details: [] });
        if (typeof message === 'string') expect(res.body.message).toBe(message);
        else expect(res.body.message).toMatch(message);
      }
      expect((await rulesOf('checkout')).length).toBe(before);
    });

    it('gets a rule by id within the namespace, whatever the flag in the path', async () => {
      const [first] = await rulesOf('checkout');
      const viaOther = await api('GET', `${base}/other/rules/${first?.id}`);
      expect(viaOther.status).toBe(200);
      expect(viaOther.body.id).toBe(first?.id);
      const unknown = await api('GET', `${base}/checkout/rules/nope`);
      expect(unknown).toMatchObject({
        status: 404,
        body: { code: 5, message: 'rule "team/nope" not found', details: [] },
      });
      const otherNs = await api('GET', `/api/v1/namespaces/default/flags/checkout/rules/${first?.id}`);
      expect(otherNs.body.message).toBe(`rule "default/${first?.id}" not found`);
    });

    it('updates the segments and operator, never the rank, and returns the distributions', async () => {
      const rule = (await api('POST', `${base}/checkout/rules`, { rank: 9, segmentKey: 'beta' })).body;
      const dist = (
        await api('POST', `${base}/checkout/rules/${rule.id}/distributions`, { variantId: variantA.id, rollout: 50 })
      ).body;
      const res = await api('PUT', `${base}/checkout/rules/${rule.id}`, {
        rank: 1,
        segmentKeys: ['eu', 'internal'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        id: 'ignored',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(RULE_KEYS);
      expect(res.body).toMatchObject({
        id: rule.id,
        rank: 9,
        segmentKey: '',
        segmentKeys: ['eu', 'internal'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        distributions: [dist],
        createdAt: rule.createdAt,
      });
      const single = await api('PUT', `${base}/checkout/rules/${rule.id}`, {
        segmentKey: 'beta',
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect(single.body).toMatchObject({
        segmentKey: 'beta',
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        rank: 9,
      });
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body).toEqual(single.body);

      const errors: [string, unknown, number, string][] = [
        [`${base}/checkout/rules/nope`, { segmentKey: 'beta' }, 404, 'rule "team/nope" not found'],
        [`${base}/other/rules/${rule.id}`, { segmentKey: 'beta' }, 404, `rule "team/${rule.id}" not found`],
        [`${base}/checkout/rules/${rule.id}`, {}, 400, 'invalid field segmentKey or segmentKeys: must not be empty'],
        [
          `${base}/checkout/rules/${rule.id}`,
          { segmentKey: 'a', segmentKeys: ['b'] },
          400,
          'invalid field segmentKey or segmentKeys: only one can be present',
        ],
        [`${base}/checkout/rules/${rule.id}`, { segmentKeys: ['eu', 'ghost'] }, 404, 'segment "team/ghost" not found'],
      ];
      for (const [url, body, status, message] of errors) {
        const r = await api('PUT', url, body);
        expect({ url, status: r.status, message: r.body.message }).toEqual({ url, status, message });
      }
      // the failed update left the rule as it was
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body).toEqual(single.body);
      await api('DELETE', `${base}/checkout/rules/${rule.id}`);
    });

    it('orders rules (PUT …/rules/order is not PUT …/rules/{id})', async () => {
      await api('POST', base, { key: 'ordered', name: 'O' });
      const ids: string[] = [];
      for (const segmentKey of ['beta', 'eu', 'internal']) {
        ids.push((await api('POST', `${base}/ordered/rules`, { rank: ids.length + 1, segmentKey })).body.id);
      }
      const [r1, r2, r3] = ids as [string, string, string];
      const res = await api('PUT', `${base}/ordered/rules/order`, { ruleIds: [r3, r1, r2] });
      expect(res).toMatchObject({ status: 200, body: {} });
      expect((await rulesOf('ordered')).map((r) => [r.id, r.rank])).toEqual([
        [r3, 1],
        [r1, 2],
        [r2, 3],
      ]);
      // unlisted rules keep their rank, so ranks may repeat; unknown ids are ignored
      expect((await api('PUT', `${base}/ordered/rules/order`, { rule_ids: [r2, 'nope'] })).status).toBe(200);
      expect((await rulesOf('ordered')).map((r) => r.rank)).toEqual([1, 1, 2]);

      for (const body of [{ ruleIds: [r1] }, {}, { ruleIds: [] }]) {
        const bad = await api('PUT', `${base}/ordered/rules/order`, body);
        expect(bad).toMatchObject({
          status: 400,
          body: { code: 3, message: 'invalid field ruleIds: must contain atleast 2 elements' },
        });
      }
    });

    it('deletes a rule and renumbers the rest 1..n; deleting an unknown rule succeeds', async () => {
      await api('POST', base, { key: 'renumber', name: 'R' });
      const ids: string[] = [];
      for (const rank of [1, 2, 3, 4]) {
        ids.push((await api('POST', `${base}/renumber/rules`, { rank, segmentKey: 'beta' })).body.id);
      }
      const dist = (
        await api('POST', `${base}/renumber/rules/${ids[1]}/distributions`, { variantId: variantA.id, rollout: 10 })
      ).body;
      expect(await api('DELETE', `${base}/renumber/rules/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
      expect((await rulesOf('renumber')).map((r) => [r.id, r.rank])).toEqual([
        [ids[0], 1],
        [ids[2], 2],
        [ids[3], 3],
      ]);
      const left = await t.app.db.kysely.selectFrom('distributions').select('id').where('id', '=', dist.id).execute();
      expect(left).toEqual([]);
      const segmentsLeft = await t.app.db.kysely
        .selectFrom('rule_segments')
        .select('rule_id')
        .where('rule_id', '=', ids[1] as string)
        .execute();
      expect(segmentsLeft).toEqual([]);
      expect(await api('DELETE', `${base}/renumber/rules/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
      expect(await api('DELETE', `${base}/renumber/rules/nope`)).toMatchObject({ status: 200, body: {} });
      expect(await api('DELETE', '/api/v1/namespaces/ghost/flags/renumber/rules/nope')).toMatchObject({
        status: 200,
        body: {},
      });
      // a rule id under another flag's path is not deleted
      expect((await api('DELETE', `${base}/checkout/rules/${ids[0]}`)).status).toBe(200);
      expect((await rulesOf('renumber')).length).toBe(3);
    });

    it('handles a rule with more segments than one IN list holds', async () => {
      const keys = Array.from({ length: 1200 }, (_, i) => `many-${i}`);
      const now = new Date();
      for (let i = 0; i < keys.length; i += 100) {
        await t.app.db.kysely
          .insertInto('segments')
          .values(
            keys.slice(i, i + 100).map((key) => ({
              namespace_key: 'team',
              key,
              name: key,
              description: '',
              match_type: 0,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      }
      const rule = await api('POST', `${base}/other/rules`, { rank: 1, segmentKeys: keys });
      expect(rule.status).toBe(200);
      expect(rule.body.segmentKeys).toEqual(keys);
      expect((await api('GET', `${base}/other/rules/${rule.body.id}`)).body.segmentKeys).toEqual(keys);
      const unknown = await api('POST', `${base}/other/rules`, { rank: 1, segmentKeys: [...keys, 'many-missing'] });
      expect(unknown).toMatchObject({
        status: 404,
        body: { message: 'flag "team/other" or segment "team/" not found' },
      });
      await api('DELETE', `${base}/other/rules/${rule.body.id}`);
      expect((await rulesOf('other')).length).toBe(0);
    });

    it('holds its segments: a referenced segment cannot be deleted', async () => {
      await createSegment('team', 'held');
      const rule = (await api('POST', `${base}/other/rules`, { rank: 1, segmentKey: 'held' })).body;
      await expect(
        t.app.db.kysely.deleteFrom('segments').where('namespace_key', '=', 'team').where('key', '=', 'held').execute(),
      ).rejects.toThrow();
      await api('DELETE', `${base}/other/rules/${rule.id}`);
      await t.app.db.kysely
        .deleteFrom('segments')
        .where('namespace_key', '=', 'team')
        .where('key', '=', 'held')
        .execute();
    });
  });

  describe('paging', () => {
    beforeAll(async () => {
      await api('POST', base, { key: 'paged', name: 'P' });
      for (const rank of [3, 1, 2, 5, 4]) await api('POST', `${base}/paged/rules`, { rank, segmentKey: 'beta' });
    });

    it('pages rules by rank with limit, offset and the token', async () => {
      const all = await rulesOf('paged');
      expect(all.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5]);
      const first = await api('GET', `${base}/paged/rules?limit=2`);
      expect(first.body.rules.map((r: WireRule) => r.rank)).toEqual([1, 2]);
      expect(first.body.totalCount).toBe(5);
      expect(JSON.parse(Buffer.from(first.body.nextPageToken, 'base64').toString())).toEqual({
        key: all[2]?.id,
        offset: 2,
      });
      const second = await api(
        'GET',
        `${base}/paged/rules?limit=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(second.body.rules.map((r: WireRule) => r.rank)).toEqual([3, 4]);
      const last = await api('GET', `${base}/paged/rules?limit=2&offset=4`);
      expect(last.body).toMatchObject({ nextPageToken: '', totalCount: 5 });
      expect(last.body.rules.map((r: WireRule) => r.rank)).toEqual([5]);
    });

    it('refuses a bad token and an offset or token without a limit', async () => {
      expect((await api('GET', `${base}/paged/rules?limit=1&pageToken=%25%25`)).body).toEqual({
        code: 3,
        message: 'pageToken is not valid: "%%"',
        details: [],
      });
      for (const query of ['offset=1', 'pageToken=e30%3D']) {
        const res = await api('GET', `${base}/paged/rules?${query}`);
        expect(res).toMatchObject({
          status: 400,
          body: { code: 3, message: 'limit must be set when offset or pageToken is set' },
        });
      }
    });

    it('lists an unknown flag or namespace as empty', async () => {
      for (const url of [`${base}/nope/rules`, '/api/v1/namespaces/ghost/flags/paged/rules']) {
        expect((await api('GET', url)).body).toEqual({ rules: [], nextPageToken: '', totalCount: 0 });
      }
    });
  });

  describe('distributions', () => {
    let ruleId: string;
    beforeAll(async () => {
      ruleId = (await api('POST', `${base}/checkout/rules`, { rank: 7, segmentKey: 'beta' })).body.id;
    });

    it('creates distributions with their exact shape, float32 rollouts, in creation order', async () => {
      const url = `${base}/checkout/rules/${ruleId}/distributions`;
      const a = await api('POST', url, { variantId: variantA.id, rollout: 33.33 });
      expect(a.status).toBe(200);
      expect(Object.keys(a.body)).toEqual(DISTRIBUTION_KEYS);
      expect(a.body).toMatchObject({ ruleId, variantId: variantA.id, rollout: 33.33 });
      expect(a.body.createdAt).toMatch(TS);
      const b = await api('POST', url, { variant_id: variantB.id, rollout: '66.67' });
      expect(b.body.rollout).toBe(66.67);
      const rule = await api('GET', `${base}/checkout/rules/${ruleId}`);
      expect(rule.body.distributions).toEqual([a.body, b.body]);
      const listed = (await rulesOf('checkout')).find((r) => r.id === ruleId) as unknown as {
        distributions: unknown[];
      };
      expect(listed.distributions).toEqual([a.body, b.body]);
    });

    it('does not check the sum of rollouts nor that variant, rule and flag belong together', async () => {
      const url = `${base}/checkout/rules/${ruleId}/distributions`;
      expect((await api('POST', url, { variantId: variantA.id, rollout: 100 })).status).toBe(200);
      const foreign = await api('POST', url, { variantId: otherFlagVariant.id, rollout: 0 });
      expect(foreign.status).toBe(200);
      expect(foreign.body.rollout).toBe(0);
      const viaOtherFlag = await api('POST', `${base}/other/rules/${ruleId}/distributions`, {
        variantId: variantA.id,
        rollout: 1,
      });
      expect(viaOtherFlag.status).toBe(200);
    });

    it('answers client mistakes with 4xx and the Flipt error body', async () => {
      const url = `${base}/checkout/rules/${ruleId}/distributions`;
      const notFound = (v: string, r: string, f: string) =>
        `variant "${v}", rule "${r}", flag "${f}" in namespace "team" not found`;
      const cases: [string, unknown, number, string | RegExp][] = [
        [url, { rollout: 10 }, 400, 'invalid field variantId: must not be empty'],
        [
          url,
          { variantId: variantA.id, rollout: -0.5 },
          400,
          "invalid field rollout: must be greater than or equal to '0'",
        ],
        [
          url,
          { variantId: variantA.id, rollout: 100.5 },
          400,
          "invalid field rollout: must be less than or equal to '100'",
        ],
        [url, { variantId: variantA.id, rollout: 'lots' }, 400, /rollout/],
        [url, { variantId: 'nope', rollout: 10 }, 404, notFound('nope', ruleId, 'checkout')],
        [
          `${base}/checkout/rules/nope/distributions`,
          { variantId: variantA.id, rollout: 10 },
          404,
          notFound(variantA.id, 'nope', 'checkout'),
        ],
        [
          `${base}/ghost/rules/${ruleId}/distributions`,
          { variantId: variantA.id, rollout: 10 },
          404,
          notFound(variantA.id, ruleId, 'ghost'),
        ],
      ];
      for (const [u, body, status, message] of cases) {
        const res = await api('POST', u, body);
        expect({ u, body, status: res.status }).toEqual({ u, body, status });
        expect(res.body).toEqual({ code: status === 404 ? 5 : 3, message: expect.anything(), details: [] });
        if (typeof message === 'string') expect(res.body.message).toBe(message);
        else expect(res.body.message).toMatch(message);
      }
    });

    it('updates a distribution and checks what it names', async () => {
      const rule = (await api('POST', `${base}/checkout/rules`, { rank: 8, segmentKey: 'eu' })).body;
      const url = `${base}/checkout/rules/${rule.id}/distributions`;
      const d = (await api('POST', url, { variantId: variantA.id, rollout: 10 })).body;
      const res = await api('PUT', `${url}/${d.id}`, {
        variantId: variantB.id,
        rollout: 12.5,
        ruleId: 'ignored',
        id: 'ignored',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(DISTRIBUTION_KEYS);
      expect(res.body).toMatchObject({
        id: d.id,
        ruleId: rule.id,
        variantId: variantB.id,
        rollout: 12.5,
        createdAt: d.createdAt,
      });
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body.distributions).toEqual([res.body]);
      const same = await api('PUT', `${url}/${d.id}`, { variantId: variantB.id, rollout: 12.5 });
      expect(same.status).toBe(200);

      const unknown = await api('PUT', `${url}/nope`, { variantId: variantB.id, rollout: 1 });
      expect(unknown).toMatchObject({ status: 404, body: { code: 5, message: 'distribution "nope" not found' } });
      const wrongRule = await api('PUT', `${base}/checkout/rules/${ruleId}/distributions/${d.id}`, {
        variantId: variantB.id,
        rollout: 1,
      });
      expect(wrongRule.body.message).toBe(`distribution "${d.id}" not found`);
      const badVariant = await api('PUT', `${url}/${d.id}`, { variantId: 'nope', rollout: 1 });
      expect(badVariant.status).toBe(404);
      const badRollout = await api('PUT', `${url}/${d.id}`, { variantId: variantB.id, rollout: 101 });
      expect(badRollout.body.message).toBe("invalid field rollout: must be less than or equal to '100'");
      const noVariant = await api('PUT', `${url}/${d.id}`, { rollout: 1 });
      expect(noVariant.body.message).toBe('invalid field variantId: must not be empty');
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body.distributions).toEqual([same.body]);
    });

    it('deletes by id, rule and the variantId query parameter', async () => {
      const rule = (await api('POST', `${base}/checkout/rules`, { rank: 9, segmentKey: 'eu' })).body;
      const url = `${base}/checkout/rules/${rule.id}/distributions`;
      const d = (await api('POST', url, { variantId: variantA.id, rollout: 10 })).body;
      const missing = await api('DELETE', `${url}/${d.id}`);
      expect(missing).toMatchObject({
        status: 400,
        body: { code: 3, message: 'invalid field variantId: must not be empty', details: [] },
      });
      expect(await api('DELETE', `${url}/${d.id}?variantId=${variantB.id}`)).toMatchObject({ status: 200, body: {} });
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body.distributions).toHaveLength(1);
      expect(await api('DELETE', `${url}/${d.id}?variant_id=${variantA.id}`)).toMatchObject({ status: 200, body: {} });
      expect((await api('GET', `${base}/checkout/rules/${rule.id}`)).body.distributions).toEqual([]);
      expect(await api('DELETE', `${url}/${d.id}?variantId=${variantA.id}`)).toMatchObject({ status: 200, body: {} });
    });

    it('go with their variant when it is deleted', async () => {
      await api('POST', base, { key: 'vdel', name: 'V' });
      const v = (await api('POST', `${base}/vdel/variants`, { key: 'v' })).body;
      const w = (await api('POST', `${base}/vdel/variants`, { key: 'w' })).body;
      const rule = (await api('POST', `${base}/vdel/rules`, { rank: 1, segmentKey: 'beta' })).body;
      await api('POST', `${base}/vdel/rules/${rule.id}/distributions`, { variantId: v.id, rollout: 50 });
      const kept = (await api('POST', `${base}/vdel/rules/${rule.id}/distributions`, { variantId: w.id, rollout: 50 }))
        .body;
      await api('DELETE', `${base}/vdel/variants/${v.id}`);
      expect((await api('GET', `${base}/vdel/rules/${rule.id}`)).body.distributions).toEqual([kept]);
    });
  });

  describe('legacy routes without the namespace prefix', () => {
    it('serve every rule and distribution route in the default namespace', async () => {
      await api('POST', '/api/v1/flags', { key: 'legacy', name: 'L' });
      const v = (await api('POST', '/api/v1/flags/legacy/variants', { key: 'v' })).body;
      const r1 = await api('POST', '/api/v1/flags/legacy/rules', { rank: 1, segmentKey: 'beta' });
      expect(r1.body).toMatchObject({ namespaceKey: 'default', flagKey: 'legacy', segmentKey: 'beta' });
      const r2 = (await api('POST', '/api/v1/flags/legacy/rules', { rank: 2, segmentKey: 'beta' })).body;
      expect((await api('GET', `/api/v1/flags/legacy/rules/${r1.body.id}`)).body.id).toBe(r1.body.id);
      expect((await api('PUT', `/api/v1/flags/legacy/rules/${r1.body.id}`, { segmentKey: 'beta' })).status).toBe(200);
      expect((await api('PUT', '/api/v1/flags/legacy/rules/order', { ruleIds: [r2.id, r1.body.id] })).body).toEqual({});
      const list = await api('GET', '/api/v1/flags/legacy/rules');
      expect(list.body.rules.map((r: WireRule) => r.id)).toEqual([r2.id, r1.body.id]);
      const d = await api('POST', `/api/v1/flags/legacy/rules/${r1.body.id}/distributions`, {
        variantId: v.id,
        rollout: 100,
      });
      expect(d.status).toBe(200);
      const du = await api('PUT', `/api/v1/flags/legacy/rules/${r1.body.id}/distributions/${d.body.id}`, {
        variantId: v.id,
        rollout: 50,
      });
      expect(du.body.rollout).toBe(50);
      expect(
        (await api('DELETE', `/api/v1/flags/legacy/rules/${r1.body.id}/distributions/${d.body.id}?variantId=${v.id}`))
          .body,
      ).toEqual({});
      expect((await api('DELETE', `/api/v1/flags/legacy/rules/${r2.id}`)).body).toEqual({});
      expect((await api('GET', '/api/v1/flags/legacy/rules')).body.rules.map((r: WireRule) => [r.id, r.rank])).toEqual([
        [r1.body.id, 1],
      ]);
      // these live in the default namespace, not in "team"
      expect((await api('GET', `${base}/checkout/rules/${r1.body.id}`)).status).toBe(404);
    });
  });

  it('bumps the namespace revision on every write, and only then', async () => {
    await api('POST', base, { key: 'rev', name: 'R' });
    const v = (await api('POST', `${base}/rev/variants`, { key: 'v' })).body;
    let last = await revision('team');
    const expectBump = async () => {
      const now = await revision('team');
      expect(now).toBeGreaterThan(last);
      last = now;
    };
    const r1 = (await api('POST', `${base}/rev/rules`, { rank: 1, segmentKey: 'beta' })).body;
    await expectBump();
    const r2 = (await api('POST', `${base}/rev/rules`, { rank: 2, segmentKey: 'eu' })).body;
    await expectBump();
    await api('PUT', `${base}/rev/rules/${r1.id}`, { segmentKey: 'eu' });
    await expectBump();
    await api('PUT', `${base}/rev/rules/order`, { ruleIds: [r2.id, r1.id] });
    await expectBump();
    const d = (await api('POST', `${base}/rev/rules/${r1.id}/distributions`, { variantId: v.id, rollout: 10 })).body;
    await expectBump();
    await api('PUT', `${base}/rev/rules/${r1.id}/distributions/${d.id}`, { variantId: v.id, rollout: 20 });
    await expectBump();
    // failures and reads leave it alone
    await api('POST', `${base}/rev/rules`, { rank: 1, segmentKey: 'ghost' });
    await api('PUT', `${base}/rev/rules/nope`, { segmentKey: 'eu' });
    await api('POST', `${base}/rev/rules/${r1.id}/distributions`, { variantId: 'nope', rollout: 10 });
    await api('PUT', `${base}/rev/rules/${r1.id}/distributions/nope`, { variantId: v.id, rollout: 20 });
    await api('GET', `${base}/rev/rules`);
    await api('GET', `${base}/rev/rules/${r1.id}`);
    expect(await revision('team')).toBe(last);
    await api('DELETE', `${base}/rev/rules/${r1.id}/distributions/${d.id}?variantId=${v.id}`);
    await expectBump();
    await api('DELETE', `${base}/rev/rules/${r1.id}`);
    await expectBump();
  });
});
