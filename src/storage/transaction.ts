// Every write runs here: one transaction that also bumps the namespace revision, retried a bounded
// number of times on serialization failures (PostgreSQL/CockroachDB 40001, MySQL deadlocks), with
// driver errors turned into domain errors.

import { type IsolationLevel, type Kysely, MysqlAdapter, sql, type Transaction } from 'kysely';
import { CancelledError, DomainError, UnavailableError } from '../domain/errors.js';
import { classifyDriverError } from './errors.js';
import { revisionTag } from './revision-tag.js';
import { writeTime } from './rows.js';
import type { Database } from './schema.js';

export type Tx = Transaction<Database>;

/** Attempts of one transaction before a serialization failure is given up on. */
export const MAX_TRANSACTION_ATTEMPTS = 5;

/** Turns what is left of a driver error (after the storage module's own mapping) into a domain error. */
export function toDomainError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  switch (classifyDriverError(err)) {
    case 'unavailable':
      return new UnavailableError('database unavailable', { cause: err });
    case 'cancelled':
      return new CancelledError('query cancelled', { cause: err });
    // Still conflicting after every retry: the client may try again later (503), it is no client mistake.
    case 'serialization':
      return new UnavailableError('too many concurrent changes; try again', { cause: err });
    default:
      return err;
  }
}

export interface TransactionOptions {
  /** Isolation level; the database's default when absent (ignored by SQLite, which has one writer). */
  isolation?: IsolationLevel;
}

/**
 * Runs `work` in a transaction, retrying serialization failures (and deadlocks) with a short jittered
 * backoff, at most MAX_TRANSACTION_ATTEMPTS times in all; `work` must be safe to run again.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  work: (tx: Tx) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      let builder = db.transaction();
      if (options.isolation) builder = builder.setIsolationLevel(options.isolation);
      return await builder.execute(work);
    } catch (err) {
      if (classifyDriverError(err) === 'serialization' && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));
        continue;
      }
      throw toDomainError(err);
    }
  }
}

/**
 * Whether a write must lock its namespace's row before anything else (MySQL and MariaDB: ADR 0031).
 * There every insert of a row that references the namespace (a flag, a segment, a change) takes a
 * shared lock on the namespace row for the foreign key; two writers holding it that then both want the
 * exclusive lock of the bump deadlock, and under enough writers the retries ran out. Taking the
 * exclusive lock first makes a namespace's writers queue on that one row instead. PostgreSQL's
 * foreign-key lock (KEY SHARE) does not conflict with the bump's, and SQLite has one writer.
 */
export function locksNamespaceFirst(tx: Tx): boolean {
  return tx.getExecutor().adapter instanceof MysqlAdapter;
}

/** A namespace's revision as stored: the parts of its tag. */
export interface StoredRevision {
  revision: number;
  createdAt: Date | string;
}

/**
 * Takes the namespace row's exclusive lock (SELECT … FOR UPDATE: the lock an UPDATE of the row takes)
 * and answers its revision, or undefined when the namespace does not exist. Until the transaction
 * ends, nobody else bumps it: the write's own bump makes it exactly `revision + 1`.
 */
export async function lockRevision(tx: Tx, namespaceKey: string): Promise<StoredRevision | undefined> {
  const row = await tx
    .selectFrom('namespaces')
    .select(['revision', 'created_at'])
    .where('key', '=', namespaceKey)
    .forUpdate()
    .executeTakeFirst();
  return row ? { revision: Number(row.revision), createdAt: row.created_at } : undefined;
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

/**
 * bumpRevision, answering the revision tag the write leaves behind (undefined when the namespace does
 * not exist). One statement where the database returns what an UPDATE changed (PostgreSQL, CockroachDB,
 * SQLite): a write that tells its client its revision pays no extra round trip for it. MySQL and
 * MariaDB cannot, and read it back.
 */
export async function bumpRevisionTag(tx: Tx, namespaceKey: string): Promise<string | undefined> {
  if (!tx.getExecutor().adapter.supportsReturning) {
    return (await bumpRevision(tx, namespaceKey)) ? readRevisionTag(tx, namespaceKey) : undefined;
  }
  const row = await tx
    .updateTable('namespaces')
    .set({ revision: sql<number>`revision + 1`, state_modified_at: writeTime() })
    .where('key', '=', namespaceKey)
    .returning(['revision', 'created_at'])
    .executeTakeFirst();
  return row ? revisionTag(row.created_at, row.revision) : undefined;
}

/**
 * The namespace's revision tag (the same opaque tag its snapshots carry), or undefined when it does not
 * exist: one indexed read. Inside a write's transaction it sees the revision that write left behind.
 */
export async function readRevisionTag(db: Kysely<Database>, namespaceKey: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('namespaces')
    .select(['revision', 'created_at'])
    .where('key', '=', namespaceKey)
    .executeTakeFirst();
  return row ? revisionTag(row.created_at, row.revision) : undefined;
}
