// The evaluation read model (storage/evaluation-source.ts) on every backend: what it loads for a
// namespace must be exactly what the management API shows of it (flags with variants and default
// variant, rules with segment keys and distributions, rollouts, segments with constraints), in the
// orders evaluation depends on. The expected source is built from the API's answers, not from SQL.

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FlagSource, NamespaceSource, RolloutSource, SegmentSource } from '../../src/evaluation/source.js';
import { loadNamespaceSource } from '../../src/storage/evaluation-source.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { Seeder, seedRichNamespace } from './evaluation-seed.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Wire = any;

const iso = (t: string) => new Date(t).toISOString();
// Flipt's wire form: one segment in `segmentKey` (and `segmentKeys` empty), several in `segmentKeys`.
const keysOf = (w: Wire): string[] => (w.segmentKeys?.length ? w.segmentKeys : [w.segmentKey]);

/**
 * Percentages as float32, as Flipt stores them and evaluation reads them: SQLite hands back the
 * float32 value widened (33.29999923706055), the API writes the shortest form (33.3).
 */
function float32(source: NamespaceSource): NamespaceSource {
  return {
    ...source,
    flags: source.flags.map((f) => ({
      ...f,
      rules: f.rules.map((r) => ({
        ...r,
        distributions: r.distributions.map((d) => ({ ...d, rollout: Math.fround(d.rollout) })),
      })),
      rollouts: f.rollouts.map((r) =>
        r.threshold ? { ...r, threshold: { ...r.threshold, percentage: Math.fround(r.threshold.percentage) } } : r,
      ),
    })),
  };
}

describeEachBackend('evaluation source', (backend) => {
  let t: TestApp;
  const get = async (url: string): Promise<Wire> => {
    const res = await call(t.app, 'GET', url);
    expect(res.status, url).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestApp(backend);
    const seeder = new Seeder((method, url, body) => call(t.app, method, url, body));
    await seedRichNamespace(seeder);
    // A second namespace, whose data must not leak into the first.
    const other = new Seeder((method, url, body) => call(t.app, method, url, body), 'other');
    await other.namespaceExists();
    await other.segment({ key: 'pro' });
    await other.variantFlag({ key: 'color', variants: [{ key: 'x' }], rules: [{ segments: ['pro'] }] });
    await other.booleanFlag({ key: 'new-ui', rollouts: [{ threshold: { percentage: 5, value: true } }] });
  });
  afterAll(async () => t?.close());

  /** The namespace as the management API shows it, in the source's shape. */
  async function fromApi(namespace: string): Promise<Omit<NamespaceSource, 'revision'>> {
    const base = `/api/v1/namespaces/${namespace}`;
    const flags: FlagSource[] = [];
    for (const f of (await get(`${base}/flags?limit=100`)).flags) {
      const rules = (await get(`${base}/flags/${f.key}/rules?limit=100`)).rules;
      const rollouts = (await get(`${base}/flags/${f.key}/rollouts?limit=100`)).rules;
      const variant = (v: Wire) => ({ id: v.id, key: v.key, attachment: v.attachment ?? '' });
      flags.push({
        key: f.key,
        name: f.name,
        description: f.description,
        enabled: f.enabled,
        type: f.type,
        createdAt: iso(f.createdAt),
        updatedAt: iso(f.updatedAt),
        ...(f.defaultVariant ? { defaultVariant: variant(f.defaultVariant) } : {}),
        variants: f.variants.map(variant),
        rules: rules.map((r: Wire) => ({
          id: r.id,
          rank: r.rank,
          segmentKeys: keysOf(r),
          segmentOperator: r.segmentOperator,
          distributions: r.distributions.map((d: Wire) => ({ id: d.id, variantId: d.variantId, rollout: d.rollout })),
        })),
        rollouts: rollouts.map(
          (r: Wire): RolloutSource => ({
            id: r.id,
            rank: r.rank,
            type: r.type,
            description: r.description,
            ...(r.threshold ? { threshold: { percentage: r.threshold.percentage, value: r.threshold.value } } : {}),
            ...(r.segment
              ? {
                  segment: {
                    value: r.segment.value,
                    segmentOperator: r.segment.segmentOperator,
                    segmentKeys: keysOf(r.segment),
                  },
                }
              : {}),
          }),
        ),
      });
    }
    const segments: SegmentSource[] = (await get(`${base}/segments?limit=100`)).segments.map((s: Wire) => ({
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: s.matchType,
      constraints: s.constraints.map((c: Wire) => ({
        id: c.id,
        type: c.type,
        property: c.property,
        operator: c.operator,
        value: c.value,
        description: c.description,
      })),
    }));
    return { namespaceKey: namespace, flags, segments };
  }

  it('loads exactly what the management API shows, namespace by namespace', async () => {
    for (const namespace of ['default', 'other']) {
      const source = await loadNamespaceSource(t.app.db.kysely, t.app.db.dialect, namespace);
      const expected = await fromApi(namespace);
      expect(float32(source as NamespaceSource)).toEqual({
        ...float32({ ...expected, revision: '' }),
        revision: expect.stringMatching(/^\d+\.\d+$/),
      });
    }
  });

  it('has every part the seed made (so the comparison above is not of two empty lists)', async () => {
    const source = (await loadNamespaceSource(t.app.db.kysely, t.app.db.dialect, 'default')) as NamespaceSource;
    const flag = (key: string) => source.flags.find((f) => f.key === key) as FlagSource;
    expect(source.flags.map((f) => f.key)).toEqual([
      'color',
      'size',
      'theme',
      'layout',
      'new-ui',
      'dark-mode',
      'kill-switch',
    ]);
    expect(flag('color').defaultVariant).toMatchObject({ key: 'red', attachment: '' });
    expect(flag('color').variants.map((v) => v.key)).toEqual(['red', 'green', 'blue']);
    expect(flag('color').rules[1]?.distributions.map((d) => d.rollout)).toEqual([33.33, 33.33, 33.34]);
    expect(flag('layout').rules.map((r) => r.segmentKeys)).toEqual([['beta'], ['vip', 'recent'], ['staff', 'eu']]);
    expect(flag('dark-mode').rollouts.map((r) => r.type)).toEqual([
      'SEGMENT_ROLLOUT_TYPE',
      'THRESHOLD_ROLLOUT_TYPE',
      'SEGMENT_ROLLOUT_TYPE',
    ]);
    expect(flag('dark-mode').rollouts[0]?.segment).toEqual({
      value: false,
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      segmentKeys: ['adults', 'eu'],
    });
    expect(source.segments.find((s) => s.key === 'staff')?.constraints.map((c) => c.operator)).toEqual([
      'suffix',
      'neq',
      'lt',
    ]);
  });

  it('gives the event loop a turn before each of its eleven tables', async () => {
    // SQLite answers synchronously: without the turns, nothing else would run until the load ended.
    let loading = true;
    let turns = 0;
    const countTurn = () => {
      turns++;
      if (loading) setImmediate(countTurn);
    };
    const source = loadNamespaceSource(t.app.db.kysely, t.app.db.dialect, 'default').finally(() => {
      loading = false;
    });
    setImmediate(countTurn);
    expect((await source)?.flags).toHaveLength(7);
    expect(turns).toBeGreaterThanOrEqual(11);
  });

  it('answers undefined for a namespace that does not exist', async () => {
    expect(await loadNamespaceSource(t.app.db.kysely, t.app.db.dialect, 'missing')).toBeUndefined();
  });
});
