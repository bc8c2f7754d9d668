import { describe, expect, it } from 'vitest';
import { InternalError } from '../domain/errors.js';
import { evaluateVariant } from './evaluate.js';
import { compileSnapshot } from './snapshot.js';
import { type NamespaceSource, parseNamespaceSource, sourceFromJson, sourceToJson } from './source.js';

const source: NamespaceSource = {
  namespaceKey: 'prod',
  revision: '2024-05-01T10:11:12.123456Z',
  segments: [
    {
      key: 'beta',
      name: 'Beta',
      description: 'beta users',
      matchType: 'ANY_MATCH_TYPE',
      constraints: [
        { id: 'c1', type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro', description: '' },
      ],
    },
  ],
  flags: [
    {
      key: 'color',
      name: 'Color',
      description: '',
      enabled: true,
      type: 'VARIANT_FLAG_TYPE',
      createdAt: '2024-05-01T10:11:12.123456Z',
      updatedAt: '2024-05-01T10:11:12.123456Z',
      defaultVariant: { id: 'v2', key: 'red', attachment: '' },
      variants: [
        { id: 'v1', key: 'blue', attachment: '{"color":"#00f"}' },
        { id: 'v2', key: 'red', attachment: '' },
      ],
      rules: [
        {
          id: 'r1',
          rank: 1,
          segmentKeys: ['beta'],
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          distributions: [{ id: 'd1', variantId: 'v1', rollout: 33.33 }],
        },
      ],
      rollouts: [],
    },
    {
      key: 'new-ui',
      name: 'New UI',
      description: '',
      enabled: false,
      type: 'BOOLEAN_FLAG_TYPE',
      createdAt: '2024-05-01T10:11:12Z',
      updatedAt: '2024-05-01T10:11:12Z',
      variants: [],
      rules: [],
      rollouts: [
        {
          id: 'o1',
          rank: 1,
          type: 'SEGMENT_ROLLOUT_TYPE',
          description: '',
          segment: { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
        },
        {
          id: 'o2',
          rank: 2,
          type: 'THRESHOLD_ROLLOUT_TYPE',
          description: '',
          threshold: { percentage: 50, value: true },
        },
      ],
    },
  ],
};

describe('NamespaceSource JSON', () => {
  it('round-trips unchanged', () => {
    expect(sourceFromJson(sourceToJson(source))).toEqual(source);
    expect(JSON.parse(JSON.stringify(source))).toEqual(source);
  });

  it('compiles the same after a round trip', () => {
    const a = compileSnapshot(source);
    const b = compileSnapshot(sourceFromJson(sourceToJson(source)));
    for (const id of ['1', '2', '3', 'x']) {
      expect(evaluateVariant(b, 'color', id, { plan: 'pro' })).toEqual(
        evaluateVariant(a, 'color', id, { plan: 'pro' }),
      );
    }
  });

  it('rejects what is not a source with an InternalError naming the field', () => {
    expect(() => sourceFromJson('{')).toThrowError(new InternalError('invalid namespace source: not JSON'));
    expect(() => parseNamespaceSource([])).toThrowError('invalid namespace source: source must be an object');
    const broken = JSON.parse(sourceToJson(source)) as { flags: Array<{ rules: Array<{ rank: unknown }> }> };
    const firstRule = broken.flags[0]?.rules[0];
    if (firstRule) firstRule.rank = '1';
    expect(() => parseNamespaceSource(broken)).toThrowError(
      'invalid namespace source: source.flags[0].rules[0].rank must be a number',
    );
    expect(() => parseNamespaceSource({ ...source, revision: 7 })).toThrowError(InternalError);
  });
});
