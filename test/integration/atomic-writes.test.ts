// Issue 42, item 2: a rule written with its whole split, and a segment with its whole list of
// constraints (Vexil extensions on the existing routes), is one transaction and one recorded change,
// and one revert of that change puts the namespace back exactly (compared whole). A split over 100 %
// or a bad constraint writes nothing. Every backend, both transports: over gRPC the split and the
// constraints are Vexil's extension fields (numbered 1000 and up) of Flipt's rule and segment requests.

import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg } from '../helpers/flipt-grpc.js';
import { fetchHttp, type Http } from './evaluation-seed.js';

const NS = 'atomic';
const API = `/api/v1/namespaces/${NS}`;
const FLIPT = 'flipt.Flipt';

/** A write's answer on either transport: the message, or the gRPC code (HTTP: its Flipt error body's). */
type Outcome = { ok: Msg; code?: undefined } | { ok?: undefined; code: number };

/** The four atomic writes, over HTTP (JSON bodies) or gRPC (the vexil_* extension fields). */
interface Writes {
  createRule(flagKey: string, body: Msg): Promise<Outcome>;
  updateRule(flagKey: string, id: string, body: Msg): Promise<Outcome>;
  createSegment(body: Msg): Promise<Outcome>;
  updateSegment(key: string, body: Msg): Promise<Outcome>;
}

function httpWrites(http: Http): Writes {
  const send = async (method: 'POST' | 'PUT', url: string, body: Msg): Promise<Outcome> => {
    const res = await http(method, url, body);
    if (res.status === 200) return { ok: res.body };
    expect(res.body.details).toEqual([]);
    expect(res.status).toBe(({ 3: 400, 5: 404 } as Record<number, number>)[res.body.code]);
    return { code: res.body.code };
  };
  return {
    createRule: (flagKey, body) => send('POST', `${API}/flags/${flagKey}/rules`, body),
    updateRule: (flagKey, id, body) => send('PUT', `${API}/flags/${flagKey}/rules/${id}`, body),
    createSegment: (body) => send('POST', `${API}/segments`, body),
    updateSegment: (key, body) => send('PUT', `${API}/segments/${key}`, body),
  };
}

function grpcWrites(grpc: FliptGrpc): Writes {
  const send = async (method: string, request: Msg): Promise<Outcome> => {
    try {
      return { ok: (await grpc.call(FLIPT, method, { namespaceKey: NS, ...request })).response };
    } catch (err) {
      const code = (err as ServiceError).code;
      if (typeof code !== 'number') throw err;
      return { code };
    }
  };
  // Absent stays absent (a Flipt client's request); a list, even empty, travels in its wrapper.
  const rule = ({ distributions, ...rest }: Msg) => ({
    ...rest,
    ...(distributions === undefined
      ? {}
      : { vexilSplit: { distributions: distributions.map((d: Msg) => ({ ...d, rollout: Number(d.rollout ?? 0) })) } }),
  });
  const segment = ({ constraints, ...rest }: Msg) => ({
    ...rest,
    ...(constraints === undefined ? {} : { vexilConstraints: { constraints } }),
  });
  return {
    createRule: (flagKey, body) => send('CreateRule', { flagKey, ...rule(body) }),
    updateRule: (flagKey, id, body) => send('UpdateRule', { flagKey, id, ...rule(body) }),
    createSegment: (body) => send('CreateSegment', segment(body)),
    updateSegment: (key, body) => send('UpdateSegment', { key, ...segment(body) }),
  };
}

/** The answer of a write that must succeed. */
function written(outcome: Outcome): Msg {
  if (outcome.ok === undefined) throw new Error(`write failed with gRPC code ${outcome.code}`);
  return outcome.ok;
}

describeEachBackend('atomic rule and segment writes', (backend) => {
  let t: TestApp;
  let http: Http;
  let grpc: FliptGrpc;
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
    t = await startTestApp(backend, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    const ports = await t.app.listen();
    http = fetchHttp(`http://127.0.0.1:${ports.httpPort}`);
    grpc = new FliptGrpc(ports.grpcPort);
    await ok('POST', '/api/v1/namespaces', { key: NS, name: 'Atomic' });
    await ok('POST', `${API}/segments`, { key: 'all', name: 'All', matchType: 'ALL_MATCH_TYPE' });
  });
  afterAll(async () => {
    grpc?.close();
    await t?.close();
  });

  describe.each(['HTTP', 'gRPC'] as const)('over %s', (transport) => {
    const w = (): Writes => (transport === 'HTTP' ? httpWrites(http) : grpcWrites(grpc));

    it('a rule 50/50 → 70/30 is one "rule updated" with the split before and after; its revert puts 50/50 back', async () => {
      const f = await flagWithVariants();
      const rule = written(
        await w().createRule(f.key, {
          segmentKey: 'all',
          rank: 1,
          distributions: [
            { variantId: f.a.id, rollout: 50 },
            { variantId: f.b.id, rollout: 50 },
          ],
        }),
      );
      expect(rule.distributions.map((d: Msg) => [d.variantId, d.rollout])).toEqual([
        [f.a.id, 50],
        [f.b.id, 50],
      ]);
      const change = await oneEntryOneRevert(
        async () =>
          written(
            await w().updateRule(f.key, rule.id, {
              segmentKey: 'all',
              distributions: [
                { variantId: f.a.id, rollout: 70 },
                { variantId: f.b.id, rollout: 30 },
              ],
            }),
          ),
        { resourceType: 'rule', action: 'updated', resourceKey: rule.id, parentKey: f.key },
      );
      expect(change.before.distributions.map((d: Msg) => d.rollout)).toEqual([50, 50]);
      expect(change.after.distributions.map((d: Msg) => d.rollout)).toEqual([70, 30]);
    });

    it('a split that drops one variant and adds another is one change, and one revert', async () => {
      const f = await flagWithVariants();
      const rule = written(
        await w().createRule(f.key, {
          segmentKey: 'all',
          rank: 1,
          distributions: [
            { variantId: f.a.id, rollout: 60 },
            { variantId: f.b.id, rollout: 40 },
          ],
        }),
      );
      await oneEntryOneRevert(
        async () =>
          written(
            await w().updateRule(f.key, rule.id, {
              segmentKey: 'all',
              distributions: [
                { variantId: f.b.id, rollout: 10 },
                { variantId: f.c.id, rollout: '90' },
              ],
            }),
          ),
        { resourceType: 'rule', action: 'updated' },
      );
    });

    it('a rule created with its split is one "rule created"; its revert removes rule and split', async () => {
      const f = await flagWithVariants();
      const change = await oneEntryOneRevert(
        async () =>
          written(
            await w().createRule(f.key, {
              segmentKey: 'all',
              rank: 1,
              distributions: [{ variantId: f.a.id, rollout: 100 }],
            }),
          ),
        { resourceType: 'rule', action: 'created', parentKey: f.key },
      );
      expect(change.after.distributions).toHaveLength(1);
    });

    it('a rule update without distributions leaves the split alone (Flipt clients)', async () => {
      const f = await flagWithVariants();
      const rule = written(
        await w().createRule(f.key, {
          segmentKey: 'all',
          rank: 1,
          distributions: [{ variantId: f.a.id, rollout: 100 }],
        }),
      );
      const updated = written(await w().updateRule(f.key, rule.id, { segmentKey: 'all' }));
      expect(updated.distributions.map((d: Msg) => [d.id, d.variantId, d.rollout])).toEqual(
        rule.distributions.map((d: Msg) => [d.id, d.variantId, d.rollout]),
      );
    });

    it('an empty split, sent, removes every distribution in one change (present is not absent)', async () => {
      const f = await flagWithVariants();
      const rule = written(
        await w().createRule(f.key, {
          segmentKey: 'all',
          rank: 1,
          distributions: [{ variantId: f.a.id, rollout: 100 }],
        }),
      );
      const change = await oneEntryOneRevert(
        async () => written(await w().updateRule(f.key, rule.id, { segmentKey: 'all', distributions: [] })),
        { resourceType: 'rule', action: 'updated', resourceKey: rule.id },
      );
      expect(change.after.distributions).toEqual([]);
    });

    it.each([
      [
        'over 100 %',
        (f: Msg) => [
          { variantId: f.a.id, rollout: 70 },
          { variantId: f.b.id, rollout: 40 },
        ],
        3,
      ],
      [
        'a variant twice',
        (f: Msg) => [
          { variantId: f.a.id, rollout: 10 },
          { variantId: f.a.id, rollout: 10 },
        ],
        3,
      ],
      ['a rollout over 100', (f: Msg) => [{ variantId: f.a.id, rollout: 101 }], 3],
      ['no variant id', () => [{ rollout: 10 }], 3],
      [
        'an unknown variant',
        (f: Msg) => [
          { variantId: f.a.id, rollout: 10 },
          { variantId: 'nope', rollout: 10 },
        ],
        5,
      ],
    ])('a split with %s writes nothing', async (_name, split, code) => {
      const f = await flagWithVariants();
      const rule = written(
        await w().createRule(f.key, {
          segmentKey: 'all',
          rank: 1,
          distributions: [{ variantId: f.c.id, rollout: 100 }],
        }),
      );
      const before = await everything();
      const outcome = await w().updateRule(f.key, rule.id, { segmentKey: 'all', distributions: split(f) });
      expect(outcome.code).toBe(code);
      expect(await everything()).toEqual(before);
    });

    it('a rule created with a bad split is not created', async () => {
      const f = await flagWithVariants();
      const before = await everything();
      const outcome = await w().createRule(f.key, {
        segmentKey: 'all',
        rank: 1,
        distributions: [
          { variantId: f.a.id, rollout: 60 },
          { variantId: f.b.id, rollout: 60 },
        ],
      });
      expect(outcome.code).toBe(3);
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
      const seg = written(
        await w().createSegment({
          key,
          name: 'S',
          constraints: [constraint('plan', 'pro'), constraint('region', 'eu')],
        }),
      );
      expect(seg.constraints).toHaveLength(2);
      const [plan] = seg.constraints;
      const change = await oneEntryOneRevert(
        async () =>
          written(
            await w().updateSegment(key, {
              name: 'S2',
              constraints: [constraint('plan', 'team', plan.id), constraint('country', 'fr')],
            }),
          ),
        { resourceType: 'segment', action: 'updated', resourceKey: key },
      );
      expect(change.after.constraints.map((c: Msg) => c.value)).toEqual(['team', 'fr']);
      expect(change.after.constraints[0].id).toBe(plan.id);
    });

    it('a segment created with its constraints is one "segment created"; its revert removes both', async () => {
      const key = `s${++n}`;
      await oneEntryOneRevert(
        async () => written(await w().createSegment({ key, name: 'S', constraints: [constraint('plan', 'pro')] })),
        { resourceType: 'segment', action: 'created', resourceKey: key },
      );
    });

    it('a segment update without constraints leaves them alone (Flipt clients)', async () => {
      const key = `s${++n}`;
      const seg = written(await w().createSegment({ key, name: 'S', constraints: [constraint('plan', 'pro')] }));
      const updated = written(await w().updateSegment(key, { name: 'S2' }));
      expect(updated.constraints.map((c: Msg) => c.id)).toEqual(seg.constraints.map((c: Msg) => c.id));
    });

    it.each([
      ['create', (key: string, constraints: Msg[]) => w().createSegment({ key: `${key}x`, name: 'S', constraints })],
      ['update', (key: string, constraints: Msg[]) => w().updateSegment(key, { name: 'S2', constraints })],
    ])('a segment %s with a bad constraint writes nothing', async (_name, write) => {
      const key = `s${++n}`;
      written(await w().createSegment({ key, name: 'S', constraints: [constraint('plan', 'pro')] }));
      const before = await everything();
      const outcome = await write(key, [
        constraint('plan', 'x'),
        { type: 'STRING_COMPARISON_TYPE', property: 'n', operator: 'bogus', value: 'abc' },
      ]);
      expect(outcome.code).toBe(3);
      expect(await everything()).toEqual(before);
    });
  });
});
