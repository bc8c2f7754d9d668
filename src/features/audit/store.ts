// Reads of the changes table for the audit sinks, and each sink's delivery state (migration.ts).
// A sink's state is written only while its delivering instance still holds its lease: the update is
// fenced on the lease's version, so an instance that lost the lease cannot move the state back.

import { type Selectable, sql } from 'kysely';
import type { Change, ChangeAction, ChangeActor, ChangeResourceType } from '../../domain/changes.js';
import { classifyDriverError } from '../../storage/errors.js';
import { toDate, writeTime } from '../../storage/rows.js';
import type { ChangesTable } from '../../storage/schema.js';
import type { Executor } from '../../storage/store.js';

/** An id range [from, to] passed while not visible, and when that was first seen (ms since epoch). */
export type IdGap = [from: number, to: number, firstSeenMs: number];

export interface DeliveryState {
  sink: string;
  deliveredThrough: number;
  gaps: IdGap[];
}

function parseGaps(text: string): IdGap[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value.filter((g) => Array.isArray(g) && g.length === 3) as IdGap[]) : [];
  } catch {
    return [];
  }
}

/**
 * Creates the sink's state unless it exists, starting after the newest change: a sink delivers what
 * is written from its first start on. Safe to race (another instance's insert wins).
 */
export async function ensureDeliveryState(db: Executor, sink: string): Promise<void> {
  const existing = await db.selectFrom('audit_delivery').select('sink').where('sink', '=', sink).executeTakeFirst();
  if (existing) return;
  const newest = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  try {
    await db
      .insertInto('audit_delivery')
      .values({ sink, delivered_through: Number(newest?.id ?? 0), gaps: '[]', updated_at: writeTime() })
      .execute();
  } catch (err) {
    if (classifyDriverError(err) !== 'unique') throw err;
  }
}

export async function readDeliveryState(db: Executor, sink: string): Promise<DeliveryState | undefined> {
  const row = await db.selectFrom('audit_delivery').selectAll().where('sink', '=', sink).executeTakeFirst();
  return row ? { sink, deliveredThrough: Number(row.delivered_through), gaps: parseGaps(row.gaps) } : undefined;
}

/** Saves the state if the lease `lock.version` of `lock.operation` is still the current one. */
export async function saveDeliveryState(
  db: Executor,
  state: DeliveryState,
  lock: { operation: string; version: number },
): Promise<boolean> {
  const result = await db
    .updateTable('audit_delivery')
    .set({ delivered_through: state.deliveredThrough, gaps: JSON.stringify(state.gaps), updated_at: writeTime() })
    .where('sink', '=', state.sink)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('operation_lock')
          .select(sql`1`.as('one'))
          .where('operation', '=', lock.operation)
          .where('version', '=', lock.version),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

type ChangeRow = Selectable<ChangesTable>;

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toChange(row: ChangeRow): Change {
  const actor = (parseJson(row.actor) ?? { authentication: 'none' }) as ChangeActor;
  const before = parseJson(row.before_state);
  const after = parseJson(row.after_state);
  return {
    id: String(row.id),
    createdAt: toDate(row.created_at).toISOString(),
    ...(row.batch !== null ? { batch: row.batch } : {}),
    ...(row.namespace_key !== null ? { namespaceKey: row.namespace_key } : {}),
    resourceType: row.resource_type as ChangeResourceType,
    resourceKey: row.resource_key,
    ...(row.parent_key !== null ? { parentKey: row.parent_key } : {}),
    action: row.action as ChangeAction,
    actor,
    ...(before !== undefined ? { before } : {}),
    ...(after !== undefined ? { after } : {}),
    ...(row.reverts !== null && row.reverts !== undefined ? { reverts: String(row.reverts) } : {}),
  };
}

/** Changes after `deliveredThrough` or inside a watched gap, oldest first. */
export async function readPendingChanges(db: Executor, state: DeliveryState, limit: number): Promise<Change[]> {
  const rows = await db
    .selectFrom('changes')
    .selectAll()
    .where((eb) =>
      eb.or([eb('id', '>', state.deliveredThrough), ...state.gaps.map(([from, to]) => eb.between('id', from, to))]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toChange);
}

/** When the oldest change the sink has not handled was recorded; undefined when there is none. */
export async function oldestPendingChange(db: Executor, state: DeliveryState): Promise<Date | undefined> {
  const row = await db
    .selectFrom('changes')
    .select('created_at')
    .where((eb) =>
      eb.or([eb('id', '>', state.deliveredThrough), ...state.gaps.map(([from, to]) => eb.between('id', from, to))]),
    )
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row ? toDate(row.created_at as Date | string) : undefined;
}
