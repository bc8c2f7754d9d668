// Segment and constraint JSON: request bodies as lenient as Flipt's decoder (enum names or numbers,
// null meaning absent) and responses with Flipt's keys in its order.

import Type from 'typebox';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../../domain/types.js';
import { EnumLike, Nullable, Timestamp } from './common.js';

export const ConstraintSchema = Type.Object(
  {
    id: Type.String(),
    segmentKey: Type.String(),
    type: Type.Enum(COMPARISON_TYPES),
    property: Type.String(),
    operator: Type.String(),
    value: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    namespaceKey: Type.String(),
    description: Type.String(),
  },
  { $id: 'Constraint' },
);

export const SegmentSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    description: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    constraints: Type.Array(ConstraintSchema),
    matchType: Type.Enum(MATCH_TYPES),
    namespaceKey: Type.String(),
  },
  { $id: 'Segment' },
);

export const SegmentListSchema = Type.Object({
  segments: Type.Array(SegmentSchema),
  nextPageToken: Type.String(),
  totalCount: Type.Integer(),
});

const OptionalString = Type.Optional(Nullable(Type.String()));

/** One constraint of a segment written with its constraints (a Vexil extension, ADR 0036). */
const SegmentConstraintBody = Type.Object({
  id: OptionalString,
  type: Type.Optional(Nullable(EnumLike(COMPARISON_TYPES, 'comparison type'))),
  property: OptionalString,
  operator: OptionalString,
  value: OptionalString,
  description: OptionalString,
});

/** Create and update share one body; the path's key wins over a `key` in the body. */
export const SegmentBody = Type.Object({
  /** Vexil extension: the segment's whole list of constraints, written with it in one transaction. */
  constraints: Type.Optional(Nullable(Type.Array(SegmentConstraintBody))),
  /** Read by the legacy unprefixed routes only; a path namespace wins. */
  namespaceKey: OptionalString,
  key: OptionalString,
  name: OptionalString,
  description: OptionalString,
  matchType: Type.Optional(Nullable(EnumLike(MATCH_TYPES, 'ALL_MATCH_TYPE or ANY_MATCH_TYPE'))),
});

export const ConstraintBody = Type.Object({
  /** Read by the legacy unprefixed routes only; a path namespace wins. */
  namespaceKey: OptionalString,
  type: Type.Optional(Nullable(EnumLike(COMPARISON_TYPES, 'comparison type'))),
  property: OptionalString,
  operator: OptionalString,
  value: OptionalString,
  description: OptionalString,
});
