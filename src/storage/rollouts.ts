// Rollouts of boolean flags in SQL: the rollout row (rank, type, description) plus its rule, either a
// threshold (rollout_thresholds) or a segment match (rollout_segments with one
// rollout_segment_references row per segment, kept in the order given). Segment references hold
// RESTRICT foreign keys, which is what keeps a referenced segment from being deleted.

import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { NotFoundError } from '../domain/errors.js';
import type { Page, Rollout, RolloutSegment, RolloutThreshold } from '../domain/types.js';
import {
  rolloutOf,
  rolloutRow,
  rolloutSegmentColumns,
  rolloutSegmentOf,
  rolloutSegmentRow,
  rolloutTypeFor,
  segmentReferenceRows,
  thresholdOf,
  thresholdRow,
} from './codecs/rollouts.js';
import { classifyDriverError } from './errors.js';
import { fetchLimit, type ListQuery, startOffset, toPage } from './pagination.js';
import { deleteAndRenumber, setRanks } from './ranking.js';
import { writeTime } from './rows.js';
import type { RolloutsTable } from './schema.js';
import type { Executor, NewRollout, RolloutStore } from './store.js';

/** Reads the rules (threshold or segments) of some rollouts and attaches them. */
async function withRules(db: Executor, rows: Selectable<RolloutsTable>[]): Promise<Rollout[]> {
  const rollouts: Rollout[] = rows.map(rolloutOf);
  const byId = new Map(rollouts.map((r) => [r.id, r]));
  const thresholdIds = rollouts.filter((r) => r.type === 'THRESHOLD_ROLLOUT_TYPE').map((r) => r.id);
  const segmentIds = rollouts.filter((r) => r.type === 'SEGMENT_ROLLOUT_TYPE').map((r) => r.id);

  if (thresholdIds.length > 0) {
    const thresholds = await db
      .selectFrom('rollout_thresholds')
      .select(['rollout_id', 'percentage', 'value'])
      .where('rollout_id', 'in', thresholdIds)
      .execute();
    for (const t of thresholds) {
      const rollout = byId.get(t.rollout_id);
      if (rollout) rollout.threshold = thresholdOf(t);
    }
  }

  if (segmentIds.length > 0) {
    const segments = await db
      .selectFrom('rollout_segments')
      .select(['id', 'rollout_id', 'value', 'segment_operator'])
      .where('rollout_id', 'in', segmentIds)
      .execute();
    const bySegmentRow = new Map<string, RolloutSegment>();
    for (const s of segments) {
      const rollout = byId.get(s.rollout_id);
      if (!rollout) continue;
      rollout.segment = rolloutSegmentOf(s);
      bySegmentRow.set(s.id, rollout.segment);
    }
    if (bySegmentRow.size > 0) {
      const references = await db
        .selectFrom('rollout_segment_references')
        .select(['rollout_segment_id', 'segment_key'])
        .where('rollout_segment_id', 'in', [...bySegmentRow.keys()])
        .orderBy('position')
        .orderBy('segment_key')
        .execute();
      for (const ref of references) bySegmentRow.get(ref.rollout_segment_id)?.segmentKeys.push(ref.segment_key);
    }
  }
  return rollouts;
}

async function findRollout(db: Executor, namespaceKey: string, id: string): Promise<Rollout | undefined> {
  const row = await db
    .selectFrom('rollouts')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .executeTakeFirst();
  if (!row) return undefined;
  const [rollout] = await withRules(db, [row]);
  return rollout;
}

/** A rollout by namespace and id (the flag is not part of the lookup, as in Flipt). */
async function getRollout(db: Executor, namespaceKey: string, id: string): Promise<Rollout> {
  const rollout = await findRollout(db, namespaceKey, id);
  if (!rollout) throw new NotFoundError(`rollout "${namespaceKey}/${id}"`);
  return rollout;
}

/**
 * Rollouts of a flag in rank order. Flipt's rollout list has no offset parameter and no
 * "limit must be set" check: a page token alone starts at its offset and returns the rest.
 */
async function listRollouts(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  query: ListQuery,
): Promise<Page<Rollout>> {
  const withoutOffset: ListQuery = { ...query, offset: 0 };
  const offset = startOffset(withoutOffset, false);
  const limit = fetchLimit(withoutOffset);
  const select = db
    .selectFrom('rollouts')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .orderBy('rank')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit ?? Number.MAX_SAFE_INTEGER)
    .offset(offset);
  const [rows, count] = await Promise.all([
    select.execute(),
    db
      .selectFrom('rollouts')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('namespace_key', '=', namespaceKey)
      .where('flag_key', '=', flagKey)
      .executeTakeFirstOrThrow(),
  ]);
  const page = toPage(rows, withoutOffset, offset, (r) => r.id);
  return { items: await withRules(db, page.items), nextPageToken: page.nextPageToken, totalCount: Number(count.n) };
}

async function rankTaken(db: Executor, namespaceKey: string, flagKey: string, rank: number): Promise<boolean> {
  const row = await db
    .selectFrom('rollouts')
    .select('id')
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .where('rank', '=', rank)
    .executeTakeFirst();
  return row !== undefined;
}

async function insertSegmentReferences(
  db: Executor,
  rolloutSegmentId: string,
  namespaceKey: string,
  segmentKeys: string[],
): Promise<void> {
  if (segmentKeys.length === 0) return;
  await db
    .insertInto('rollout_segment_references')
    .values(segmentReferenceRows(rolloutSegmentId, namespaceKey, segmentKeys))
    .execute();
}

async function insertRollout(db: Executor, input: NewRollout): Promise<Rollout> {
  const now = writeTime();
  const id = randomUUID();
  const type = rolloutTypeFor(input.rule);
  try {
    await db
      .insertInto('rollouts')
      .values(
        rolloutRow(
          id,
          input.namespaceKey,
          input.flagKey,
          { rank: input.rank, description: input.description, segment: input.rule.segment },
          now,
        ),
      )
      .execute();
    if (input.rule.segment) {
      const segmentId = randomUUID();
      await db
        .insertInto('rollout_segments')
        .values(rolloutSegmentRow(segmentId, id, input.rule.segment))
        .execute();
      await insertSegmentReferences(db, segmentId, input.namespaceKey, input.rule.segment.segmentKeys);
    } else {
      await db
        .insertInto('rollout_thresholds')
        .values(thresholdRow(randomUUID(), input.namespaceKey, id, input.rule.threshold))
        .execute();
    }
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') throw new NotFoundError(input.missingReferenceSubject);
    throw err;
  }
  return {
    id,
    namespaceKey: input.namespaceKey,
    flagKey: input.flagKey,
    type,
    rank: input.rank,
    description: input.description,
    ...input.rule,
    createdAt: now,
    updatedAt: now,
  };
}

/** Sets description and updated_at; false when no rollout with that id exists under the flag. */
async function touchRollout(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  id: string,
  description: string,
): Promise<boolean> {
  const result = await db
    .updateTable('rollouts')
    .set({ description, updated_at: writeTime() })
    .where('id', '=', id)
    .where('flag_key', '=', flagKey)
    .where('namespace_key', '=', namespaceKey)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Replaces a segment rollout's value, operator and segment set. */
async function replaceRolloutSegment(
  db: Executor,
  namespaceKey: string,
  rolloutId: string,
  segment: RolloutSegment,
  missingReferenceSubject: string,
): Promise<void> {
  const row = await db
    .selectFrom('rollout_segments')
    .select('id')
    .where('rollout_id', '=', rolloutId)
    .executeTakeFirst();
  let segmentId: string;
  if (row) {
    segmentId = row.id;
    await db.updateTable('rollout_segments').set(rolloutSegmentColumns(segment)).where('id', '=', segmentId).execute();
    await db.deleteFrom('rollout_segment_references').where('rollout_segment_id', '=', segmentId).execute();
  } else {
    segmentId = randomUUID();
    await db
      .insertInto('rollout_segments')
      .values(rolloutSegmentRow(segmentId, rolloutId, segment))
      .execute();
  }
  try {
    await insertSegmentReferences(db, segmentId, namespaceKey, segment.segmentKeys);
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') throw new NotFoundError(missingReferenceSubject);
    throw err;
  }
}

/** Replaces a threshold rollout's percentage and value. */
async function replaceRolloutThreshold(
  db: Executor,
  namespaceKey: string,
  rolloutId: string,
  threshold: RolloutThreshold,
): Promise<void> {
  const result = await db
    .updateTable('rollout_thresholds')
    .set({ percentage: threshold.percentage, value: threshold.value })
    .where('rollout_id', '=', rolloutId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    await db
      .insertInto('rollout_thresholds')
      .values(thresholdRow(randomUUID(), namespaceKey, rolloutId, threshold))
      .execute();
  }
}

/** Sets rank = position + 1 for each listed rollout of the flag; unlisted ones keep their ranks. */
function rankRollouts(db: Executor, namespaceKey: string, flagKey: string, ids: string[]): Promise<void> {
  return setRanks(db, 'rollouts', namespaceKey, flagKey, ids);
}

/** Deletes a rollout of the flag (nothing when unknown) and renumbers the rest 1..n. */
function deleteRollout(db: Executor, namespaceKey: string, flagKey: string, id: string): Promise<void> {
  return deleteAndRenumber(db, 'rollouts', namespaceKey, flagKey, id);
}

export const sqlRolloutStore: RolloutStore = {
  get: getRollout,
  list: listRollouts,
  rankTaken,
  insert: insertRollout,
  touch: touchRollout,
  replaceSegment: replaceRolloutSegment,
  replaceThreshold: replaceRolloutThreshold,
  order: rankRollouts,
  delete: deleteRollout,
};
