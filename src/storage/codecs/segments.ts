// The codec of the segments and constraints tables (a constraint lives and dies with its segment).

import type { Insertable, Selectable } from 'kysely';
import {
  COMPARISON_TYPES,
  type ComparisonType,
  type Constraint,
  MATCH_TYPES,
  type MatchType,
  type Segment,
} from '../../domain/types.js';
import { enumIndex, enumName, toDate } from '../rows.js';
import type { ConstraintsTable, SegmentsTable } from '../schema.js';
import type { ConstraintFields, SegmentFields } from '../store.js';

export function matchTypeOf(value: number | string): MatchType {
  return enumName(MATCH_TYPES, value);
}

export function matchTypeColumn(matchType: MatchType): number {
  return enumIndex(MATCH_TYPES, matchType);
}

export function comparisonTypeOf(value: number | string): ComparisonType {
  return enumName(COMPARISON_TYPES, value);
}

export function comparisonTypeColumn(type: ComparisonType): number {
  return enumIndex(COMPARISON_TYPES, type);
}

/** A segment of a whole-namespace read: its constraints are joined in afterwards. */
export function segmentToFill<C>(row: Pick<SegmentsTable, 'key' | 'name' | 'description' | 'match_type'>): {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
  constraints: C[];
} {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    matchType: matchTypeOf(row.match_type),
    constraints: [],
  };
}

export function segmentOf(row: Selectable<SegmentsTable>, constraints: Constraint[]): Segment {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    matchType: matchTypeOf(row.match_type),
    namespaceKey: row.namespace_key,
    constraints,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** The columns a segment's update replaces. */
export function segmentFieldColumns(s: SegmentFields) {
  return { name: s.name, description: s.description, match_type: matchTypeColumn(s.matchType) };
}

export function segmentRow(
  namespaceKey: string,
  key: string,
  s: SegmentFields,
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<SegmentsTable> {
  return {
    namespace_key: namespaceKey,
    key,
    name: s.name,
    description: s.description,
    match_type: matchTypeColumn(s.matchType),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

export function constraintOf(row: Selectable<ConstraintsTable>): Constraint {
  return {
    id: row.id,
    segmentKey: row.segment_key,
    namespaceKey: row.namespace_key,
    type: comparisonTypeOf(row.type),
    property: row.property,
    operator: row.operator,
    value: row.value,
    description: row.description ?? '',
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** The columns a constraint's update replaces. */
export function constraintFieldColumns(c: ConstraintFields) {
  return {
    type: comparisonTypeColumn(c.type),
    property: c.property,
    operator: c.operator,
    value: c.value,
    description: c.description,
  };
}

export function constraintRow(
  id: string,
  namespaceKey: string,
  segmentKey: string,
  c: ConstraintFields,
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<ConstraintsTable> {
  return {
    id,
    namespace_key: namespaceKey,
    segment_key: segmentKey,
    type: comparisonTypeColumn(c.type),
    property: c.property,
    operator: c.operator,
    value: c.value,
    description: c.description,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
