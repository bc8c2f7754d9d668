// Opens the database named by `db.url`: SQLite (file: or a path), PostgreSQL, MySQL or CockroachDB,
// each through its Kysely dialect, and waits for it to answer (with backoff) before start-up goes on.

import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Dialect, Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { CockroachDialect } from './cockroach.js';
import type { Database } from './schema.js';
import { SqliteValuesPlugin } from './sqlite-values-plugin.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql' | 'cockroachdb';

export interface DbOptions {
  url: string;
  maxOpenConn?: number;
  maxIdleConn?: number;
  connMaxIdleTimeMs?: number;
  connMaxLifetimeMs?: number;
}

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** What kind of storage this is, for /meta/info and logs (no credentials). */
  describe: string;
  close(): Promise<void>;
}

export class DbUrlError extends Error {}

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
  return new SqliteDialect({ database });
}

function postgresPool(connectionString: string, options: DbOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.maxOpenConn ?? 10,
    idleTimeoutMillis: options.connMaxIdleTimeMs ?? 30_000,
    maxLifetimeSeconds: options.connMaxLifetimeMs ? Math.ceil(options.connMaxLifetimeMs / 1000) : 0,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

function mysqlPool(url: string, options: DbOptions) {
  const pool = createMysqlPool({
    uri: url.replace(/^mariadb:/i, 'mysql:'),
    connectionLimit: options.maxOpenConn ?? 10,
    maxIdle: options.maxIdleConn ?? 2,
    idleTimeout: options.connMaxIdleTimeMs ?? 30_000,
    timezone: 'Z',
    dateStrings: false,
    supportBigNumbers: true,
    connectTimeout: 5_000,
  });
  return pool;
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
      dialect = new CockroachDialect({ pool: postgresPool(cockroachToPostgresUrl(options.url), options) });
      describe = 'cockroachdb';
      break;
    case 'mysql':
      dialect = new MysqlDialect({ pool: mysqlPool(options.url, options) });
      describe = 'mysql';
      break;
  }
  const kysely = new Kysely<Database>({ dialect, plugins });
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
        throw new Error(`database unreachable: ${(err as Error).message || (err as { code?: string }).code}`);
      }
      onRetry?.(err as Error, attempt);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 2_000);
    }
  }
}
