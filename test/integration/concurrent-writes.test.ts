// Many writers in one namespace at once, on every backend: each writer creates and updates its own flags,
// variants, segments, constraints, rules and distributions, and all of them add rules to one shared flag
// and rename it. Every write succeeds (MariaDB once answered 0.9 % of such writes with 503 "too many
// concurrent changes": its writers deadlocked on the namespace row, ADR 0031), each write gets a
// revision of its own, the revisions of all writes are one gapless run, and everything written is
// there afterwards (every rule of the shared flag).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const NS = '/api/v1/namespaces/default';

/** Writers, and the rounds each runs (a round is 11 writes). */
const LOADS: [writers: number, rounds: number][] = [
  [6, 6],
  [50, 2],
];

describeEachBackend('concurrent writers in one namespace', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
    const shared = await call(t.app, 'POST', `${NS}/flags`, {
      key: 'shared',
      name: 'shared',
      type: 'VARIANT_FLAG_TYPE',
    });
    expect(shared.status).toBe(200);
    const segment = await call(t.app, 'POST', `${NS}/segments`, {
      key: 'everyone',
      name: 'e',
      matchType: 'ANY_MATCH_TYPE',
    });
    expect(segment.status).toBe(200);
  });
  afterAll(async () => t?.close());
  const sharedRules = async (): Promise<number> =>
    (await call(t.app, 'GET', `${NS}/flags/shared/rules?limit=1000`)).body.rules.length;

  describe.each(LOADS)('%i writers', (writers, rounds) => {
    it('every write succeeds with a revision of its own', async () => {
      const rulesBefore = await sharedRules();
      const failures: string[] = [];
      const revisions: number[] = [];
      const write = async (method: 'POST' | 'PUT', url: string, body: object) => {
        const res = await call(t.app, method, url, body);
        if (res.status !== 200) {
          failures.push(`${method} ${url} → ${res.status} ${JSON.stringify(res.body)}`);
          return undefined;
        }
        revisions.push(Number(String(res.headers['x-vexil-revision']).split('.')[1]));
        return res.body;
      };
      const writer = async (w: number) => {
        for (let r = 0; r < rounds; r++) {
          const key = `w${writers}-${w}-${r}`;
          const flag = `${NS}/flags/${key}`;
          await write('POST', `${NS}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true });
          const variant = await write('POST', `${flag}/variants`, { key: 'a', name: 'a' });
          await write('POST', `${NS}/segments`, { key, name: key, matchType: 'ALL_MATCH_TYPE' });
          await write('POST', `${NS}/segments/${key}/constraints`, {
            type: 'STRING_COMPARISON_TYPE',
            property: 'plan',
            operator: 'eq',
            value: key,
          });
          const rule = await write('POST', `${flag}/rules`, { segmentKey: key, rank: 1 });
          if (rule && variant) {
            await write('POST', `${flag}/rules/${rule.id}/distributions`, { variantId: variant.id, rollout: 100 });
          }
          await write('PUT', flag, { key, name: `${key}!`, type: 'VARIANT_FLAG_TYPE', enabled: false });
          if (variant) await write('PUT', `${flag}/variants/${variant.id}`, { key: 'a', name: 'renamed' });
          await write('PUT', `${NS}/segments/${key}`, { key, name: `${key}!`, matchType: 'ANY_MATCH_TYPE' });
          await write('POST', `${NS}/flags/shared/rules`, { segmentKey: 'everyone', rank: 1 });
          await write('PUT', `${NS}/flags/shared`, { key: 'shared', name: key, type: 'VARIANT_FLAG_TYPE' });
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));

      const unavailable = failures.filter((f) => f.includes(' → 503 ')).length;
      expect(failures, `${failures.length} writes failed, ${unavailable} of them with 503`).toEqual([]);
      expect(revisions).toHaveLength(writers * rounds * 11);
      const sorted = [...revisions].sort((a, b) => a - b);
      const first = sorted[0] as number;
      expect(sorted).toEqual(sorted.map((_, i) => first + i));

      const flags = await call(t.app, 'GET', `${NS}/flags?limit=1000`);
      const written = (flags.body.flags as { key: string; name: string }[]).filter((f) =>
        f.key.startsWith(`w${writers}-`),
      );
      expect(written).toHaveLength(writers * rounds);
      for (const f of written) expect(f.name).toBe(`${f.key}!`);
      const rules = await sharedRules();
      expect(rules - rulesBefore).toBe(writers * rounds);
    }, 300_000);
  });
});
