// Wire shapes of rules and distributions (Flipt v1 JSON, keys in proto field order) and their request
// bodies. A rule with one segment shows it in `segmentKey` with `segmentKeys: []`; otherwise
// `segmentKey` is "" and `segmentKeys` holds them all (Flipt's quirk, clients rely on it).

import Type from 'typebox';
import { SEGMENT_OPERATORS } from '../../../domain/types.js';
import { EnumLike, IntLike, NumberLike, Timestamp } from './common.js';
import { OptionalNullable } from './flags.js';

export const DistributionSchema = Type.Object(
  {
    id: Type.String(),
    ruleId: Type.String(),
    variantId: Type.String(),
    rollout: Type.Number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Distribution' },
);

export const RuleSchema = Type.Object(
  {
    id: Type.String(),
    flagKey: Type.String(),
    segmentKey: Type.String(),
    distributions: Type.Array(DistributionSchema),
    rank: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    namespaceKey: Type.String(),
    segmentKeys: Type.Array(Type.String()),
    segmentOperator: Type.Enum(SEGMENT_OPERATORS),
  },
  { $id: 'Rule' },
);

export const RuleListSchema = Type.Object({
  rules: Type.Array(RuleSchema),
  nextPageToken: Type.String(),
  totalCount: Type.Integer(),
});

const ruleFields = {
  id: OptionalNullable(Type.String()),
  flagKey: OptionalNullable(Type.String()),
  segmentKey: OptionalNullable(Type.String()),
  segmentKeys: OptionalNullable(Type.Array(Type.String())),
  segmentOperator: OptionalNullable(EnumLike(SEGMENT_OPERATORS)),
  namespaceKey: OptionalNullable(Type.String()),
  /** Vexil extension: the rule's whole split, written with it in one transaction (ADR 0036). */
  distributions: OptionalNullable(
    Type.Array(Type.Object({ variantId: OptionalNullable(Type.String()), rollout: OptionalNullable(NumberLike) })),
  ),
};

export const RuleCreateBody = Type.Object({ ...ruleFields, rank: OptionalNullable(IntLike) });

/** The rank is not part of an update (Flipt changes ranks only through order); a sent rank is ignored. */
export const RuleUpdateBody = Type.Object(ruleFields);

export const RuleOrderBody = Type.Object({
  ruleIds: OptionalNullable(Type.Array(Type.String())),
  flagKey: OptionalNullable(Type.String()),
  namespaceKey: OptionalNullable(Type.String()),
});

export const DistributionBody = Type.Object({
  id: OptionalNullable(Type.String()),
  flagKey: OptionalNullable(Type.String()),
  ruleId: OptionalNullable(Type.String()),
  variantId: OptionalNullable(Type.String()),
  rollout: OptionalNullable(NumberLike),
  namespaceKey: OptionalNullable(Type.String()),
});

export const DistributionDeleteQuery = Type.Object({
  variantId: Type.Optional(Type.String()),
  variant_id: Type.Optional(Type.String()),
  namespaceKey: Type.Optional(Type.String()),
  namespace_key: Type.Optional(Type.String()),
});
