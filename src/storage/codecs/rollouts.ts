// The codec of the rollouts table and its parts: a threshold (rollout_thresholds) or a segment match
// (rollout_segments, with one rollout_segment_references row per segment, in the order given).

import type { Insertable, Selectable } from 'kysely';
import {
  ROLLOUT_TYPES,
  type Rollout,
  type RolloutSegment,
  type RolloutThreshold,
  type RolloutType,
} from '../../domain/types.js';
import { enumIndex, enumName, toBool, toDate } from '../rows.js';
import type {
  RolloutSegmentReferencesTable,
  RolloutSegmentsTable,
  RolloutsTable,
  RolloutThresholdsTable,
} from '../schema.js';
import { percentageOf, rankOf, segmentOperatorColumn, segmentOperatorOf } from './rules.js';

export function rolloutTypeOf(value: number | string): RolloutType {
  return enumName(ROLLOUT_TYPES, value);
}

/** A rollout's type follows from its rule: a segment match or else a threshold. */
export function rolloutTypeFor(rule: { segment?: RolloutSegment | undefined }): RolloutType {
  return rule.segment ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE';
}

/** The rollout without its rule (threshold or segment match), which comes from its own tables. */
export function rolloutOf(row: Selectable<RolloutsTable>): Rollout {
  return {
    id: row.id,
    namespaceKey: row.namespace_key,
    flagKey: row.flag_key,
    type: rolloutTypeOf(row.type),
    rank: rankOf(row.rank),
    description: row.description,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export function rolloutRow(
  id: string,
  namespaceKey: string,
  flagKey: string,
  r: { rank: number; description: string; segment?: RolloutSegment | undefined },
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<RolloutsTable> {
  return {
    id,
    namespace_key: namespaceKey,
    flag_key: flagKey,
    type: enumIndex(ROLLOUT_TYPES, rolloutTypeFor(r)),
    description: r.description,
    rank: r.rank,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

export function thresholdOf(row: Pick<Selectable<RolloutThresholdsTable>, 'percentage' | 'value'>): RolloutThreshold {
  return { percentage: percentageOf(row.percentage), value: toBool(row.value) };
}

export function thresholdRow(
  id: string,
  namespaceKey: string,
  rolloutId: string,
  threshold: RolloutThreshold,
): Insertable<RolloutThresholdsTable> {
  return {
    id,
    namespace_key: namespaceKey,
    rollout_id: rolloutId,
    percentage: threshold.percentage,
    value: threshold.value,
  };
}

/** A segment match without its segment keys, which come from their own table. */
export function rolloutSegmentOf(
  row: Pick<Selectable<RolloutSegmentsTable>, 'value' | 'segment_operator'>,
): RolloutSegment {
  return { value: toBool(row.value), segmentOperator: segmentOperatorOf(row.segment_operator), segmentKeys: [] };
}

/** The columns of a segment match that an update replaces. */
export function rolloutSegmentColumns(segment: RolloutSegment) {
  return { value: segment.value, segment_operator: segmentOperatorColumn(segment.segmentOperator) };
}

export function rolloutSegmentRow(
  id: string,
  rolloutId: string,
  segment: RolloutSegment,
): Insertable<RolloutSegmentsTable> {
  return {
    id,
    rollout_id: rolloutId,
    value: segment.value,
    segment_operator: segmentOperatorColumn(segment.segmentOperator),
  };
}

/** A segment match's references, numbered so they read back in the order given. */
export function segmentReferenceRows(
  rolloutSegmentId: string,
  namespaceKey: string,
  segmentKeys: readonly string[],
): Insertable<RolloutSegmentReferencesTable>[] {
  return segmentKeys.map((segmentKey, position) => ({
    rollout_segment_id: rolloutSegmentId,
    namespace_key: namespaceKey,
    segment_key: segmentKey,
    position,
  }));
}
