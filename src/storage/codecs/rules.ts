// The codec of the rules table and the two it owns: rule_segments (a rule's segments in the order
// given) and distributions (how its matches split between variants).

import type { Insertable, Selectable } from 'kysely';
import { type Distribution, type Rule, SEGMENT_OPERATORS, type SegmentOperator } from '../../domain/types.js';
import { enumIndex, enumName, toDate } from '../rows.js';
import type { DistributionsTable, RuleSegmentsTable, RulesTable } from '../schema.js';

/** Also the rollout_segments table's operator column. */
export function segmentOperatorOf(value: number | string): SegmentOperator {
  return enumName(SEGMENT_OPERATORS, value);
}

export function segmentOperatorColumn(operator: SegmentOperator): number {
  return enumIndex(SEGMENT_OPERATORS, operator);
}

/** Numeric columns are read through Number, whatever JavaScript type a driver hands back. */
export function rankOf(value: number | string): number {
  return Number(value);
}

export function ruleOf(row: Selectable<RulesTable>, segmentKeys: string[], distributions: Distribution[]): Rule {
  return {
    id: row.id,
    flagKey: row.flag_key,
    namespaceKey: row.namespace_key,
    rank: rankOf(row.rank),
    segmentKeys,
    segmentOperator: segmentOperatorOf(row.segment_operator),
    distributions,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export function ruleRow(
  id: string,
  namespaceKey: string,
  flagKey: string,
  rule: { rank: number; segmentOperator: SegmentOperator },
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<RulesTable> {
  return {
    id,
    namespace_key: namespaceKey,
    flag_key: flagKey,
    rank: rule.rank,
    segment_operator: segmentOperatorColumn(rule.segmentOperator),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/** A rule's segment references, numbered so they read back in the order given. */
export function ruleSegmentRows(
  ruleId: string,
  namespaceKey: string,
  segmentKeys: readonly string[],
): Insertable<RuleSegmentsTable>[] {
  return segmentKeys.map((segmentKey, position) => ({
    rule_id: ruleId,
    namespace_key: namespaceKey,
    segment_key: segmentKey,
    position,
  }));
}

/** A float32 percentage: a distribution's rollout, a threshold's percentage. */
export function percentageOf(value: number | string): number {
  return Number(value);
}

export function distributionOf(row: Selectable<DistributionsTable>): Distribution {
  return {
    id: row.id,
    ruleId: row.rule_id,
    variantId: row.variant_id,
    rollout: percentageOf(row.rollout),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export function distributionRow(
  id: string,
  ruleId: string,
  variantId: string,
  rollout: number,
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<DistributionsTable> {
  return {
    id,
    rule_id: ruleId,
    variant_id: variantId,
    rollout,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
