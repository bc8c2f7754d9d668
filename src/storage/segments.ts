// Segments and their constraints in SQL. Constraints live in their own table and are always read with
// their segment, ordered by creation. A segment that a rule or rollout still references cannot be
// deleted: the schema's ON DELETE RESTRICT foreign keys refuse it, and that refusal becomes Flipt's
// "is in use" error here.

import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../domain/errors.js';
import type { Constraint, Page, Segment } from '../domain/types.js';
import {
  constraintFieldColumns,
  constraintOf,
  constraintRow,
  segmentFieldColumns,
  segmentOf,
  segmentRow,
} from './codecs/segments.js';
import { classifyDriverError } from './errors.js';
import { type ListQuery, pageOfNamespaceRows } from './pagination.js';
import { MAX_IN_LIST, writeTime } from './rows.js';
import type { ConstraintFields, Executor, SegmentFields, SegmentStore } from './store.js';

/**
 * Constraints of some segments of a namespace (all of them when `segmentKeys` is undefined), grouped
 * by segment key, each group in creation order.
 */
async function constraintsBySegment(
  db: Executor,
  namespaceKey: string,
  segmentKeys?: string[],
): Promise<Map<string, Constraint[]>> {
  const grouped = new Map<string, Constraint[]>();
  if (segmentKeys?.length === 0) return grouped;
  let select = db
    .selectFrom('constraints')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('id');
  if (segmentKeys) select = select.where('segment_key', 'in', segmentKeys);
  for (const row of await select.execute()) {
    const c = constraintOf(row);
    const list = grouped.get(c.segmentKey);
    if (list) list.push(c);
    else grouped.set(c.segmentKey, [c]);
  }
  return grouped;
}

async function findSegment(db: Executor, namespaceKey: string, key: string): Promise<Segment | undefined> {
  const row = await db
    .selectFrom('segments')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  const constraints = await constraintsBySegment(db, namespaceKey, [key]);
  return segmentOf(row, constraints.get(key) ?? []);
}

async function getSegment(db: Executor, namespaceKey: string, key: string): Promise<Segment> {
  const segment = await findSegment(db, namespaceKey, key);
  if (!segment) throw new NotFoundError(`segment "${namespaceKey}/${key}"`);
  return segment;
}

async function segmentExists(db: Executor, namespaceKey: string, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('segments')
    .select('key')
    .where('namespace_key', '=', namespaceKey)
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

/** The keys among `keys` that name no segment of the namespace, in the order given. */
export async function missingSegmentKeys(db: Executor, namespaceKey: string, keys: string[]): Promise<string[]> {
  const found = new Set<string>();
  // In chunks, to stay under the databases' bound-parameter limits.
  for (let i = 0; i < keys.length; i += MAX_IN_LIST) {
    const rows = await db
      .selectFrom('segments')
      .select('key')
      .where('namespace_key', '=', namespaceKey)
      .where('key', 'in', keys.slice(i, i + MAX_IN_LIST))
      .execute();
    for (const row of rows) found.add(row.key);
  }
  return keys.filter((k) => !found.has(k));
}

/** Segments of a namespace by creation time, each with its constraints (Flipt's offset/limit paging). */
async function listSegments(db: Executor, namespaceKey: string, query: ListQuery): Promise<Page<Segment>> {
  const page = await pageOfNamespaceRows(db, 'segments', namespaceKey, query);
  // A whole-namespace listing reads every constraint at once instead of naming each segment.
  const constraints = await constraintsBySegment(
    db,
    namespaceKey,
    query.limit > 0 || page.offset > 0 ? page.rows.map((r) => r.key) : undefined,
  );
  return {
    items: page.rows.map((r) => segmentOf(r, constraints.get(r.key) ?? [])),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

async function insertSegment(db: Executor, namespaceKey: string, key: string, fields: SegmentFields): Promise<Segment> {
  const now = writeTime();
  try {
    await db
      .insertInto('segments')
      .values(segmentRow(namespaceKey, key, fields, now))
      .execute();
  } catch (err) {
    const kind = classifyDriverError(err);
    if (kind === 'unique') throw new AlreadyExistsError(`segment "${namespaceKey}/${key}" is not unique`);
    if (kind === 'foreign-key') throw new NotFoundError(`namespace "${namespaceKey}"`);
    throw err;
  }
  return { key, ...fields, namespaceKey, constraints: [], createdAt: now, updatedAt: now };
}

/** Sets name, description and match type; NotFound when the segment does not exist. */
async function updateSegment(db: Executor, namespaceKey: string, key: string, fields: SegmentFields): Promise<void> {
  const result = await db
    .updateTable('segments')
    .set({ ...segmentFieldColumns(fields), updated_at: writeTime() })
    .where('namespace_key', '=', namespaceKey)
    .where('key', '=', key)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NotFoundError(`segment "${namespaceKey}/${key}"`);
}

/**
 * Deletes a segment and (by cascade) its constraints. Deleting an unknown segment does nothing; one
 * still referenced by a rule or rollout is refused by the RESTRICT foreign keys.
 */
async function deleteSegment(db: Executor, namespaceKey: string, key: string): Promise<void> {
  try {
    await db.deleteFrom('segments').where('namespace_key', '=', namespaceKey).where('key', '=', key).execute();
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') {
      throw new InvalidArgumentError(`segment "${namespaceKey}/${key}" is in use`);
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Constraints

async function findConstraint(
  db: Executor,
  namespaceKey: string,
  segmentKey: string,
  id: string,
): Promise<Constraint | undefined> {
  const row = await db
    .selectFrom('constraints')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('segment_key', '=', segmentKey)
    .executeTakeFirst();
  return row ? constraintOf(row) : undefined;
}

async function insertConstraint(
  db: Executor,
  namespaceKey: string,
  segmentKey: string,
  fields: ConstraintFields,
): Promise<Constraint> {
  const now = writeTime();
  const id = randomUUID();
  try {
    await db
      .insertInto('constraints')
      .values(constraintRow(id, namespaceKey, segmentKey, fields, now))
      .execute();
  } catch (err) {
    if (classifyDriverError(err) === 'foreign-key') throw new NotFoundError(`segment "${namespaceKey}/${segmentKey}"`);
    throw err;
  }
  return { id, segmentKey, namespaceKey, ...fields, createdAt: now, updatedAt: now };
}

/** Replaces a constraint's fields; NotFound (`constraint "<id>"`) unless it exists under that segment. */
async function updateConstraint(
  db: Executor,
  namespaceKey: string,
  segmentKey: string,
  id: string,
  fields: ConstraintFields,
): Promise<Constraint> {
  const result = await db
    .updateTable('constraints')
    .set({ ...constraintFieldColumns(fields), updated_at: writeTime() })
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('segment_key', '=', segmentKey)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NotFoundError(`constraint "${id}"`);
  const constraint = await findConstraint(db, namespaceKey, segmentKey, id);
  if (!constraint) throw new NotFoundError(`constraint "${id}"`);
  return constraint;
}

/** Deleting an unknown constraint does nothing. */
async function deleteConstraint(db: Executor, namespaceKey: string, segmentKey: string, id: string): Promise<void> {
  await db
    .deleteFrom('constraints')
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('segment_key', '=', segmentKey)
    .execute();
}

export const sqlSegmentStore: SegmentStore = {
  get: getSegment,
  list: listSegments,
  exists: segmentExists,
  missingKeys: missingSegmentKeys,
  findConstraint,
  insert: insertSegment,
  update: updateSegment,
  delete: deleteSegment,
  insertConstraint,
  updateConstraint,
  deleteConstraint,
};
