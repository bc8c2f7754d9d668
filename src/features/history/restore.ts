// Writes recorded states back (revert, issue 28): rows with their original ids and timestamps, so a
// reverted resource reads back through the API exactly as it was. The states are the JSON the change
// log holds (domain objects, dates as ISO text). Driver errors are the caller's to turn into a clear
// precondition failure.

import { sql } from 'kysely';
import type { Constraint, Distribution, Flag, Namespace, Rollout, Rule, Segment, Variant } from '../../domain/types.js';
import { flagRow, metadataColumn } from '../../storage/codecs/flags.js';
import { rolloutRow, rolloutSegmentRow, segmentReferenceRows, thresholdRow } from '../../storage/codecs/rollouts.js';
import { distributionRow, ruleRow, ruleSegmentRows, segmentOperatorColumn } from '../../storage/codecs/rules.js';
import {
  constraintFieldColumns,
  constraintRow,
  segmentFieldColumns,
  segmentRow,
} from '../../storage/codecs/segments.js';
import { variantFieldColumns, variantRow } from '../../storage/codecs/variants.js';
import type { Tx } from '../../storage/transaction.js';

const at = (value: Date | string): Date => new Date(value);

export async function insertNamespaceRow(tx: Tx, ns: Namespace): Promise<void> {
  await tx
    .insertInto('namespaces')
    .values({
      key: ns.key,
      name: ns.name,
      description: ns.description,
      protected: ns.protected,
      // A namespace brought back keeps its creation time, which its revision tags include: a count no
      // earlier life of it can have reached keeps them from repeating an ETag a client still holds.
      revision: Date.now(),
      created_at: at(ns.createdAt),
      updated_at: at(ns.updatedAt),
      state_modified_at: new Date(),
    })
    .execute();
}

export async function updateNamespaceRow(tx: Tx, ns: Namespace): Promise<void> {
  await tx
    .updateTable('namespaces')
    .set({ name: ns.name, description: ns.description, updated_at: at(ns.updatedAt) })
    .where('key', '=', ns.key)
    .execute();
}

/** The flag row only (its variants are untouched); the default variant must exist. */
export async function updateFlagRow(tx: Tx, flag: Flag): Promise<number> {
  const result = await tx
    .updateTable('flags')
    .set({
      name: flag.name,
      description: flag.description,
      enabled: flag.enabled,
      default_variant_id: flag.defaultVariant?.id ?? null,
      metadata: metadataColumn(flag.metadata),
      updated_at: at(flag.updatedAt),
    })
    .where('namespace_key', '=', flag.namespaceKey)
    .where('key', '=', flag.key)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A deleted flag with its variants, rules (with distributions) and rollouts. */
export async function insertFlag(tx: Tx, flag: Flag & { rules?: Rule[]; rollouts?: Rollout[] }): Promise<void> {
  // Flags ↔ variants reference each other: the flag first without its default, the default last.
  await tx
    .insertInto('flags')
    .values(flagRow(flag.namespaceKey, flag, at(flag.createdAt), at(flag.updatedAt)))
    .execute();
  for (const variant of flag.variants) await insertVariantRow(tx, variant);
  if (flag.defaultVariant) {
    await tx
      .updateTable('flags')
      .set({ default_variant_id: flag.defaultVariant.id })
      .where('namespace_key', '=', flag.namespaceKey)
      .where('key', '=', flag.key)
      .execute();
  }
  for (const rule of flag.rules ?? []) await insertRule(tx, rule);
  for (const rollout of flag.rollouts ?? []) await insertRollout(tx, rollout);
}

export async function insertVariantRow(tx: Tx, v: Variant): Promise<void> {
  await tx
    .insertInto('variants')
    .values(variantRow(v.id, v.namespaceKey, v.flagKey, v, at(v.createdAt), at(v.updatedAt)))
    .execute();
}

/** Makes the variant its flag's default again, unless the flag has one now. */
export async function setDefaultVariantIfNone(tx: Tx, ns: string, flagKey: string, variantId: string): Promise<void> {
  await tx
    .updateTable('flags')
    .set({ default_variant_id: variantId })
    .where('namespace_key', '=', ns)
    .where('key', '=', flagKey)
    .where('default_variant_id', 'is', null)
    .execute();
}

export async function updateVariantRow(tx: Tx, v: Variant): Promise<number> {
  const result = await tx
    .updateTable('variants')
    .set({ ...variantFieldColumns(v), updated_at: at(v.updatedAt) })
    .where('id', '=', v.id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertSegment(tx: Tx, s: Segment): Promise<void> {
  await tx
    .insertInto('segments')
    .values(segmentRow(s.namespaceKey, s.key, s, at(s.createdAt), at(s.updatedAt)))
    .execute();
  for (const c of s.constraints) await insertConstraintRow(tx, c);
}

/** The segment row only: its constraints are changes of their own. */
export async function updateSegmentRow(tx: Tx, s: Segment): Promise<number> {
  const result = await tx
    .updateTable('segments')
    .set({ ...segmentFieldColumns(s), updated_at: at(s.updatedAt) })
    .where('namespace_key', '=', s.namespaceKey)
    .where('key', '=', s.key)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertConstraintRow(tx: Tx, c: Constraint): Promise<void> {
  await tx
    .insertInto('constraints')
    .values(constraintRow(c.id, c.namespaceKey, c.segmentKey, c, at(c.createdAt), at(c.updatedAt)))
    .execute();
}

export async function updateConstraintRow(tx: Tx, c: Constraint): Promise<number> {
  const result = await tx
    .updateTable('constraints')
    .set({ ...constraintFieldColumns(c), updated_at: at(c.updatedAt) })
    .where('id', '=', c.id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Makes room at `rank` among the flag's rules or rollouts (a delete renumbered the rest 1..n). */
export async function shiftRanks(
  tx: Tx,
  table: 'rules' | 'rollouts',
  namespaceKey: string,
  flagKey: string,
  fromRank: number,
): Promise<void> {
  await tx
    .updateTable(table as 'rules')
    .set({ rank: sql<number>`rank + 1` })
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .where('rank', '>=', fromRank)
    .execute();
}

/** Puts the flag's rules or rollouts back at the recorded ranks (and update times). */
export async function setRanks(
  tx: Tx,
  table: 'rules' | 'rollouts',
  namespaceKey: string,
  items: readonly { id: string; rank: number; updatedAt: Date | string }[],
): Promise<void> {
  for (const item of items) {
    await tx
      .updateTable(table as 'rules')
      .set({ rank: item.rank, updated_at: at(item.updatedAt) })
      .where('namespace_key', '=', namespaceKey)
      .where('id', '=', item.id)
      .execute();
  }
}

async function insertRuleSegments(tx: Tx, rule: Rule): Promise<void> {
  await tx
    .insertInto('rule_segments')
    .values(ruleSegmentRows(rule.id, rule.namespaceKey, rule.segmentKeys))
    .execute();
}

export async function insertRule(tx: Tx, rule: Rule): Promise<void> {
  await tx
    .insertInto('rules')
    .values(ruleRow(rule.id, rule.namespaceKey, rule.flagKey, rule, at(rule.createdAt), at(rule.updatedAt)))
    .execute();
  await insertRuleSegments(tx, rule);
  for (const d of rule.distributions) await insertDistributionRow(tx, d);
}

/** Rank, segments and operator (the rule's distributions are changes of their own). */
export async function updateRule(tx: Tx, rule: Rule): Promise<number> {
  const result = await tx
    .updateTable('rules')
    .set({
      rank: rule.rank,
      segment_operator: segmentOperatorColumn(rule.segmentOperator),
      updated_at: at(rule.updatedAt),
    })
    .where('namespace_key', '=', rule.namespaceKey)
    .where('id', '=', rule.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return 0;
  await tx.deleteFrom('rule_segments').where('rule_id', '=', rule.id).execute();
  await insertRuleSegments(tx, rule);
  return 1;
}

export async function insertDistributionRow(tx: Tx, d: Distribution): Promise<void> {
  await tx
    .insertInto('distributions')
    .values(distributionRow(d.id, d.ruleId, d.variantId, d.rollout, at(d.createdAt), at(d.updatedAt)))
    .execute();
}

export async function updateDistributionRow(tx: Tx, d: Distribution): Promise<number> {
  const result = await tx
    .updateTable('distributions')
    .set({ variant_id: d.variantId, rollout: d.rollout, updated_at: at(d.updatedAt) })
    .where('id', '=', d.id)
    .where('rule_id', '=', d.ruleId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

async function insertRolloutRule(tx: Tx, r: Rollout): Promise<void> {
  const partId = crypto.randomUUID();
  if (r.threshold) {
    await tx
      .insertInto('rollout_thresholds')
      .values(thresholdRow(partId, r.namespaceKey, r.id, r.threshold))
      .execute();
  }
  if (r.segment) {
    await tx
      .insertInto('rollout_segments')
      .values(rolloutSegmentRow(partId, r.id, r.segment))
      .execute();
    await tx
      .insertInto('rollout_segment_references')
      .values(segmentReferenceRows(partId, r.namespaceKey, r.segment.segmentKeys))
      .execute();
  }
}

export async function insertRollout(tx: Tx, r: Rollout): Promise<void> {
  await tx
    .insertInto('rollouts')
    .values(rolloutRow(r.id, r.namespaceKey, r.flagKey, r, at(r.createdAt), at(r.updatedAt)))
    .execute();
  await insertRolloutRule(tx, r);
}

/** Description, rank and rule (segment or threshold) as recorded. */
export async function updateRollout(tx: Tx, r: Rollout): Promise<number> {
  const result = await tx
    .updateTable('rollouts')
    .set({ description: r.description, rank: r.rank, updated_at: at(r.updatedAt) })
    .where('namespace_key', '=', r.namespaceKey)
    .where('id', '=', r.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return 0;
  const segmentIds = tx.selectFrom('rollout_segments').select('id').where('rollout_id', '=', r.id);
  await tx.deleteFrom('rollout_segment_references').where('rollout_segment_id', 'in', segmentIds).execute();
  await tx.deleteFrom('rollout_segments').where('rollout_id', '=', r.id).execute();
  await tx.deleteFrom('rollout_thresholds').where('rollout_id', '=', r.id).execute();
  await insertRolloutRule(tx, r);
  return 1;
}
