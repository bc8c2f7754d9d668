// The change log (issue 28) on every backend: each kind of write records exactly one change with its
// before and after; failed writes record none; revert restores the exact earlier objects (read back
// through the API) and the same evaluations for 1,000 entities; filters, paging, the actor, and what
// a namespace-scoped token may see.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const BOOT = 'changes-bootstrap-token';
const NS = 'hist';

describeEachBackend('change log', (backend) => {
  let t: TestApp;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = BOOT) =>
    call(t.app, method, url, body, bearer(token));
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
    const res = await api(method, url, body);
    expect([url, res.status, res.body]).toEqual([url, 200, res.body]);
    return res.body;
  };
  const countChanges = async () => {
    const row = await t.app.db.kysely
      .selectFrom('changes')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const newest = async () => (await ok('GET', `/api/v1/namespaces/${NS}/changes?limit=1`)).changes[0];
  const base = `/api/v1/namespaces/${NS}`;

  /** Everything a namespace holds, as the API shows it: what a revert must give back exactly. */
  const everything = async (at = base) => {
    const flags = (await ok('GET', `${at}/flags`)).flags;
    const out: Record<string, unknown> = { segments: (await ok('GET', `${at}/segments`)).segments, flags };
    for (const f of flags as { key: string }[]) {
      out[`rules:${f.key}`] = (await ok('GET', `${at}/flags/${f.key}/rules`)).rules;
      out[`rollouts:${f.key}`] = (await ok('GET', `${at}/flags/${f.key}/rollouts`)).rules;
    }
    return out;
  };
  /** Variant and boolean answers for 1,000 entities, in batches. */
  const evaluations = async (namespaceKey = NS) => {
    const answers: unknown[] = [];
    for (let start = 0; start < 1000; start += 250) {
      const requests = [];
      for (let i = start; i < start + 250; i++) {
        const context = { plan: i % 3 === 0 ? 'pro' : 'free' };
        requests.push({ namespaceKey, flagKey: 'color', entityId: `user-${i}`, context });
        requests.push({ namespaceKey, flagKey: 'dark', entityId: `user-${i}`, context });
      }
      const res = await ok('POST', '/evaluate/v1/batch', { requests });
      for (const r of res.responses) {
        const answer = r.variantResponse ?? r.booleanResponse ?? r.errorResponse;
        answers.push([answer.flagKey, answer.variantKey ?? answer.enabled, answer.reason, answer.match]);
      }
    }
    return answers;
  };

  let variants: { red: string; blue: string };
  let ruleIds: string[];
  let rolloutIds: string[];
  let constraintId: string;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    });
    await ok('POST', '/api/v1/namespaces', { key: NS, name: 'History' });
    await ok('POST', `${base}/segments`, { key: 'pro', name: 'Pro', matchType: 'ALL_MATCH_TYPE' });
    constraintId = (
      await ok('POST', `${base}/segments/pro/constraints`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'eq',
        value: 'pro',
      })
    ).id;
    await ok('POST', `${base}/segments`, { key: 'all', name: 'All', matchType: 'ANY_MATCH_TYPE' });
    await ok('POST', `${base}/flags`, { key: 'color', name: 'Color', enabled: true, metadata: { team: 'web' } });
    variants = {
      red: (await ok('POST', `${base}/flags/color/variants`, { key: 'red', name: 'Red', attachment: '{"x":1}' })).id,
      blue: (await ok('POST', `${base}/flags/color/variants`, { key: 'blue', name: 'Blue' })).id,
    };
    await ok('PUT', `${base}/flags/color`, { name: 'Color', enabled: true, defaultVariantId: variants.blue });
    ruleIds = [
      (await ok('POST', `${base}/flags/color/rules`, { segmentKey: 'pro', rank: 1 })).id,
      (
        await ok('POST', `${base}/flags/color/rules`, {
          segmentKeys: ['all', 'pro'],
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          rank: 2,
        })
      ).id,
    ];
    await ok('POST', `${base}/flags/color/rules/${ruleIds[0]}/distributions`, { variantId: variants.red, rollout: 60 });
    await ok('POST', `${base}/flags/color/rules/${ruleIds[0]}/distributions`, {
      variantId: variants.blue,
      rollout: 40,
    });
    await ok('POST', `${base}/flags`, { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: false });
    rolloutIds = [
      (await ok('POST', `${base}/flags/dark/rollouts`, { rank: 1, segment: { segmentKey: 'pro', value: true } })).id,
      (await ok('POST', `${base}/flags/dark/rollouts`, { rank: 2, threshold: { percentage: 30, value: true } })).id,
    ];
  }, 120_000);
  afterAll(async () => t?.close());

  it('records the setup writes newest first, with the token as actor and nothing secret', async () => {
    const all = await ok('GET', `${base}/changes?limit=1000`);
    // namespace, 2 segments, constraint, 2 flags, 2 variants, flag update, 2 rules, 2 distributions, 2 rollouts
    expect(all.changes).toHaveLength(15);
    const ids = all.changes.map((c: { id: string }) => Number(c.id));
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const first = all.changes.at(-1);
    expect(first).toMatchObject({ resourceType: 'namespace', resourceKey: NS, action: 'created', namespaceKey: NS });
    expect(first.actor).toMatchObject({ authentication: 'token', name: 'initial_bootstrap_token' });
    expect(first.actor.tokenId).toEqual(expect.any(String));
    expect(first.actor.ip).toEqual(expect.any(String));
    const tokens = await ok('GET', '/api/v1/changes?type=token');
    expect(tokens.changes).toHaveLength(1);
    expect(tokens.changes[0]).toMatchObject({ action: 'created', actor: { authentication: 'bootstrap' } });
    expect(JSON.stringify(tokens.changes)).not.toContain(BOOT);
    expect(JSON.stringify(tokens.changes)).not.toMatch(/hash/i);
  });

  describe('each kind of write records exactly one change', () => {
    // [name, write, type, action, key of the resource (or a function of the answer), what the API shows before/after]
    type Case = {
      name: string;
      write: () => Promise<{ status: number; body: unknown }>;
      type: string;
      action: string;
      read?: () => Promise<Record<string, unknown> | undefined>;
    };
    const flag = (key: string) => async () => (await api('GET', `${base}/flags/${key}`)).body;
    const cases: Case[] = [
      {
        name: 'flag create',
        write: () => api('POST', `${base}/flags`, { key: 'w', name: 'W' }),
        type: 'flag',
        action: 'created',
        read: flag('w'),
      },
      {
        name: 'flag update',
        write: () => api('PUT', `${base}/flags/w`, { name: 'W2', enabled: true }),
        type: 'flag',
        action: 'updated',
        read: flag('w'),
      },
      {
        name: 'variant create',
        write: () => api('POST', `${base}/flags/w/variants`, { key: 'a', name: 'A' }),
        type: 'variant',
        action: 'created',
      },
      {
        name: 'segment create',
        write: () => api('POST', `${base}/segments`, { key: 's', name: 'S' }),
        type: 'segment',
        action: 'created',
      },
      {
        name: 'segment update',
        write: () => api('PUT', `${base}/segments/s`, { name: 'S2', matchType: 'ANY_MATCH_TYPE' }),
        type: 'segment',
        action: 'updated',
      },
      {
        name: 'rule create',
        write: () => api('POST', `${base}/flags/w/rules`, { segmentKey: 's', rank: 1 }),
        type: 'rule',
        action: 'created',
      },
      {
        name: 'rule create 2',
        write: () => api('POST', `${base}/flags/w/rules`, { segmentKey: 'all', rank: 2 }),
        type: 'rule',
        action: 'created',
      },
      {
        name: 'rollout create',
        write: () => api('POST', `${base}/flags/w/rollouts`, { rank: 1, threshold: { percentage: 5, value: true } }),
        type: 'rollout',
        action: 'created',
      },
      { name: 'flag delete', write: () => api('DELETE', `${base}/flags/w`), type: 'flag', action: 'deleted' },
      { name: 'segment delete', write: () => api('DELETE', `${base}/segments/s`), type: 'segment', action: 'deleted' },
      {
        name: 'namespace update',
        write: () => api('PUT', `/api/v1/namespaces/${NS}`, { name: 'History 2' }),
        type: 'namespace',
        action: 'updated',
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const shownBefore = c.read ? await c.read() : undefined;
        const count = await countChanges();
        const res = await c.write();
        expect(res.status).toBe(200);
        expect(await countChanges()).toBe(count + 1);
        const change = await newest();
        expect(change).toMatchObject({ resourceType: c.type, action: c.action, namespaceKey: NS });
        if (c.action === 'created') expect(change.before).toBeUndefined();
        if (c.action === 'deleted') expect(change.after).toBeUndefined();
        if (c.action !== 'deleted') expect(change.after).toBeDefined();
        if (c.action !== 'created') expect(change.before).toBeDefined();
        if (c.read && c.action !== 'deleted') expect(change.after).toMatchObject(shownAsRecorded(await c.read()));
        if (shownBefore && c.action !== 'created' && (shownBefore as { code?: number }).code === undefined) {
          expect(change.before).toMatchObject(shownAsRecorded(shownBefore));
        }
      });
    }

    it('a flag delete records the flag with its variants, rules and rollouts', async () => {
      const [deleted] = (await ok('GET', `${base}/changes?type=flag&key=w&limit=1`)).changes;
      expect(deleted.action).toBe('deleted');
      expect(deleted.before.variants.map((v: { key: string }) => v.key)).toEqual(['a']);
      expect(deleted.before.rules).toHaveLength(2);
      expect(deleted.before.rollouts).toHaveLength(1);
    });

    it('reorders record one change with the lists before and after', async () => {
      const count = await countChanges();
      await ok('PUT', `${base}/flags/color/rules/order`, { ruleIds: [ruleIds[1], ruleIds[0]] });
      expect(await countChanges()).toBe(count + 1);
      const change = await newest();
      expect(change).toMatchObject({
        resourceType: 'rule',
        resourceKey: 'color',
        parentKey: 'color',
        action: 'updated',
      });
      expect(change.before.map((r: { id: string }) => r.id)).toEqual(ruleIds);
      expect(change.after.map((r: { id: string }) => r.id)).toEqual([ruleIds[1], ruleIds[0]]);
      // Put back by revert: the order is the recorded one again.
      await ok('POST', `${base}/changes/${change.id}/revert`);
      const rules = (await ok('GET', `${base}/flags/color/rules`)).rules;
      expect(rules.map((r: { id: string }) => r.id)).toEqual(ruleIds);
    });

    it('token create and delete record one change each, outside any namespace', async () => {
      const created = await ok('POST', '/auth/v1/method/token', { name: 'ci', description: 'for CI' });
      const id = created.authentication.id;
      await ok('DELETE', `/auth/v1/tokens/${id}`);
      const tokenChanges = (await ok('GET', `/api/v1/changes?type=token&key=${id}`)).changes;
      expect(tokenChanges.map((c: { action: string }) => c.action)).toEqual(['deleted', 'created']);
      expect(tokenChanges[0].namespaceKey).toBeUndefined();
      expect(JSON.stringify(tokenChanges)).not.toContain(created.clientToken);
    });
  });

  describe('a failed write records nothing', () => {
    const failures: [string, () => Promise<{ status: number }>, number][] = [
      ['validation', () => api('POST', `${base}/flags`, { key: 'bad key!', name: 'x' }), 400],
      ['conflict', () => api('POST', `${base}/flags`, { key: 'color', name: 'dup' }), 400],
      ['unknown segment', () => api('POST', `${base}/flags/color/rules`, { segmentKey: 'nope', rank: 3 }), 404],
      ['segment in use', () => api('DELETE', `${base}/segments/pro`), 400],
      ['unknown namespace', () => api('POST', '/api/v1/namespaces/none/flags', { key: 'x', name: 'x' }), 404],
    ];
    for (const [name, write, status] of failures) {
      it(name, async () => {
        const count = await countChanges();
        expect((await write()).status).toBe(status);
        expect(await countChanges()).toBe(count);
      });
    }

    it('a database error inside the write rolls the change back with it', async () => {
      const count = await countChanges();
      const before = await ok('GET', `${base}/flags/color`);
      // A rule whose segment vanished between the service's check and the insert: the foreign key fails.
      const res = await api('POST', `${base}/flags/color/rules`, { segmentKeys: ['pro', 'ghost'], rank: 3 });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await countChanges()).toBe(count);
      expect(await ok('GET', `${base}/flags/color`)).toEqual(before);
    });
  });

  describe('revert restores the exact earlier state', () => {
    const revertCases: [string, () => Promise<unknown>][] = [
      ['flag update', () => api('PUT', `${base}/flags/color`, { name: 'Colour', enabled: false, metadata: {} })],
      ['flag delete', () => api('DELETE', `${base}/flags/color`)],
      [
        'variant update',
        () => api('PUT', `${base}/flags/color/variants/${variants.red}`, { key: 'crimson', name: 'C' }),
      ],
      // Blue is the flag's default and has 40 % in rule 1: both come back with it.
      ['variant delete', () => api('DELETE', `${base}/flags/color/variants/${variants.blue}`)],
      ['variant create', () => api('POST', `${base}/flags/color/variants`, { key: 'temp', name: 'Temp' })],
      ['rule update', () => api('PUT', `${base}/flags/color/rules/${ruleIds[0]}`, { segmentKey: 'all' })],
      ['rule delete', () => api('DELETE', `${base}/flags/color/rules/${ruleIds[0]}`)],
      [
        'distribution update',
        async () => {
          const rule = await ok('GET', `${base}/flags/color/rules/${ruleIds[0]}`);
          const d = rule.distributions[0];
          return api('PUT', `${base}/flags/color/rules/${ruleIds[0]}/distributions/${d.id}`, {
            variantId: d.variantId,
            rollout: 10,
          });
        },
      ],
      [
        'rollout update',
        () =>
          api('PUT', `${base}/flags/dark/rollouts/${rolloutIds[1]}`, { threshold: { percentage: 90, value: false } }),
      ],
      ['rollout delete', () => api('DELETE', `${base}/flags/dark/rollouts/${rolloutIds[0]}`)],
      [
        'rollout order',
        () => api('PUT', `${base}/flags/dark/rollouts/order`, { rolloutIds: [rolloutIds[1], rolloutIds[0]] }),
      ],
      ['segment update', () => api('PUT', `${base}/segments/pro`, { name: 'P', matchType: 'ANY_MATCH_TYPE' })],
      [
        'constraint update',
        () =>
          api('PUT', `${base}/segments/pro/constraints/${constraintId}`, {
            type: 'STRING_COMPARISON_TYPE',
            property: 'plan',
            operator: 'neq',
            value: 'pro',
          }),
      ],
      ['constraint delete', () => api('DELETE', `${base}/segments/pro/constraints/${constraintId}`)],
      ['flag create', () => api('POST', `${base}/flags`, { key: 'temp', name: 'Temp' })],
      ['segment create', () => api('POST', `${base}/segments`, { key: 'temp', name: 'Temp' })],
    ];
    for (const [name, write] of revertCases) {
      it(name, async () => {
        const state = await everything();
        const answers = await evaluations();
        const res = (await write()) as { status: number };
        expect(res.status).toBe(200);
        const change = await newest();
        expect(await everything()).not.toEqual(state);
        const reverted = await api('POST', `${base}/changes/${change.id}/revert`);
        expect([reverted.status, reverted.body.code]).toEqual([200, undefined]);
        expect(reverted.body.reverts).toBe(change.id);
        expect(await everything()).toEqual(state);
        expect(await evaluations()).toEqual(answers);
      }, 120_000);
    }

    it('a revert that is blocked says what blocks it and changes nothing', async () => {
      await ok('POST', `${base}/segments`, { key: 'gone', name: 'Gone' });
      const rule = await ok('POST', `${base}/flags/color/rules`, { segmentKey: 'gone', rank: 3 });
      await ok('DELETE', `${base}/flags/color/rules/${rule.id}`);
      const deleted = await newest();
      await ok('DELETE', `${base}/segments/gone`);
      const state = await everything();
      const count = await countChanges();
      const res = await api('POST', `${base}/changes/${deleted.id}/revert`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 9, message: expect.stringContaining('segment "hist/gone"'), details: [] });
      expect(await everything()).toEqual(state);
      expect(await countChanges()).toBe(count);
    });

    it('a variant delete whose rule has gone since is refused, naming the rule', async () => {
      const temp = await ok('POST', `${base}/flags/color/variants`, { key: 'gone-variant', name: 'G' });
      const rule = await ok('POST', `${base}/flags/color/rules`, { segmentKey: 'pro', rank: 3 });
      await ok('POST', `${base}/flags/color/rules/${rule.id}/distributions`, { variantId: temp.id, rollout: 100 });
      await ok('DELETE', `${base}/flags/color/variants/${temp.id}`);
      const deleted = await newest();
      expect(deleted.before.distributions).toEqual([expect.objectContaining({ ruleId: rule.id, rollout: 100 })]);
      await ok('DELETE', `${base}/flags/color/rules/${rule.id}`);
      const state = await everything();
      const res = await api('POST', `${base}/changes/${deleted.id}/revert`);
      expect([res.status, res.body.code]).toEqual([400, 9]);
      expect(res.body.message).toContain(`rule "${rule.id}"`);
      expect(await everything()).toEqual(state);
    });

    it('reverting a delete whose key exists again is refused', async () => {
      await ok('POST', `${base}/flags`, { key: 'again', name: 'A' });
      await ok('DELETE', `${base}/flags/again`);
      const deleted = await newest();
      await ok('POST', `${base}/flags`, { key: 'again', name: 'B' });
      const res = await api('POST', `${base}/changes/${deleted.id}/revert`);
      expect([res.status, res.body.code]).toEqual([400, 9]);
      expect(res.body.message).toContain('exists again');
    });

    describe('namespaces', () => {
      const other = '/api/v1/namespaces/hist2';
      /** A second namespace holding one of everything, like the first. */
      const fill = async () => {
        await ok('POST', '/api/v1/namespaces', { key: 'hist2', name: 'History 2', description: 'd' });
        await ok('POST', `${other}/segments`, { key: 'pro', name: 'Pro', matchType: 'ALL_MATCH_TYPE' });
        await ok('POST', `${other}/segments/pro/constraints`, {
          type: 'STRING_COMPARISON_TYPE',
          property: 'plan',
          operator: 'eq',
          value: 'pro',
        });
        await ok('POST', `${other}/segments`, { key: 'unused', name: 'Unused' });
        await ok('POST', `${other}/flags`, { key: 'color', name: 'Color', enabled: true });
        const red = await ok('POST', `${other}/flags/color/variants`, { key: 'red', name: 'Red' });
        await ok('PUT', `${other}/flags/color`, { name: 'Color', enabled: true, defaultVariantId: red.id });
        const rule = await ok('POST', `${other}/flags/color/rules`, { segmentKey: 'pro', rank: 1 });
        await ok('POST', `${other}/flags/color/rules/${rule.id}/distributions`, { variantId: red.id, rollout: 50 });
        await ok('POST', `${other}/flags`, { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
        await ok('POST', `${other}/flags/dark/rollouts`, { rank: 1, segment: { segmentKey: 'pro', value: false } });
        await ok('POST', `${other}/flags/dark/rollouts`, { rank: 2, threshold: { percentage: 30, value: true } });
      };
      const newestOf = async (ns: string) => (await ok('GET', `/api/v1/namespaces/${ns}/changes?limit=1`)).changes[0];

      it('update: the name and description come back', async () => {
        const before = await ok('GET', '/api/v1/namespaces/hist');
        await ok('PUT', '/api/v1/namespaces/hist', { name: 'Renamed', description: 'changed' });
        const res = await api('POST', `${base}/changes/${(await newest()).id}/revert`);
        expect(res.status).toBe(200);
        expect(await ok('GET', '/api/v1/namespaces/hist')).toEqual(before);
      });

      it('a force delete records every flag and segment in one batch; its revert brings all of it back', async () => {
        await fill();
        const namespace = await ok('GET', other);
        const state = await everything(other);
        const answers = await evaluations('hist2');
        await ok('DELETE', `${other}?force=true`);
        const deleted = await newestOf('hist2');
        expect(deleted).toMatchObject({ resourceType: 'namespace', action: 'deleted' });
        const batch = (await ok('GET', `${other}/changes?batch=${deleted.batch}&limit=100`)).changes;
        expect(
          batch.map((c: { resourceType: string; resourceKey: string }) => `${c.resourceType}:${c.resourceKey}`),
        ).toEqual(['namespace:hist2', 'flag:dark', 'flag:color', 'segment:unused', 'segment:pro']);
        expect((await api('GET', other)).status).toBe(404);

        const res = await api('POST', `${other}/changes/${deleted.id}/revert`);
        expect([res.status, res.body.reverts, res.body.resourceType]).toEqual([200, deleted.id, 'namespace']);
        expect(await ok('GET', other)).toEqual(namespace);
        expect(await everything(other)).toEqual(state);
        expect(await evaluations('hist2')).toEqual(answers);

        // Undoing the revert is a namespace create's revert: refused while the namespace holds anything.
        const blocked = await api('POST', `${other}/changes/${res.body.id}/revert`);
        expect([blocked.status, blocked.body.code]).toEqual([400, 9]);
        expect(blocked.body.message).toContain('2 flag(s) and 2 segment(s)');
        await ok('DELETE', `${other}?force=true`);
      });

      it('create: an empty namespace is deleted again', async () => {
        await ok('POST', '/api/v1/namespaces', { key: 'hist3', name: 'Three' });
        const created = await newestOf('hist3');
        const res = await api('POST', `/api/v1/namespaces/hist3/changes/${created.id}/revert`);
        expect([res.status, res.body.action]).toEqual([200, 'deleted']);
        expect((await api('GET', '/api/v1/namespaces/hist3')).status).toBe(404);
      });
    });

    it('an unknown change is 404', async () => {
      expect((await api('POST', `${base}/changes/999999/revert`)).status).toBe(404);
      expect((await api('POST', '/api/v1/namespaces/default/changes/1/revert')).status).toBe(404);
    });
  });

  describe('reading', () => {
    it('filters by type, key, actor, batch and time, and pages newest first', async () => {
      const flagChanges = (await ok('GET', `${base}/changes?type=flag&key=color&limit=1000`)).changes;
      expect(flagChanges.length).toBeGreaterThan(2);
      expect(
        flagChanges.every(
          (c: { resourceType: string; resourceKey: string }) => c.resourceType === 'flag' && c.resourceKey === 'color',
        ),
      ).toBe(true);

      const history = (await ok('GET', `${base}/flags/color/changes?limit=1000`)).changes;
      const kinds = new Set(history.map((c: { resourceType: string }) => c.resourceType));
      expect([...kinds].sort()).toEqual(['flag', 'rule', 'variant']);
      const segment = (await ok('GET', `${base}/segments/pro/changes?limit=1000`)).changes;
      expect(new Set(segment.map((c: { resourceType: string }) => c.resourceType))).toEqual(
        new Set(['segment', 'constraint']),
      );

      const all = (await ok('GET', `${base}/changes?limit=1000`)).changes;
      const pages: { id: string }[] = [];
      let token = '';
      do {
        const page = await ok(
          'GET',
          `${base}/changes?limit=7${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
        );
        expect(page.changes.length).toBeLessThanOrEqual(7);
        pages.push(...page.changes);
        token = page.nextPageToken;
      } while (token);
      expect(pages.map((c) => c.id)).toEqual(all.map((c: { id: string }) => c.id));

      const middle = all[Math.floor(all.length / 2)];
      const since = (await ok('GET', `${base}/changes?limit=1000&since=${encodeURIComponent(middle.createdAt)}`))
        .changes;
      expect(since.every((c: { createdAt: string }) => c.createdAt >= middle.createdAt)).toBe(true);
      const until = (await ok('GET', `${base}/changes?limit=1000&until=${encodeURIComponent(middle.createdAt)}`))
        .changes;
      expect(since.length + until.length).toBe(all.length);

      const byActor = (await ok('GET', `${base}/changes?limit=1000&actor=initial_bootstrap_token`)).changes;
      expect(byActor).toHaveLength(all.length);
      expect((await ok('GET', `${base}/changes?actor=someone-else`)).changes).toEqual([]);

      expect((await api('GET', `${base}/changes?since=yesterday`)).status).toBe(400);
      expect((await api('GET', `${base}/changes?pageToken=nonsense`)).body.code).toBe(3);
    });

    it('an import records one change per object, sharing one batch', async () => {
      const doc = `namespace: ${NS}\nflags:\n  - key: imported\n    name: Imported\n  - key: imported2\n    name: Imported 2\nsegments:\n  - key: iseg\n    name: I\n    match_type: ALL_MATCH_TYPE\n`;
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/yaml', ...bearer(BOOT) },
        payload: doc,
      });
      expect(res.statusCode).toBe(200);
      const last = await newest();
      expect(last.batch).toEqual(expect.any(String));
      const batch = (await ok('GET', `${base}/changes?batch=${last.batch}`)).changes;
      expect(
        batch.map((c: { resourceType: string; resourceKey: string }) => `${c.resourceType}:${c.resourceKey}`).sort(),
      ).toEqual(['flag:imported', 'flag:imported2', 'segment:iseg']);
    });

    it('a namespace-scoped token sees its namespace only', async () => {
      await ok('POST', '/api/v1/namespaces', { key: 'other', name: 'Other' });
      await ok('POST', '/api/v1/namespaces/other/flags', { key: 'o', name: 'O' });
      const scoped = (await ok('POST', '/auth/v1/method/token', { name: 'scoped', namespaceKey: 'other' })).clientToken;
      const everywhere = (await api('GET', '/api/v1/changes?limit=1000', undefined, scoped)).body.changes;
      expect(everywhere.length).toBeGreaterThan(0);
      expect(everywhere.every((c: { namespaceKey?: string }) => c.namespaceKey === 'other')).toBe(true);
      const unscoped = (await ok('GET', '/api/v1/changes?limit=1000')).changes;
      expect(unscoped.some((c: { namespaceKey?: string }) => c.namespaceKey === NS)).toBe(true);
      expect(unscoped.some((c: { namespaceKey?: string }) => c.namespaceKey === undefined)).toBe(true);
      expect((await api('GET', `${base}/changes`, undefined, scoped)).status).toBe(403);
      expect((await api('GET', '/api/v1/namespaces/other/changes', undefined, scoped)).status).toBe(200);
      const change = (await api('GET', '/api/v1/namespaces/other/changes', undefined, scoped)).body.changes[0];
      expect((await api('POST', `${base}/changes/${change.id}/revert`, undefined, scoped)).status).toBe(403);
    });

    it('without a token the request is refused', async () => {
      expect((await call(t.app, 'GET', '/api/v1/changes')).status).toBe(401);
    });
  });

  describe('retention', () => {
    it('the retention job removes changes older than the retention', async () => {
      const { removeExpiredChanges } = await import('../../src/app/changes-retention.js');
      const pino = (await import('pino')).default;
      const silent = pino({ level: 'silent' });
      const total = await countChanges();
      const day = 24 * 3600_000;
      // Today: nothing is old enough.
      expect(await removeExpiredChanges(t.app.db.kysely, day, new Date(Date.now() + 3600_000), silent)).toBe(0);
      expect(await countChanges()).toBe(total);
      // Two days on: everything recorded now is past retention.
      expect(await removeExpiredChanges(t.app.db.kysely, day, new Date(Date.now() + 2 * day), silent)).toBe(total);
      expect(await countChanges()).toBe(0);
    });
  });
});

/** The recorded state is the resource in its canonical shape: the API's fields, timestamps as text. */
function shownAsRecorded(shown: Record<string, unknown> | undefined): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = shown ?? {};
  return rest;
}
