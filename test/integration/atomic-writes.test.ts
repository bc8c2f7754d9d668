// Issue 42, item 2: a rule written with its whole split, and a segment with its whole list of
// constraints (Vexil extensions on the existing routes), is one transaction and one recorded change,
// and one revert of that change puts the namespace back exactly (compared whole). A split over 100 %
// or a bad constraint writes nothing. Every backend.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import type { Msg } from '../helpers/flipt-grpc.js';
import { fetchHttp, type Http } from './evaluation-seed.js';

const NS = 'atomic';
const API = `/api/v1/namespaces/${NS}`;

describeEachBackend('atomic rule and segment writes', (backend) => {
  let t: TestApp;
  let http: Http;
  let n = 0;

  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<Msg> => {
    const res = await http(method, url, body);
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** Everything the namespace holds, as the API reads it. */
  const everything = async () => {
    const flags = (await ok('GET', `${API}/flags?limit=1000`)).flags as Msg[];
    const rules = await Promise.all(flags.map((f) => ok('GET', `${API}/flags/${f.key}/rules?limit=1000`)));
    const rollouts = await Promise.all(flags.map((f) => ok('GET', `${API}/flags/${f.key}/rollouts?limit=1000`)));
    const segments = await ok('GET', `${API}/segments?limit=1000`);
    return { flags, rules, rollouts, segments };
  };
  const newestChanges = async (limit: number) => (await ok('GET', `${API}/changes?limit=${limit}`)).changes as Msg[];
  /** Runs `action`, expects exactly one recorded change, reverts it and expects the namespace as before. */
  async function oneEntryOneRevert(action: () => Promise<unknown>, expected: Record<string, unknown>): Promise<Msg> {
    const before = await everything();
    const [last] = await newestChanges(1);
    await action();
    const recorded = (await newestChanges(10)).filter((c) => Number(c.id) > Number(last?.id ?? 0));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject(expected);
    expect(await everything()).not.toEqual(before);
    await ok('POST', `${API}/changes/${recorded[0].id}/revert`);
    expect(await everything()).toEqual(before);
    return recorded[0];
  }

  async function flagWithVariants() {
    const key = `f${++n}`;
    await ok('POST', `${API}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true });
    const a = await ok('POST', `${API}/flags/${key}/variants`, { key: 'a' });
    const b = await ok('POST', `${API}/flags/${key}/variants`, { key: 'b' });
    const c = await ok('POST', `${API}/flags/${key}/variants`, { key: 'c' });
    return { key, a, b, c };
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { server: { host: '127.0.0.1', http_port: 0 } });
    const ports = await t.app.listen();
    http = fetchHttp(`http://127.0.0.1:${ports.httpPort}`);
    await ok('POST', '/api/v1/namespaces', { key: NS, name: 'Atomic' });
    await ok('POST', `${API}/segments`, { key: 'all', name: 'All', matchType: 'ALL_MATCH_TYPE' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a rule 50/50 → 70/30 is one "rule updated" with the split before and after; its revert puts 50/50 back', async () => {
    const f = await flagWithVariants();
    const rule = await ok('POST', `${API}/flags/${f.key}/rules`, {
      segmentKey: 'all',
      rank: 1,
      distributions: [
        { variantId: f.a.id, rollout: 50 },
        { variantId: f.b.id, rollout: 50 },
      ],
    });
    expect(rule.distributions.map((d: Msg) => [d.variantId, d.rollout])).toEqual([
      [f.a.id, 50],
      [f.b.id, 50],
    ]);
    const change = await oneEntryOneRevert(
      () =>
        ok('PUT', `${API}/flags/${f.key}/rules/${rule.id}`, {
          segmentKey: 'all',
          distributions: [
            { variantId: f.a.id, rollout: 70 },
            { variantId: f.b.id, rollout: 30 },
          ],
        }),
      { resourceType: 'rule', action: 'updated', resourceKey: rule.id, parentKey: f.key },
    );
    expect(change.before.distributions.map((d: Msg) => d.rollout)).toEqual([50, 50]);
    expect(change.after.distributions.map((d: Msg) => d.rollout)).toEqual([70, 30]);
  });

  it('a split that drops one variant and adds another is one change, and one revert', async () => {
    const f = await flagWithVariants();
    const rule = await ok('POST', `${API}/flags/${f.key}/rules`, {
      segmentKey: 'all',
      rank: 1,
      distributions: [
        { variantId: f.a.id, rollout: 60 },
        { variantId: f.b.id, rollout: 40 },
      ],
    });
    await oneEntryOneRevert(
      () =>
        ok('PUT', `${API}/flags/${f.key}/rules/${rule.id}`, {
          segmentKey: 'all',
          distributions: [
            { variantId: f.b.id, rollout: 10 },
            { variantId: f.c.id, rollout: '90' },
          ],
        }),
      { resourceType: 'rule', action: 'updated' },
    );
  });

  it('a rule created with its split is one "rule created"; its revert removes rule and split', async () => {
    const f = await flagWithVariants();
    const change = await oneEntryOneRevert(
      () =>
        ok('POST', `${API}/flags/${f.key}/rules`, {
          segmentKey: 'all',
          rank: 1,
          distributions: [{ variantId: f.a.id, rollout: 100 }],
        }),
      { resourceType: 'rule', action: 'created', parentKey: f.key },
    );
    expect(change.after.distributions).toHaveLength(1);
  });

  it('a rule update without distributions leaves the split alone (Flipt clients)', async () => {
    const f = await flagWithVariants();
    const rule = await ok('POST', `${API}/flags/${f.key}/rules`, {
      segmentKey: 'all',
      rank: 1,
      distributions: [{ variantId: f.a.id, rollout: 100 }],
    });
    const updated = await ok('PUT', `${API}/flags/${f.key}/rules/${rule.id}`, { segmentKey: 'all' });
    expect(updated.distributions).toEqual(rule.distributions);
  });

  it.each([
    [
      'over 100 %',
      (f: Msg) => [
        { variantId: f.a.id, rollout: 70 },
        { variantId: f.b.id, rollout: 40 },
      ],
      400,
    ],
    [
      'a variant twice',
      (f: Msg) => [
        { variantId: f.a.id, rollout: 10 },
        { variantId: f.a.id, rollout: 10 },
      ],
      400,
    ],
    ['a rollout over 100', (f: Msg) => [{ variantId: f.a.id, rollout: 101 }], 400],
    ['no variant id', () => [{ rollout: 10 }], 400],
    [
      'an unknown variant',
      (f: Msg) => [
        { variantId: f.a.id, rollout: 10 },
        { variantId: 'nope', rollout: 10 },
      ],
      404,
    ],
  ])('a split with %s writes nothing', async (_name, split, status) => {
    const f = await flagWithVariants();
    const rule = await ok('POST', `${API}/flags/${f.key}/rules`, {
      segmentKey: 'all',
      rank: 1,
      distributions: [{ variantId: f.c.id, rollout: 100 }],
    });
    const before = await everything();
    const res = await http('PUT', `${API}/flags/${f.key}/rules/${rule.id}`, {
      segmentKey: 'all',
      distributions: split(f),
    });
    expect(res.status).toBe(status);
    expect(res.body.details).toEqual([]);
    expect(await everything()).toEqual(before);
  });

  const constraint = (property: string, value: string, id?: string) => ({
    ...(id ? { id } : {}),
    type: 'STRING_COMPARISON_TYPE',
    property,
    operator: 'eq',
    value,
  });

  it('a segment with its constraints changed, added and removed is one "segment updated"; one revert', async () => {
    const key = `s${++n}`;
    const seg = await ok('POST', `${API}/segments`, {
      key,
      name: 'S',
      constraints: [constraint('plan', 'pro'), constraint('region', 'eu')],
    });
    expect(seg.constraints).toHaveLength(2);
    const [plan] = seg.constraints;
    const change = await oneEntryOneRevert(
      () =>
        ok('PUT', `${API}/segments/${key}`, {
          name: 'S2',
          constraints: [constraint('plan', 'team', plan.id), constraint('country', 'fr')],
        }),
      { resourceType: 'segment', action: 'updated', resourceKey: key },
    );
    expect(change.after.constraints.map((c: Msg) => c.value)).toEqual(['team', 'fr']);
  });

  it('a segment created with its constraints is one "segment created"; its revert removes both', async () => {
    const key = `s${++n}`;
    await oneEntryOneRevert(
      () => ok('POST', `${API}/segments`, { key, name: 'S', constraints: [constraint('plan', 'pro')] }),
      { resourceType: 'segment', action: 'created', resourceKey: key },
    );
  });

  it('a segment write with a bad constraint writes nothing', async () => {
    const key = `s${++n}`;
    await ok('POST', `${API}/segments`, { key, name: 'S', constraints: [constraint('plan', 'pro')] });
    const before = await everything();
    const res = await http('PUT', `${API}/segments/${key}`, {
      name: 'S2',
      constraints: [
        constraint('plan', 'x'),
        { type: 'STRING_COMPARISON_TYPE', property: 'n', operator: 'bogus', value: 'abc' },
      ],
    });
    expect(res.status).toBe(400);
    expect(await everything()).toEqual(before);
  });
});
