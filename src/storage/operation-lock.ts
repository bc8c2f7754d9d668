// Leases on named operations through Flipt's `operation_lock` table, so that with several instances on
// one database only one at a time runs a periodic job (e.g. `cleanup_auth_METHOD_TOKEN`). A lease is
// won by ONE conditional UPDATE (`… where acquired_until <= now`): the database serialises concurrent
// updates of the row, and the loser re-checks the condition against the winner's committed row, so two
// instances never both hold the same lease. Instances are assumed to have roughly synchronised clocks.

import { type Selectable, sql } from 'kysely';
import { classifyDriverError } from './errors.js';
import { toOptionalDate } from './rows.js';
import type { OperationLockTable } from './schema.js';
import type { Executor, OperationLockStore } from './store.js';
import { inTransaction, type Tx } from './transaction.js';

export interface LockEntry {
  operation: string;
  /** Incremented on every acquisition: each won lease has its own number. */
  version: number;
  lastAcquiredAt?: Date;
  acquiredUntil?: Date;
}

export interface LockAttempt {
  acquired: boolean;
  /** The row after the attempt: ours when acquired, else the current holder's. */
  entry: LockEntry;
}

function toEntry(row: Selectable<OperationLockTable>): LockEntry {
  const lastAcquiredAt = toOptionalDate(row.last_acquired_at);
  const acquiredUntil = toOptionalDate(row.acquired_until);
  return {
    operation: row.operation,
    version: Number(row.version),
    ...(lastAcquiredAt ? { lastAcquiredAt } : {}),
    ...(acquiredUntil ? { acquiredUntil } : {}),
  };
}

/** Creates the operation's row (never acquired) unless it exists; safe to race. */
async function ensureLockRow(db: Executor, operation: string): Promise<void> {
  const existing = await db
    .selectFrom('operation_lock')
    .select('operation')
    .where('operation', '=', operation)
    .executeTakeFirst();
  if (existing) return;
  try {
    await db
      .insertInto('operation_lock')
      .values({ operation, version: 0, last_acquired_at: null, acquired_until: null })
      .execute();
  } catch (err) {
    // Another instance inserted it between our read and our insert: the row exists, which is all we need.
    if (classifyDriverError(err) !== 'unique') throw err;
  }
}

/** Tries to take the operation's lease for `leaseMs` from `now`. */
export async function tryAcquireLock(
  db: Executor,
  operation: string,
  leaseMs: number,
  now = new Date(),
): Promise<LockAttempt> {
  await ensureLockRow(db, operation);
  const until = new Date(now.getTime() + leaseMs);
  return inTransaction(db, async (tx) => {
    const result = await tx
      .updateTable('operation_lock')
      .set({ version: sql<number>`version + 1`, last_acquired_at: now, acquired_until: until })
      .where('operation', '=', operation)
      .where((eb) => eb.or([eb('acquired_until', 'is', null), eb('acquired_until', '<=', now)]))
      .executeTakeFirst();
    const row = await tx
      .selectFrom('operation_lock')
      .selectAll()
      .where('operation', '=', operation)
      .executeTakeFirstOrThrow();
    return { acquired: Number(result.numUpdatedRows) > 0, entry: toEntry(row) };
  });
}

/**
 * Holds the operation's row lock until `tx` ends (an UPDATE of the row: PostgreSQL/MySQL lock the row,
 * SQLite takes its write lock). Concurrent callers queue behind it: a mutex across instances for one
 * short transaction. The row must exist (ensureLockRow).
 */
async function lockOperationRow(tx: Tx, operation: string): Promise<void> {
  await tx
    .updateTable('operation_lock')
    .set({ version: sql<number>`version + 1`, last_acquired_at: new Date() })
    .where('operation', '=', operation)
    .execute();
}

export async function readLock(db: Executor, operation: string): Promise<LockEntry | undefined> {
  const row = await db.selectFrom('operation_lock').selectAll().where('operation', '=', operation).executeTakeFirst();
  return row ? toEntry(row) : undefined;
}

export const sqlOperationLockStore: OperationLockStore = { ensureRow: ensureLockRow, lockRow: lockOperationRow };

/**
 * Extends the lease won as `version` to `leaseMs` from `now`; false when another instance has won the
 * lease since (its acquisition changed the version), so a holder that paused too long learns it lost.
 */
export async function renewLock(
  db: Executor,
  operation: string,
  version: number,
  leaseMs: number,
  now = new Date(),
): Promise<boolean> {
  const result = await db
    .updateTable('operation_lock')
    .set({ acquired_until: new Date(now.getTime() + leaseMs) })
    .where('operation', '=', operation)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends the lease won as `version` now, so another instance may take it at once (a clean stop). */
export async function releaseLock(db: Executor, operation: string, version: number, now = new Date()): Promise<void> {
  await db
    .updateTable('operation_lock')
    .set({ acquired_until: now })
    .where('operation', '=', operation)
    .where('version', '=', version)
    .execute();
}
