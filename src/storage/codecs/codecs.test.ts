import { describe, expect, it } from 'vitest';
import {
  COMPARISON_TYPES,
  FLAG_TYPES,
  MATCH_TYPES,
  type RolloutSegment,
  SEGMENT_OPERATORS,
} from '../../domain/types.js';
import { flagTypeColumn, flagTypeOf, metadataColumn, metadataOf } from './flags.js';
import { rolloutRow, rolloutTypeOf, thresholdOf } from './rollouts.js';
import { segmentOperatorColumn, segmentOperatorOf } from './rules.js';
import { comparisonTypeColumn, comparisonTypeOf, matchTypeColumn, matchTypeOf } from './segments.js';
import { attachmentColumn, attachmentOf } from './variants.js';

// Every enum column: its names round-trip through the stored integer, and an integer outside the enum
// (or the same number as text) reads as the zero value.
const enums = [
  ['flags.type', FLAG_TYPES, flagTypeOf, flagTypeColumn],
  ['segments.match_type', MATCH_TYPES, matchTypeOf, matchTypeColumn],
  ['constraints.type', COMPARISON_TYPES, comparisonTypeOf, comparisonTypeColumn],
  ['rules.segment_operator', SEGMENT_OPERATORS, segmentOperatorOf, segmentOperatorColumn],
] as const;

describe('enum columns', () => {
  for (const [column, names, of, toColumn] of enums) {
    it.each(names.map((name, i) => [name, i] as const))(`${column}: %s is stored as %i`, (name, i) => {
      expect((toColumn as (n: string) => number)(name)).toBe(i);
      expect(of(i)).toBe(name);
      expect(of(String(i))).toBe(name);
    });
    it.each([-1, names.length, 99])(`${column}: %i reads as ${names[0]}`, (value) => {
      expect(of(value)).toBe(names[0]);
    });
  }

  it.each([
    [0, 'UNKNOWN_ROLLOUT_TYPE'],
    [1, 'SEGMENT_ROLLOUT_TYPE'],
    [2, 'THRESHOLD_ROLLOUT_TYPE'],
    [7, 'UNKNOWN_ROLLOUT_TYPE'],
  ] as const)('rollouts.type %i is %s', (value, name) => {
    expect(rolloutTypeOf(value)).toBe(name);
  });

  const segment: RolloutSegment = { segmentKeys: ['s'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true };
  it.each([
    ['a segment match', segment, 1],
    ['a threshold', undefined, 2],
  ])('a rollout with %s is stored with type %i', (_, segment, type) => {
    const row = rolloutRow('r', 'ns', 'f', { rank: 1, description: '', segment }, new Date(0));
    expect(row.type).toBe(type);
  });
});

describe('text and boolean columns', () => {
  it.each([
    [null, undefined],
    ['', undefined],
    ['{}', undefined],
    ['[1]', undefined],
    ['"text"', undefined],
    ['not json', undefined],
    ['{"team":"a"}', { team: 'a' }],
  ])('flags.metadata %j reads as %j', (text, metadata) => {
    expect(metadataOf(text)).toEqual(metadata);
  });

  it.each([
    [undefined, null],
    [{}, null],
    [{ team: 'a' }, '{"team":"a"}'],
  ])('metadata %j is stored as %j', (metadata, text) => {
    expect(metadataColumn(metadata)).toBe(text);
  });

  it.each([
    ['', null],
    ['{"a":1}', '{"a":1}'],
  ])('attachment %j is stored as %j and reads back', (attachment, column) => {
    expect(attachmentColumn(attachment)).toBe(column);
    expect(attachmentOf(column)).toBe(attachment);
  });

  it.each([
    [
      { percentage: 25, value: 1 },
      { percentage: 25, value: true },
    ],
    [
      { percentage: 50.5, value: 0 },
      { percentage: 50.5, value: false },
    ],
    [
      { percentage: 100, value: true },
      { percentage: 100, value: true },
    ],
  ])('threshold row %j reads as %j', (row, threshold) => {
    expect(thresholdOf(row)).toEqual(threshold);
  });
});
