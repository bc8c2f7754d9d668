// Opens the database named by `db.url`: SQLite (file: or a path), PostgreSQL, MySQL or CockroachDB,
// each through its Kysely dialect, and waits for it to answer (with backoff) before start-up goes on.
// The pg and mysql2 drivers are loaded only when the URL names their database (drivers.ts), so a
// server does not carry the memory of drivers it never uses.

import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type Dialect,
  type DialectAdapter,
  Kysely,
  type LogEvent,
  MysqlDialect,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
} from 'kysely';
import type { Pool as MysqlPool } from 'mysql2';
import type pg from 'pg';
import { CockroachDialect, cockroachTypes, pgLockSessionFactory } from './cockroach.js';
import { type AvailabilityListener, withDriverEdge } from './driver-edge.js';
import { loadMysql, loadPg } from './drivers.js';
import { driverMessage } from './errors.js';
import type { Database } from './schema.js';
import { SqliteValuesPlugin } from './sqlite-values-plugin.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql' | 'cockroachdb';

export interface DbOptions {
  url: string;
  maxOpenConn?: number;
  maxIdleConn?: number;
  connMaxIdleTimeMs?: number;
  connMaxLifetimeMs?: number;
  /** Called after every query (telemetry/db.ts: query metrics and spans). */
  log?: (event: LogEvent) => void;
  /** Told when the database goes away and when it answers again (once per outage). */
  availability?: AvailabilityListener;
}

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** What kind of storage this is, for /meta/info and logs (no credentials). */
  describe: string;
  close(): Promise<void>;
}

export class DbUrlError extends Error {}

/** What differs between the dialects, in one place, for the code that has to branch on it. */
export interface DialectCapabilities {
  /**
   * Isolation of a read that must see one consistent state across several queries (snapshot loads);
   * undefined where the connection already gives it (SQLite: one connection, one writer).
   */
  consistentReadIsolation?: 'repeatable read' | 'serializable';
  /**
   * The migrator wraps the pending migrations in one transaction (Kysely's supportsTransactionalDdl);
   * where it does not, every migration is written to be safe to run again.
   */
  transactionalDdl: boolean;
  /** How concurrent starts are kept from migrating at once. */
  migrationLock: 'advisory lock' | 'GET_LOCK' | 'row lock' | 'write lock';
  /**
   * LISTEN/NOTIFY exists. Nothing depends on it: every dialect learns of other instances' writes by
   * polling namespace revisions, because CockroachDB (and MySQL) have no such thing.
   */
  listenNotify: boolean;
}

export const DIALECT_CAPABILITIES: Readonly<Record<DialectName, Readonly<DialectCapabilities>>> = {
  // Kysely runs SQLite migrations without a wrapping transaction; the lock is the file's write lock.
  sqlite: { transactionalDdl: false, migrationLock: 'write lock', listenNotify: false },
  postgres: {
    consistentReadIsolation: 'repeatable read',
    transactionalDdl: true,
    migrationLock: 'advisory lock',
    listenNotify: true,
  },
  mysql: {
    consistentReadIsolation: 'repeatable read',
    transactionalDdl: false,
    migrationLock: 'GET_LOCK',
    listenNotify: false,
  },
  // REPEATABLE READ exists only in recent CockroachDB versions behind a cluster setting; SERIALIZABLE
  // is its default and is consistent. DDL in transactions is limited there (cockroach.ts).
  cockroachdb: {
    consistentReadIsolation: 'serializable',
    transactionalDdl: false,
    migrationLock: 'row lock',
    listenNotify: false,
  },
};

export function dialectOf(url: string): DialectName {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'file' || scheme === 'sqlite' || scheme === 'sqlite3') return 'sqlite';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  if (scheme === 'cockroach' || scheme === 'cockroachdb' || scheme === 'crdb') return 'cockroachdb';
  throw new DbUrlError(`unknown database driver for: "${scheme}"`);
}

/** The file path of an SQLite URL: `file:/abs/x.db`, `file:rel.db`, `file:///abs`, or a bare path. */
export function sqlitePath(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:';
  let path = url.replace(/^(file|sqlite3?):/i, '');
  if (path.startsWith('//')) path = path.slice(2);
  path = path.split('?')[0] as string;
  return resolve(decodeURIComponent(path));
}

/** A PostgreSQL connection string for a CockroachDB URL (same protocol, other scheme). */
export function cockroachToPostgresUrl(url: string): string {
  return url.replace(/^(cockroachdb|cockroach|crdb):/i, 'postgres:');
}

function sqliteDialect(url: string): Dialect {
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  // WAL lets readers run beside the writer; foreign keys drive the cascades of the schema.
  if (path !== ':memory:') database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  return new LockingSqliteDialect({ database });
}

/**
 * Kysely's SQLite adapter takes no migration lock (one connection per process), yet two processes may
 * open one file (`vexil migrate` beside a starting server): the lock is the file's write lock, taken
 * with BEGIN IMMEDIATE (waiting up to busy_timeout) and held until the migrations are committed.
 */
class SqliteMigrationLockAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin immediate`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    // Also after a failed migration: what it did is kept, as on MySQL; migrations are safe to re-run.
    // The migrator releases even when acquiring failed (busy): then there is nothing to commit.
    try {
      await sql`commit`.execute(db);
    } catch (err) {
      if (!/no transaction is active/.test((err as Error).message ?? '')) throw err;
    }
  }
}

class LockingSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new SqliteMigrationLockAdapter();
  }
}

function postgresPool(connectionString: string, options: DbOptions, types?: pg.CustomTypesConfig): pg.Pool {
  const pool = new (loadPg().Pool)({
    connectionString,
    ...(types ? { types } : {}),
    max: options.maxOpenConn ?? 10,
    idleTimeoutMillis: options.connMaxIdleTimeMs ?? 30_000,
    maxLifetimeSeconds: options.connMaxLifetimeMs ? Math.ceil(options.connMaxLifetimeMs / 1000) : 0,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor one that is checked out: pg-pool listens for a client's 'error' only while it is idle, so a
  // transaction waiting between two queries (a namespace load giving the event loop a turn, say)
  // whose server went away emitted an error nobody heard, which ended the process. Its next query
  // fails instead, and the pool drops the client when it is handed back.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

function mysqlPool(url: string, options: DbOptions): MysqlPool {
  const pool = loadMysql().createPool({
    uri: url.replace(/^mariadb:/i, 'mysql:'),
    connectionLimit: options.maxOpenConn ?? 10,
    maxIdle: options.maxIdleConn ?? 2,
    idleTimeout: options.connMaxIdleTimeMs ?? 30_000,
    timezone: 'Z',
    dateStrings: false,
    supportBigNumbers: true,
    connectTimeout: 5_000,
  });
  if (options.connMaxLifetimeMs) recycleOldConnections(pool, options.connMaxLifetimeMs);
  return pool;
}

/**
 * conn_max_lifetime for MySQL: mysql2 has no such pool option, so a connection older than the lifetime
 * is closed when it is handed back idle (the pool opens a new one when needed). A connection passed
 * straight from one user to the next waiting one is recycled at its next idle release.
 */
function recycleOldConnections(pool: MysqlPool, lifetimeMs: number): void {
  const bornAt = new WeakMap<object, number>();
  pool.on('connection', (connection) => bornAt.set(connection, Date.now()));
  pool.on('release', (connection) => {
    const born = bornAt.get(connection);
    if (born !== undefined && Date.now() - born >= lifetimeMs) connection.destroy();
  });
}

export function openDb(options: DbOptions): Db {
  const dialectName = dialectOf(options.url);
  let dialect: Dialect;
  let describe: string;
  const plugins = [];
  switch (dialectName) {
    case 'sqlite':
      dialect = sqliteDialect(options.url);
      plugins.push(new SqliteValuesPlugin());
      describe = `sqlite:${sqlitePath(options.url)}`;
      break;
    case 'postgres':
      dialect = new PostgresDialect({ pool: postgresPool(options.url, options) });
      describe = 'postgres';
      break;
    case 'cockroachdb':
      dialect = new CockroachDialect({
        pool: postgresPool(cockroachToPostgresUrl(options.url), options, cockroachTypes),
        openLockSession: pgLockSessionFactory(cockroachToPostgresUrl(options.url)),
      });
      describe = 'cockroachdb';
      break;
    case 'mysql':
      dialect = new MysqlDialect({ pool: mysqlPool(options.url, options) });
      describe = 'mysql';
      break;
  }
  // A lost connection becomes UnavailableError, text no database stores a ValidationError (or a lookup
  // that finds nothing), the same on every database.
  dialect = withDriverEdge(dialect, options.availability);
  const kysely = new Kysely<Database>({ dialect, plugins, ...(options.log ? { log: options.log } : {}) });
  return { kysely, dialect: dialectName, describe, close: () => kysely.destroy() };
}

/** Resolves once the database answers; retries with backoff until `timeoutMs`, then rejects. */
export async function waitForDb(db: Db, timeoutMs: number, onRetry?: (err: Error, attempt: number) => void) {
  const deadline = Date.now() + timeoutMs;
  let delay = 100;
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`.execute(db.kysely);
      return;
    } catch (err) {
      if (Date.now() + delay > deadline) {
        // The driver's own reason, not the UnavailableError the storage edge made of it.
        const reason = (err as Error).cause ?? err;
        throw new Error(`database unreachable: ${driverMessage(reason)}`);
      }
      onRetry?.(err as Error, attempt);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 2_000);
    }
  }
}
