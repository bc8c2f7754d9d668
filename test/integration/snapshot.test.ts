import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { Seeder, seedRichNamespace } from './evaluation-seed.js';

const URL = '/internal/v1/evaluation/snapshot/namespace';
const CURRENT = { 'x-flipt-accept-server-version': '1.47.0' };

interface WireFlag {
  key: string;
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  rules: any[];
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  rollouts: any[];
  defaultVariant?: { key: string };
}

describeEachBackend('client-side snapshot (/internal/v1/evaluation/snapshot)', (backend) => {
  let t: TestApp;
  const get = (namespace: string, headers: Record<string, string> = {}) =>
    call(t.app, 'GET', `${URL}/${namespace}`, undefined, headers);
  const flag = (body: { flags: WireFlag[] }, key: string) => body.flags.find((f) => f.key === key) as WireFlag;

  beforeAll(async () => {
    t = await startTestApp(backend);
    await seedRichNamespace(new Seeder((method, url, body) => call(t.app, method, url, body)));
  });
  afterAll(async () => t?.close());

  describe('shape', () => {
    it('every flag, disabled ones too, in creation order, keys in proto order', async () => {
      const res = await get('default', CURRENT);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['namespace', 'flags']);
      expect(res.body.namespace).toEqual({ key: 'default' });
      expect(res.body.flags.map((f: WireFlag) => f.key)).toEqual([
        'color',
        'size',
        'theme',
        'layout',
        'new-ui',
        'dark-mode',
        'kill-switch',
      ]);
      expect(Object.keys(flag(res.body, 'color'))).toEqual([
        'key',
        'name',
        'description',
        'enabled',
        'type',
        'createdAt',
        'updatedAt',
        'rules',
        'rollouts',
        'defaultVariant',
      ]);
      expect(Object.keys(flag(res.body, 'new-ui'))).toEqual([
        'key',
        'name',
        'description',
        'enabled',
        'type',
        'createdAt',
        'updatedAt',
        'rules',
        'rollouts',
      ]);
    });

    it('variant flags carry rules (each once, in rank order) with distributions and segments', async () => {
      const color = flag((await get('default', CURRENT)).body, 'color');
      expect(color).toMatchObject({ type: 'VARIANT_FLAG_TYPE', enabled: true, rollouts: [] });
      expect(color.defaultVariant).toMatchObject({ key: 'red', attachment: '' });
      expect(color.rules.map((r) => r.rank)).toEqual([1, 2, 3]);
      const [first, second] = color.rules;
      expect(Object.keys(first)).toEqual(['id', 'segments', 'rank', 'segmentOperator', 'distributions']);
      expect(first.segmentOperator).toBe('AND_SEGMENT_OPERATOR');
      expect(first.segments.map((s: { key: string }) => s.key)).toEqual(['pro', 'eu']);
      // Flipt emits a two-segment rule twice with doubled distributions; Vexil once.
      expect(first.distributions).toHaveLength(1);
      expect(first.distributions[0]).toMatchObject({ id: '', ruleId: '', variantKey: 'blue', rollout: 100 });
      expect(first.distributions[0].variantAttachment).toBe('{"hex":"#00f","dark":true}');
      expect(second.distributions.map((d: { rollout: number }) => d.rollout)).toEqual([33.33, 33.33, 33.34]);
      const eu = first.segments[1];
      expect(eu).toEqual({
        key: 'eu',
        name: '',
        description: '',
        matchType: 'ANY_SEGMENT_MATCH_TYPE',
        constraints: [
          expect.objectContaining({
            type: 'STRING_CONSTRAINT_COMPARISON_TYPE',
            property: 'country',
            operator: 'isoneof',
          }),
          expect.objectContaining({
            type: 'STRING_CONSTRAINT_COMPARISON_TYPE',
            property: 'region',
            operator: 'eq',
            value: 'eu',
          }),
        ],
      });
      expect(Object.keys(eu.constraints[0])).toEqual(['id', 'type', 'property', 'operator', 'value']);
    });

    it('0 % distributions are kept, as Flipt lists them', async () => {
      const layout = flag((await get('default', CURRENT)).body, 'layout');
      expect(
        layout.rules[2].distributions.map((d: { variantKey: string; rollout: number }) => [d.variantKey, d.rollout]),
      ).toEqual([
        ['list', 0],
        ['grid', 60],
      ]);
      expect(layout.rules[0].distributions).toEqual([]);
    });

    it('boolean flags carry rollouts: segment and threshold rules', async () => {
      const dark = flag((await get('default', CURRENT)).body, 'dark-mode');
      expect(dark).toMatchObject({ type: 'BOOLEAN_FLAG_TYPE', enabled: true, rules: [] });
      expect(dark.rollouts[0]).toMatchObject({
        type: 'SEGMENT_ROLLOUT_TYPE',
        rank: 1,
        segment: { value: false, segmentOperator: 'AND_SEGMENT_OPERATOR' },
      });
      expect(dark.rollouts[0].segment.segments.map((s: { key: string }) => s.key)).toEqual(['adults', 'eu']);
      expect(dark.rollouts[1]).toEqual({
        type: 'THRESHOLD_ROLLOUT_TYPE',
        rank: 2,
        threshold: { percentage: 33.3, value: false },
      });
    });
  });

  describe('X-Flipt-Accept-Server-Version', () => {
    const entityIdType = (body: { flags: WireFlag[] }) => {
      const layout = flag(body, 'layout');
      return layout.rules[1].segments.find((s: { key: string }) => s.key === 'vip').constraints[0].type;
    };

    it('absent (= 1.37.1): no defaultVariant, entityId constraints degraded to UNKNOWN', async () => {
      const body = (await get('default')).body;
      expect(flag(body, 'color').defaultVariant).toBeUndefined();
      expect(entityIdType(body)).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
    });

    it('1.38.0: entityId constraints, still no defaultVariant; 1.47.0 and later: both', async () => {
      const mid = (await get('default', { 'x-flipt-accept-server-version': 'v1.38' })).body;
      expect(entityIdType(mid)).toBe('ENTITY_ID_CONSTRAINT_COMPARISON_TYPE');
      expect(flag(mid, 'color').defaultVariant).toBeUndefined();
      for (const version of ['1.47.0', '1.61.1', '2.0.0']) {
        const current = (await get('default', { 'x-flipt-accept-server-version': version })).body;
        expect(entityIdType(current)).toBe('ENTITY_ID_CONSTRAINT_COMPARISON_TYPE');
        expect(flag(current, 'color').defaultVariant?.key).toBe('red');
      }
      const prerelease = (await get('default', { 'x-flipt-accept-server-version': '1.47.0-rc.1' })).body;
      expect(flag(prerelease, 'color').defaultVariant).toBeUndefined();
      const garbage = (await get('default', { 'x-flipt-accept-server-version': 'banana' })).body;
      expect(entityIdType(garbage)).toBe('UNKNOWN_CONSTRAINT_COMPARISON_TYPE');
    });
  });

  describe('ETag', () => {
    it('is the hex SHA-1 of the namespace revision; If-None-Match answers 304 with no body', async () => {
      const res = await get('default', CURRENT);
      const revision = (await call(t.app, 'POST', '/evaluate/v1/boolean', { flagKey: 'kill-switch', entityId: 'x' }))
        .headers['x-vexil-revision'] as string;
      const etag = res.headers.etag as string;
      expect(etag).toBe(createHash('sha1').update(revision).digest('hex'));

      const again = await t.app.http.inject({
        method: 'GET',
        url: `${URL}/default`,
        headers: { ...CURRENT, 'if-none-match': etag },
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect((await get('default', { ...CURRENT, 'if-none-match': `"${etag}"` })).status).toBe(200);
    });

    it('changes with every write, and the next snapshot shows it', async () => {
      const before = await get('default', CURRENT);
      await call(t.app, 'PUT', '/api/v1/namespaces/default/flags/theme', {
        name: 'Theme',
        description: 'changed',
        enabled: true,
      });
      const after = await get('default', { ...CURRENT, 'if-none-match': before.headers.etag as string });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(flag(after.body, 'theme')).toMatchObject({ name: 'Theme', description: 'changed' });
    });

    it('a namespace that does not exist: 200, no flags, no ETag', async () => {
      const res = await get('ghost', CURRENT);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ namespace: { key: 'ghost' }, flags: [] });
      expect(res.headers.etag).toBeUndefined();
    });
  });
});
