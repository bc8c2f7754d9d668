// A delete that finds nothing answers OK, as Flipt's does, and changes nothing: the namespace keeps
// its revision (so no instance reloads its cache), no change is recorded, and no change stream is
// told of it. Every kind of delete, over REST and gRPC, on every backend; beside them, a delete that
// does find its object still moves the revision to exactly the one its answer names.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type ChangeClient, changeClient, watch } from '../helpers/change-watch.js';
import type { FliptGrpc, Msg } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';
import { restClient } from '../helpers/rest.js';

const NS = 'nothing';
const API = `/api/v1/namespaces/${NS}`;
const MISSING = '00000000-0000-4000-8000-000000000000';

/** The objects the deletes look inside: a flag with a variant and a rule, a boolean flag, a segment. */
interface World {
  flag: string;
  boolean: string;
  segment: string;
  variant: Msg;
  rule: Msg;
}

/** One delete of something that is not there, both ways. */
interface Delete {
  rest: string;
  rpc: [string, Record<string, string>];
}

const deletes: Record<string, (w: World) => Delete> = {
  flag: () => ({ rest: `${API}/flags/no-such-flag`, rpc: ['DeleteFlag', { namespaceKey: NS, key: 'no-such-flag' }] }),
  segment: () => ({
    rest: `${API}/segments/no-such-segment`,
    rpc: ['DeleteSegment', { namespaceKey: NS, key: 'no-such-segment' }],
  }),
  variant: (w) => ({
    rest: `${API}/flags/${w.flag}/variants/${MISSING}`,
    rpc: ['DeleteVariant', { namespaceKey: NS, flagKey: w.flag, id: MISSING }],
  }),
  rule: (w) => ({
    rest: `${API}/flags/${w.flag}/rules/${MISSING}`,
    rpc: ['DeleteRule', { namespaceKey: NS, flagKey: w.flag, id: MISSING }],
  }),
  rollout: (w) => ({
    rest: `${API}/flags/${w.boolean}/rollouts/${MISSING}`,
    rpc: ['DeleteRollout', { namespaceKey: NS, flagKey: w.boolean, id: MISSING }],
  }),
  constraint: (w) => ({
    rest: `${API}/segments/${w.segment}/constraints/${MISSING}`,
    rpc: ['DeleteConstraint', { namespaceKey: NS, segmentKey: w.segment, id: MISSING }],
  }),
  distribution: (w) => ({
    rest: `${API}/flags/${w.flag}/rules/${w.rule.id}/distributions/${MISSING}?variantId=${w.variant.id}`,
    rpc: [
      'DeleteDistribution',
      { namespaceKey: NS, flagKey: w.flag, ruleId: w.rule.id, id: MISSING, variantId: w.variant.id },
    ],
  }),
};

describeEachBackend('deletes that find nothing', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;
  let changes: ChangeClient;
  let w: World;

  const { send: http, ok } = restClient(() => base);
  const revision = async () => (await http('GET', API)).revision as string;
  const changeCount = async () => ((await ok('GET', `${API}/changes?limit=100`)).changes as unknown[]).length;

  beforeAll(async () => {
    let grpcPort: number;
    ({ t, base, grpc, grpcPort } = await startListeningApp(backend, { ofrep: { event_streams: { enabled: true } } }));
    changes = changeClient(grpcPort);
    await ok('POST', '/api/v1/namespaces', { key: NS, name: 'Nothing' });
    await ok('POST', `${API}/segments`, { key: 'seg', name: 'Seg', matchType: 'ALL_MATCH_TYPE' });
    await ok('POST', `${API}/flags`, { key: 'f', name: 'F', type: 'VARIANT_FLAG_TYPE', enabled: true });
    await ok('POST', `${API}/flags`, { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    const variant = await ok('POST', `${API}/flags/f/variants`, { key: 'blue' });
    const rule = await ok('POST', `${API}/flags/f/rules`, { segmentKey: 'seg', rank: 1 });
    w = { flag: 'f', boolean: 'b', segment: 'seg', variant, rule };
  });
  afterAll(async () => {
    changes?.close();
    await t?.close();
  });

  describe.each(['http', 'grpc'] as const)('over %s', (transport) => {
    it.each(Object.keys(deletes))('%s: OK, the revision stays, nothing is recorded', async (kind) => {
      const before = await revision();
      const recorded = await changeCount();
      const del = (deletes[kind] as (w: World) => Delete)(w);
      if (transport === 'http') {
        const res = await http('DELETE', del.rest);
        expect(res).toMatchObject({ status: 200, body: {} });
        // The answer names the revision the namespace is at: the one it was at.
        expect(res.revision).toBe(before);
      } else {
        await grpc.call('flipt.Flipt', del.rpc[0], del.rpc[1]);
      }
      expect(await revision()).toBe(before);
      expect(await changeCount()).toBe(recorded);
    });
  });

  it('tells no change stream; the next real change is the next message', async () => {
    const w2 = watch(changes, { namespace_key: NS });
    try {
      await w2.until(1);
      expect(w2.changes[0]?.etag).toBe(await revision());
      for (const make of Object.values(deletes)) {
        const del = make(w);
        expect((await http('DELETE', del.rest)).status).toBe(200);
        await grpc.call('flipt.Flipt', del.rpc[0], del.rpc[1]);
      }
      const renamed = await http('PUT', `${API}/flags/b`, { name: 'B renamed', enabled: true });
      await w2.until(2);
      expect(w2.changes.map((c) => c.etag)).toEqual([w2.changes[0]?.etag, renamed.revision]);
    } finally {
      w2.cancel();
    }
  });

  it('a precondition that is no revision is refused, even when there is nothing to delete', async () => {
    const res = await http('DELETE', `${API}/flags/no-such-flag`, undefined, '"yesterday"');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 3, message: expect.stringMatching(/^If-Match must be a revision/) });
    // A stale revision refuses nothing: nothing was touched.
    const stale = await revision();
    await ok('PUT', `${API}/flags/b`, { name: 'B again', enabled: true });
    expect((await http('DELETE', `${API}/flags/no-such-flag`, undefined, `"${stale}"`)).status).toBe(200);
  });

  it('a delete in a namespace that does not exist answers OK', async () => {
    expect(await http('DELETE', '/api/v1/namespaces/no-such-namespace/flags/f')).toMatchObject({ status: 200 });
  });

  it('a delete that finds its object moves the revision to the one its answer names, once', async () => {
    const before = await revision();
    const recorded = await changeCount();
    const variant = await ok('POST', `${API}/flags/f/variants`, { key: 'green' });
    const created = await revision();
    const res = await http('DELETE', `${API}/flags/f/variants/${variant.id}`);
    expect(res.status).toBe(200);
    expect(res.revision).not.toBe(created);
    expect(await revision()).toBe(res.revision);
    expect(before).not.toBe(created);
    expect(await changeCount()).toBe(recorded + 2);
  });
});
