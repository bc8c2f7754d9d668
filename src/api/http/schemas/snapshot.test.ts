// The client snapshot's text, rendered in steps: the same text whatever the step size, a pause after
// every stepSize flags, and the wire shape the client SDKs read (their own tests run against the
// real server in test/integration/snapshot.test.ts).

import { describe, expect, it } from 'vitest';
import { flagSource } from '../../../../test/helpers/flag-sources.js';
import { runCountingPauses } from '../../../../test/helpers/steps.js';
import type { FlagSource, NamespaceSource, Steps } from '../../../evaluation/index.js';
import { clientSnapshotJsonSteps, SnapshotLevel } from './snapshot.js';

const flag = (i: number): FlagSource =>
  flagSource(`f${i}`, i % 2 ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE', {
    variants: [{ id: `v${i}`, key: 'on', attachment: '' }],
    defaultVariant: { id: `v${i}`, key: 'on', attachment: '' },
    rules: [
      {
        id: `r${i}`,
        rank: 1,
        segmentKeys: ['pro'],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
        distributions: [{ id: `d${i}`, variantId: `v${i}`, rollout: 33.3 }],
      },
    ],
    rollouts: [
      {
        id: `o${i}`,
        rank: 1,
        type: 'SEGMENT_ROLLOUT_TYPE',
        description: '',
        segment: { segmentKeys: ['pro'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
      },
    ],
  });

const source: NamespaceSource = {
  namespaceKey: 'ns',
  revision: '1.1',
  segments: [
    {
      key: 'pro',
      name: 'Pro',
      description: '',
      matchType: 'ALL_MATCH_TYPE',
      constraints: [
        { id: 'c1', type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro', description: '' },
      ],
    },
  ],
  flags: Array.from({ length: 5 }, (_, i) => flag(i)),
};

/** The text and the number of pauses on the way. */
function run(steps: Steps<string>): { pauses: number; text: string } {
  const { pauses, value } = runCountingPauses(steps);
  return { pauses, text: value };
}

describe('clientSnapshotJsonSteps', () => {
  it('renders the same text whatever the step size, pausing after every stepSize flags', () => {
    const whole = run(clientSnapshotJsonSteps('ns', source, SnapshotLevel.DEFAULT_VARIANT, Number.POSITIVE_INFINITY));
    expect(whole.pauses).toBe(0);
    for (const [stepSize, pauses] of [
      [1, 5],
      [2, 2],
      [5, 1],
      [6, 0],
    ] as const) {
      const stepped = run(clientSnapshotJsonSteps('ns', source, SnapshotLevel.DEFAULT_VARIANT, stepSize));
      expect(stepped.text).toBe(whole.text);
      expect(stepped.pauses).toBe(pauses);
    }
  });

  it('is one JSON document in the wire shape, flags in source order, shared segments written out in each', () => {
    const snapshot = JSON.parse(run(clientSnapshotJsonSteps('ns', source, SnapshotLevel.DEFAULT_VARIANT)).text);
    expect(Object.keys(snapshot)).toEqual(['namespace', 'flags']);
    expect(snapshot.namespace).toEqual({ key: 'ns' });
    expect(snapshot.flags.map((f: { key: string }) => f.key)).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
    const variant = snapshot.flags[0];
    expect(variant.rules[0].segments[0]).toEqual({
      key: 'pro',
      name: '',
      description: '',
      matchType: 'ALL_SEGMENT_MATCH_TYPE',
      constraints: [
        { id: 'c1', type: 'STRING_CONSTRAINT_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' },
      ],
    });
    expect(variant.rules[0].distributions[0]).toMatchObject({ variantKey: 'on', rollout: 33.3 });
    expect(variant.defaultVariant).toEqual({ id: 'v0', key: 'on', attachment: '' });
    expect(snapshot.flags[2].rules[0].segments[0]).toEqual(variant.rules[0].segments[0]);
    const boolean = snapshot.flags[1];
    expect(boolean.rules).toEqual([]);
    expect(boolean.rollouts[0].segment).toMatchObject({ segmentOperator: 'AND_SEGMENT_OPERATOR', value: true });
    // Clients before 1.47 get no defaultVariant.
    const legacy = JSON.parse(run(clientSnapshotJsonSteps('ns', source, SnapshotLevel.ENTITY_ID)).text);
    expect(legacy.flags[0].defaultVariant).toBeUndefined();
  });

  it('renders a namespace that does not exist with no flags', () => {
    const missing = run(clientSnapshotJsonSteps('gone "ns"', undefined, SnapshotLevel.LEGACY, 1));
    expect(missing.pauses).toBe(0);
    expect(JSON.parse(missing.text)).toEqual({ namespace: { key: 'gone "ns"' }, flags: [] });
  });
});
