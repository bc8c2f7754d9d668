// Rollout JSON. A rollout carries one rule, `segment` or `threshold` (a proto oneof: the other is
// omitted). Segment rules follow Flipt's single-segment quirk: one segment is shown in `segmentKey`
// with `segmentKeys: []`, several in `segmentKeys` with `segmentKey: ""`. Lists use the key "rules".

import Type from 'typebox';
import { ROLLOUT_TYPES, SEGMENT_OPERATORS } from '../../../domain/types.js';
import { EnumLike, IntLike, Nullable, NumberLike, Timestamp } from './common.js';

const RolloutSegmentSchema = Type.Object({
  segmentKey: Type.String(),
  value: Type.Boolean(),
  segmentKeys: Type.Array(Type.String()),
  segmentOperator: Type.Enum(SEGMENT_OPERATORS),
});

const RolloutThresholdSchema = Type.Object({
  percentage: Type.Number(),
  value: Type.Boolean(),
});

export const RolloutSchema = Type.Object(
  {
    id: Type.String(),
    namespaceKey: Type.String(),
    flagKey: Type.String(),
    type: Type.Enum(ROLLOUT_TYPES),
    rank: Type.Integer(),
    description: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    segment: Type.Optional(RolloutSegmentSchema),
    threshold: Type.Optional(RolloutThresholdSchema),
  },
  { $id: 'Rollout' },
);

export const RolloutListSchema = Type.Object({
  rules: Type.Array(RolloutSchema),
  nextPageToken: Type.String(),
  totalCount: Type.Integer(),
});

const OptionalString = Type.Optional(Nullable(Type.String()));
const OptionalBoolean = Type.Optional(Nullable(Type.Boolean()));

const RolloutSegmentBody = Type.Object({
  segmentKey: OptionalString,
  segmentKeys: Type.Optional(Nullable(Type.Array(Type.String()))),
  segmentOperator: Type.Optional(Nullable(EnumLike(SEGMENT_OPERATORS, 'OR_SEGMENT_OPERATOR or AND_SEGMENT_OPERATOR'))),
  value: OptionalBoolean,
});

const RolloutThresholdBody = Type.Object({
  percentage: Type.Optional(Nullable(NumberLike)),
  value: OptionalBoolean,
});

/** Create and update share one body (update ignores `rank`). */
export const RolloutBody = Type.Object({
  rank: Type.Optional(Nullable(IntLike)),
  description: OptionalString,
  segment: Type.Optional(Nullable(RolloutSegmentBody)),
  threshold: Type.Optional(Nullable(RolloutThresholdBody)),
});

export const OrderRolloutsBody = Type.Object({
  rolloutIds: Type.Optional(Nullable(Type.Array(Type.String()))),
});
