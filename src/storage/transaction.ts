// Every write runs here: one transaction that also bumps the namespace revision, retried a bounded
// number of times on serialization failures (PostgreSQL/CockroachDB 40001, MySQL deadlocks), with
// driver errors turned into domain errors.

import { type Kysely, type Transaction, sql } from 'kysely';
import { CancelledError, DomainError, UnavailableError } from '../domain/errors.js';
import { classifyDriverError } from './errors.js';
import type { Database } from './schema.js';
import { writeTime } from './rows.js';

export type Tx = Transaction<Database>;

const MAX_ATTEMPTS = 5;

/** Turns what is left of a driver error (after the storage module's own mapping) into a domain error. */
export function toDomainError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  switch (classifyDriverError(err)) {
    case 'unavailable':
      return new UnavailableError('database unavailable');
    case 'cancelled':
      return new CancelledError('query cancelled');
    default:
      return err;
  }
}

/** Runs `work` in a transaction, retrying serialization failures with a short jittered backoff. */
export async function inTransaction<T>(db: Kysely<Database>, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (classifyDriverError(err) === 'serialization' && attempt < MAX_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));
        continue;
      }
      throw toDomainError(err);
    }
  }
}

/**
 * Marks the namespace as changed: revision + 1 and state_modified_at = now. Call inside the write's
 * transaction; returns false when the namespace does not exist.
 */
export async function bumpRevision(tx: Tx, namespaceKey: string): Promise<boolean> {
  const result = await tx
    .updateTable('namespaces')
    .set({ revision: sql<number>`revision + 1`, state_modified_at: writeTime() })
    .where('key', '=', namespaceKey)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
