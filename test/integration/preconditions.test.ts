// Issue 42: a management write may carry a precondition, the namespace revision its client read
// (`If-Match: "<X-Vexil-Revision>"` over HTTP, `if-match` metadata over gRPC), and is refused when
// the object it writes, or any part of it, changed after that revision: HTTP 412 / gRPC
// FAILED_PRECONDITION with Flipt's error body, nothing written. Changes to other objects of the
// namespace do not count; a write without one behaves as before. Every backend, both transports,
// every kind of object the dashboard edits.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg } from '../helpers/flipt-grpc.js';
import { type Method, restClient } from '../helpers/rest.js';

const FLIPT = 'flipt.Flipt';
const NS = 'pre';
const API = `/api/v1/namespaces/${NS}`;

/** The objects of one scenario: a flag with a variant, a rule with a distribution, a rollout; a segment with a constraint; another flag. */
interface World {
  flag: string;
  other: string;
  variant: Msg;
  rule: Msg;
  distribution: Msg;
  rollout: Msg;
  segment: string;
  constraint: Msg;
}

/** A write to one object, both ways: the REST request and the RPC with the same effect. */
interface Write {
  rest: [Method, string, unknown?];
  rpc: [string, unknown];
  /** Reads the object back (to see that a refused write wrote nothing). */
  read: string;
}

const writes: Record<string, (w: World, n: number) => Write> = {
  flag: (w, n) => ({
    rest: ['PUT', `${API}/flags/${w.flag}`, { name: `Flag ${n}`, enabled: true }],
    rpc: ['UpdateFlag', { namespaceKey: NS, key: w.flag, name: `Flag ${n}`, enabled: true }],
    read: `${API}/flags/${w.flag}`,
  }),
  variant: (w, n) => ({
    rest: ['PUT', `${API}/flags/${w.flag}/variants/${w.variant.id}`, { key: 'blue', name: `Blue ${n}` }],
    rpc: ['UpdateVariant', { namespaceKey: NS, flagKey: w.flag, id: w.variant.id, key: 'blue', name: `Blue ${n}` }],
    read: `${API}/flags/${w.flag}`,
  }),
  rule: (w) => ({
    rest: ['PUT', `${API}/flags/${w.flag}/rules/${w.rule.id}`, { segmentKey: w.segment }],
    rpc: ['UpdateRule', { namespaceKey: NS, flagKey: w.flag, id: w.rule.id, segmentKey: w.segment }],
    read: `${API}/flags/${w.flag}/rules/${w.rule.id}`,
  }),
  distribution: (w, n) => ({
    rest: [
      'PUT',
      `${API}/flags/${w.flag}/rules/${w.rule.id}/distributions/${w.distribution.id}`,
      { variantId: w.variant.id, rollout: 10 + n },
    ],
    rpc: [
      'UpdateDistribution',
      {
        namespaceKey: NS,
        flagKey: w.flag,
        ruleId: w.rule.id,
        id: w.distribution.id,
        variantId: w.variant.id,
        rollout: 10 + n,
      },
    ],
    read: `${API}/flags/${w.flag}/rules/${w.rule.id}`,
  }),
  rollout: (w, n) => ({
    rest: ['PUT', `${API}/flags/${w.other}/rollouts/${w.rollout.id}`, { threshold: { percentage: n, value: true } }],
    rpc: [
      'UpdateRollout',
      { namespaceKey: NS, flagKey: w.other, id: w.rollout.id, threshold: { percentage: n, value: true } },
    ],
    read: `${API}/flags/${w.other}/rollouts`,
  }),
  segment: (w, n) => ({
    rest: ['PUT', `${API}/segments/${w.segment}`, { name: `Segment ${n}` }],
    rpc: ['UpdateSegment', { namespaceKey: NS, key: w.segment, name: `Segment ${n}` }],
    read: `${API}/segments/${w.segment}`,
  }),
  constraint: (w, n) => ({
    rest: [
      'PUT',
      `${API}/segments/${w.segment}/constraints/${w.constraint.id}`,
      { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `v${n}` },
    ],
    rpc: [
      'UpdateConstraint',
      {
        namespaceKey: NS,
        segmentKey: w.segment,
        id: w.constraint.id,
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'eq',
        value: `v${n}`,
      },
    ],
    read: `${API}/segments/${w.segment}`,
  }),
};

/** What a teammate changes meanwhile that is the same object or a part of it. */
const partOf: Record<string, string> = {
  flag: 'distribution',
  variant: 'variant',
  rule: 'distribution',
  distribution: 'distribution',
  rollout: 'rollout',
  segment: 'constraint',
  constraint: 'constraint',
};

/** What a teammate changes meanwhile that is not the object nor a part of it (its owner, a sibling). */
const besideOf: Record<string, string> = {
  variant: 'flag',
  rule: 'variant',
  distribution: 'rule',
  constraint: 'segment',
};

describeEachBackend('write preconditions (If-Match)', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;
  let counter = 0;

  const { send: http, ok } = restClient(() => base);
  const revision = async (): Promise<string> => (await http('GET', `${API}`)).revision as string;

  async function world(): Promise<World> {
    const n = ++counter;
    const flag = `f${n}`;
    const other = `g${n}`;
    const segment = `s${n}`;
    await ok('POST', `${API}/segments`, { key: segment, name: 'S', matchType: 'ALL_MATCH_TYPE' });
    const constraint = await ok('POST', `${API}/segments/${segment}/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    await ok('POST', `${API}/flags`, { key: flag, name: 'F', type: 'VARIANT_FLAG_TYPE', enabled: true });
    const variant = await ok('POST', `${API}/flags/${flag}/variants`, { key: 'blue' });
    const rule = await ok('POST', `${API}/flags/${flag}/rules`, { segmentKey: segment, rank: 1 });
    const distribution = await ok('POST', `${API}/flags/${flag}/rules/${rule.id}/distributions`, {
      variantId: variant.id,
      rollout: 50,
    });
    await ok('POST', `${API}/flags`, { key: other, name: 'G', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    const rollout = await ok('POST', `${API}/flags/${other}/rollouts`, {
      rank: 1,
      threshold: { percentage: 50, value: true },
    });
    return { flag, other, variant, rule, distribution, rollout, segment, constraint };
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    const ports = await t.app.listen();
    base = `http://127.0.0.1:${ports.httpPort}`;
    grpc = new FliptGrpc(ports.grpcPort);
    await ok('POST', '/api/v1/namespaces', { key: NS, name: 'Preconditions' });
  });
  afterAll(async () => {
    grpc?.close();
    await t?.close();
  });

  /** Makes the write over one transport with the precondition; answers the HTTP status (gRPC: 200 or the code). */
  async function send(
    transport: 'http' | 'grpc',
    write: Write,
    ifMatch: string,
  ): Promise<{ status: number; code?: number; message: string }> {
    if (transport === 'http') {
      const [method, url, body] = write.rest;
      const res = await http(method, url, body, `"${ifMatch}"`);
      return { status: res.status, code: res.body?.code, message: res.body?.message ?? '' };
    }
    const [method, request] = write.rpc;
    try {
      await grpc.call(FLIPT, method, request, { metadata: { 'if-match': `"${ifMatch}"` } });
      return { status: 200, message: '' };
    } catch (err) {
      const e = err as { code: number; details: string };
      return { status: 0, code: e.code, message: e.details };
    }
  }

  describe.each(['http', 'grpc'] as const)('over %s', (transport) => {
    it.each(Object.keys(writes))(
      '%s: refused after a change to a part of its object, nothing written',
      async (kind) => {
        const w = await world();
        const read = await revision();
        // The teammate's change, without a precondition.
        const part = partOf[kind] as string;
        const [method, url, body] = (writes[part] as (w: World, n: number) => Write)(w, 7).rest;
        await ok(method, url, body);
        const write = (writes[kind] as (w: World, n: number) => Write)(w, 3);
        const before = await ok('GET', write.read);
        const answer = await send(transport, write, read);
        expect(answer.code).toBe(9);
        if (transport === 'http') expect(answer.status).toBe(412);
        expect(answer.message).toMatch(/^precondition failed: changed after revision/);
        expect(await ok('GET', write.read)).toEqual(before);
        // With the revision read after the teammate's change, the same write goes through.
        expect(await send(transport, write, await revision())).toMatchObject({ status: 200 });
      },
    );

    it.each(Object.keys(besideOf))('%s: accepted after a change to its owner or a sibling', async (kind) => {
      const w = await world();
      const read = await revision();
      const [method, url, body] = (writes[besideOf[kind] as string] as (w: World, n: number) => Write)(w, 8).rest;
      await ok(method, url, body);
      const answer = await send(transport, (writes[kind] as (w: World, n: number) => Write)(w, 5), read);
      expect(answer).toMatchObject({ status: 200 });
    });

    it.each(Object.keys(writes))('%s: accepted after changes to other objects of the namespace only', async (kind) => {
      const w = await world();
      const read = await revision();
      const elsewhere = await world();
      await ok('PUT', `${API}/flags/${elsewhere.flag}`, { name: 'Elsewhere', enabled: false });
      await ok('PUT', `${API}/segments/${elsewhere.segment}`, { name: 'Elsewhere' });
      expect(await revision()).not.toBe(read);
      const answer = await send(transport, (writes[kind] as (w: World, n: number) => Write)(w, 4), read);
      expect(answer).toMatchObject({ status: 200 });
    });
  });

  it('names who changed what in the refusal, and the body is Flipt’s', async () => {
    const w = await world();
    const read = await revision();
    await ok('PUT', `${API}/flags/${w.flag}`, { name: 'Renamed by a teammate', enabled: true });
    const res = await http('PUT', `${API}/flags/${w.flag}`, { name: 'Mine', enabled: true }, `"${read}"`);
    expect(res.status).toBe(412);
    expect(res.body).toEqual({
      code: 9,
      message: expect.stringMatching(
        new RegExp(
          `^precondition failed: changed after revision "${read}": flag "${w.flag}" updated by none at \\d{4}-`,
        ),
      ),
      details: [],
    });
  });

  it('a stale precondition refuses a delete; a create conflicts with nothing; no precondition: as before', async () => {
    const w = await world();
    const read = await revision();
    await ok('PUT', `${API}/flags/${w.flag}/variants/${w.variant.id}`, { key: 'blue', name: 'Renamed' });
    const del = await http('DELETE', `${API}/flags/${w.flag}/variants/${w.variant.id}`, undefined, `"${read}"`);
    expect(del.status).toBe(412);
    const delFlag = await http('DELETE', `${API}/flags/${w.flag}`, undefined, `"${read}"`);
    expect(delFlag.status).toBe(412);
    expect((await ok('GET', `${API}/flags/${w.flag}`)).variants.map((v: Msg) => v.key)).toEqual(['blue']);
    const create = await http('POST', `${API}/flags/${w.flag}/variants`, { key: 'green' }, `"${read}"`);
    expect(create.status).toBe(200);
    expect((await http('DELETE', `${API}/flags/${w.flag}/variants/${w.variant.id}`)).status).toBe(200);
  });

  it('a rule reorder conflicts with a change to any rule of the flag', async () => {
    const w = await world();
    const second = await ok('POST', `${API}/flags/${w.flag}/rules`, { segmentKey: w.segment, rank: 2 });
    const read = await revision();
    await ok('PUT', `${API}/flags/${w.flag}/rules/${second.id}`, { segmentKey: w.segment });
    const order = { ruleIds: [second.id, w.rule.id] };
    expect((await http('PUT', `${API}/flags/${w.flag}/rules/order`, order, `"${read}"`)).status).toBe(412);
    expect((await http('PUT', `${API}/flags/${w.flag}/rules/order`, order, `"${await revision()}"`)).status).toBe(200);
  });

  it.each([
    ['"not-a-revision"', 400],
    ['"1.2", "3.4"', 400],
    ['*', 200],
  ])('If-Match %s answers %i', async (header, status) => {
    const w = await world();
    const res = await fetch(`${base}${API}/flags/${w.flag}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': header },
      body: JSON.stringify({ name: 'X', enabled: true }),
    });
    expect(res.status).toBe(status);
    if (status === 400) expect((await res.json()).code).toBe(3);
  });

  it('a namespace deleted and created again refuses a revision of its former life', async () => {
    await ok('POST', '/api/v1/namespaces', { key: 'again', name: 'Again' });
    const read = (await http('GET', '/api/v1/namespaces/again')).revision as string;
    await ok('DELETE', '/api/v1/namespaces/again');
    await ok('POST', '/api/v1/namespaces', { key: 'again', name: 'Again' });
    const res = await http('PUT', '/api/v1/namespaces/again', { name: 'Mine' }, `"${read}"`);
    expect(res.status).toBe(412);
    expect(res.body.message).toMatch(/deleted and created again/);
  });
});
