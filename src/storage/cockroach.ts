// CockroachDB speaks the PostgreSQL wire protocol, so it rides on Kysely's PostgreSQL dialect and the
// pg driver. Everything CockroachDB does differently is handled here, explicitly (docs/adr/0003):
// - no advisory locks: the migration lock is a row lock on Kysely's lock table, held by a transaction
//   on a connection of its own for as long as the migrations run;
// - DDL in transactions is limited (no schema change after a write in the same transaction, and a
//   multi-statement transaction's DDL can fail half-way): migrations run outside a transaction, as on
//   MySQL; every migration is written to be safe to run again;
// - INTEGER is a 64-bit INT8, which pg returns as a string: read INT8 back as a number when it fits;
// - serialization failures (SQLSTATE 40001, "restart transaction: …") are frequent, even for reads:
//   errors.ts classifies them with PostgreSQL's and inTransaction retries them (snapshot loads too);
// - REPEATABLE READ needs a recent version and a cluster setting: consistent reads use SERIALIZABLE,
//   CockroachDB's default (DIALECT_CAPABILITIES in db.ts);
// - no LISTEN/NOTIFY: nothing relies on it; every dialect learns of other instances' writes by polling
//   namespace revisions (cache/revision-poller.ts).
// CockroachDB cannot run on the machine this was built on: this path is covered by unit tests of the
// SQL it issues and by running it against PostgreSQL, never against a live CockroachDB server.

import {
  type DialectAdapter,
  type Kysely,
  type MigrationLockOptions,
  PostgresAdapter,
  PostgresDialect,
  type PostgresDialectConfig,
  sql,
} from 'kysely';
import type pg from 'pg';
import { loadPg } from './drivers.js';

/** A database session of its own that holds the migration lock (a pg.Client fits). */
export interface LockSession {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
  end(): Promise<void>;
}

export type LockSessionFactory = () => Promise<LockSession>;

/** The row-lock statement, exposed so its SQL can be unit-tested without a live CockroachDB. */
export function migrationLockQuery(options: MigrationLockOptions) {
  return sql`select ${sql.ref('id')} from ${lockTable(options)} where ${sql.ref('id')} = ${options.lockRowId} for update`;
}

/**
 * Claims the lock row inside the lock's transaction (rolled back on release, so the flag never stays
 * set). The UPDATE's write intent is the lock that counts on CockroachDB: a SELECT … FOR UPDATE lock is
 * unreplicated there (best effort, lost on a lease transfer), an intent is replicated and holds until
 * the transaction ends.
 */
export function migrationLockClaim(options: MigrationLockOptions) {
  return sql`update ${lockTable(options)} set ${sql.ref('is_locked')} = 1 where ${sql.ref('id')} = ${options.lockRowId}`;
}

function lockTable(options: MigrationLockOptions) {
  return options.lockTableSchema
    ? sql.table(`${options.lockTableSchema}.${options.lockTable}`)
    : sql.table(options.lockTable);
}

export class CockroachAdapter extends PostgresAdapter {
  // One held session per migration run (the migrator passes the same connection to acquire and release).
  readonly #held = new Map<object, LockSession>();

  constructor(private readonly openLockSession: LockSessionFactory) {
    super();
  }

  /** Migrations run outside a transaction on CockroachDB (see the head of this file). */
  override get supportsTransactionalDdl(): boolean {
    return false;
  }

  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    // The migrator runs without a transaction here, so a lock taken on its own connection would be
    // released by autocommit at once: the lock lives in a transaction on a session of its own, which
    // CockroachDB aborts (freeing the row) if this process dies.
    const session = await this.openLockSession();
    try {
      await session.query('begin');
      const select = migrationLockQuery(options).compile(db);
      await session.query(select.sql, [...select.parameters]);
      const claim = migrationLockClaim(options).compile(db);
      const claimed = await session.query(claim.sql, [...claim.parameters]);
      if (claimed.rowCount !== 1) throw new Error(`migration lock row "${options.lockRowId}" is missing`);
    } catch (err) {
      await session.end().catch(() => {});
      throw err;
    }
    this.#held.set(db, session);
  }

  override async releaseMigrationLock(db: Kysely<unknown>, _options: MigrationLockOptions): Promise<void> {
    const session = this.#held.get(db);
    if (!session) return;
    this.#held.delete(db);
    try {
      // Rolling back frees the row and leaves is_locked as it was.
      await session.query('rollback');
    } finally {
      await session.end().catch(() => {});
    }
  }
}

export interface CockroachDialectConfig extends PostgresDialectConfig {
  /** Opens the migration lock's own session; outside the pool, so a pool of one connection still migrates. */
  openLockSession: LockSessionFactory;
}

export class CockroachDialect extends PostgresDialect {
  readonly #openLockSession: LockSessionFactory;

  constructor(config: CockroachDialectConfig) {
    super(config);
    this.#openLockSession = config.openLockSession;
  }

  override createAdapter(): DialectAdapter {
    return new CockroachAdapter(this.#openLockSession);
  }
}

/** A lock session on its own pg.Client. */
export function pgLockSessionFactory(connectionString: string): LockSessionFactory {
  return async () => {
    const client = new (loadPg().Client)({ connectionString, connectionTimeoutMillis: 5_000 });
    // A session that dies while held must not crash the process; its transaction is aborted server-side.
    client.on('error', () => {});
    await client.connect();
    return client;
  };
}

const INT8_OID = 20;

/** INT8 text as a number when it is exactly representable, else the text (never a silently wrong number). */
export function parseInt8(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

/**
 * pg type parsers for CockroachDB: its INTEGER columns are INT8 (with the default `default_int_size`),
 * which pg hands back as strings; PostgreSQL's INTEGER is INT4 and already a number. Reading INT8 as a
 * number makes a CockroachDB row look like a PostgreSQL one.
 */
export const cockroachTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    // pg's own parsers; loaded already when a pool asks (the pool is pg's).
    const { types } = loadPg();
    return format === undefined ? types.getTypeParser(oid) : types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};
