// The CockroachDB path, without a CockroachDB server (none can run here): the SQL it sends, through the
// real Kysely PostgreSQL driver on a pool that records statements and can answer like CockroachDB.
// The same path runs against a live PostgreSQL in test/integration/concurrent-migrations.test.ts.

import { Kysely, type MigrationLockOptions, PostgresDialect, type PostgresPool, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationsFor } from '../app/migrations.js';
import { UnavailableError } from '../domain/errors.js';
import {
  CockroachAdapter,
  CockroachDialect,
  cockroachTypes,
  type LockSession,
  migrationLockClaim,
  migrationLockQuery,
  parseInt8,
} from './cockroach.js';
import { DIALECT_CAPABILITIES, type DialectName, openDb } from './db.js';
import { classifyDriverError } from './errors.js';
import { loadNamespaceSource } from './evaluation-source.js';
import type { Database } from './schema.js';
import { inTransaction, MAX_TRANSACTION_ATTEMPTS } from './transaction.js';

interface Statement {
  sql: string;
  parameters: unknown[];
}

/** The error CockroachDB sends for a transaction it must restart (pg's DatabaseError fields). */
function cockroachRestartError(): Error {
  return Object.assign(
    new Error(
      'restart transaction: TransactionRetryWithProtoRefreshError: ReadWithinUncertaintyIntervalError: read at time 1700000000.000000000,0 encountered previous write with future timestamp',
    ),
    { code: '40001', severity: 'ERROR' },
  );
}

/**
 * A pg pool whose one client records every statement and answers with no rows; `fail` may throw an
 * error for a statement instead (what CockroachDB would answer).
 */
function recordingPool(fail?: (sql: string) => Error | undefined) {
  const statements: Statement[] = [];
  const client = {
    async query(sql: string, parameters: unknown[] = []) {
      statements.push({ sql, parameters });
      const error = fail?.(sql);
      if (error) throw error;
      const command = sql.split(' ')[0]?.toUpperCase() ?? '';
      return { command, rowCount: 0, rows: [] };
    },
    release() {},
  };
  const pool = { connect: async () => client, end: async () => {} } as unknown as PostgresPool;
  return { pool, statements };
}

function recordingSessions() {
  const sessions: { statements: string[]; ended: boolean }[] = [];
  const open = async (): Promise<LockSession> => {
    const session = { statements: [] as string[], ended: false };
    sessions.push(session);
    return {
      async query(text) {
        session.statements.push(text);
        return { rowCount: text.startsWith('update') ? 1 : 0 };
      },
      async end() {
        session.ended = true;
      },
    };
  };
  return { sessions, open };
}

function cockroachKysely(fail?: (sql: string) => Error | undefined) {
  const { pool, statements } = recordingPool(fail);
  const lock = recordingSessions();
  const db = new Kysely<Database>({ dialect: new CockroachDialect({ pool, openLockSession: lock.open }) });
  return { db, statements, lock };
}

async function ddlOf(dialect: 'cockroachdb' | 'postgres'): Promise<string[]> {
  const { pool, statements } = recordingPool();
  const db =
    dialect === 'cockroachdb'
      ? new Kysely<Database>({ dialect: new CockroachDialect({ pool, openLockSession: recordingSessions().open }) })
      : new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  for (const migration of Object.values(migrationsFor(dialect))) await migration.up(db as never);
  return statements.map((s) => s.sql).filter((s) => /^(create|alter)\b/.test(s));
}

const lockOptions: MigrationLockOptions = {
  lockTable: 'vexil_migrations_lock',
  lockRowId: 'migration_lock',
  lockTableSchema: undefined,
};

describe('CockroachDB migration lock', () => {
  it('is a row lock: SELECT … FOR UPDATE, then an UPDATE whose write intent holds the row', () => {
    const { db } = cockroachKysely();
    const select = migrationLockQuery(lockOptions).compile(db);
    expect(select.sql).toBe('select "id" from "vexil_migrations_lock" where "id" = $1 for update');
    expect(select.parameters).toEqual(['migration_lock']);
    const claim = migrationLockClaim(lockOptions).compile(db);
    expect(claim.sql).toBe('update "vexil_migrations_lock" set "is_locked" = 1 where "id" = $1');
    expect(claim.parameters).toEqual(['migration_lock']);
  });

  it('qualifies the lock table with its schema when the migrator has one', () => {
    const { db } = cockroachKysely();
    expect(migrationLockQuery({ ...lockOptions, lockTableSchema: 'vexil' }).compile(db).sql).toBe(
      'select "id" from "vexil"."vexil_migrations_lock" where "id" = $1 for update',
    );
  });

  it('holds the lock in a transaction on a session of its own, never on the migrating connection', async () => {
    const { db, statements, lock } = cockroachKysely();
    const adapter = db.getExecutor().adapter as CockroachAdapter;
    expect(adapter).toBeInstanceOf(CockroachAdapter);
    await adapter.acquireMigrationLock(db as never, lockOptions);
    expect(lock.sessions).toHaveLength(1);
    expect(lock.sessions[0]?.statements).toEqual([
      'begin',
      'select "id" from "vexil_migrations_lock" where "id" = $1 for update',
      'update "vexil_migrations_lock" set "is_locked" = 1 where "id" = $1',
    ]);
    expect(lock.sessions[0]?.ended).toBe(false);
    expect(statements).toEqual([]); // nothing on the pool's connections: no advisory lock either
    await adapter.releaseMigrationLock(db as never, lockOptions);
    expect(lock.sessions[0]?.statements.at(-1)).toBe('rollback');
    expect(lock.sessions[0]?.ended).toBe(true);
  });

  it('refuses to run without the lock row, and closes the session', async () => {
    const sessions: { ended: boolean }[] = [];
    const adapter = new CockroachAdapter(async () => {
      const session = { ended: false };
      sessions.push(session);
      return {
        query: async () => ({ rowCount: 0 }),
        end: async () => {
          session.ended = true;
        },
      };
    });
    const { db } = cockroachKysely();
    await expect(adapter.acquireMigrationLock(db as never, lockOptions)).rejects.toThrow(
      'migration lock row "migration_lock" is missing',
    );
    expect(sessions[0]?.ended).toBe(true);
  });

  it('never uses advisory locks (CockroachDB has none)', async () => {
    const { db, statements, lock } = cockroachKysely();
    const adapter = db.getExecutor().adapter;
    await adapter.acquireMigrationLock(db as never, lockOptions);
    await adapter.releaseMigrationLock(db as never, lockOptions);
    const all = [...statements.map((s) => s.sql), ...lock.sessions.flatMap((s) => s.statements)];
    expect(all.some((s) => /advisory/i.test(s))).toBe(false);
  });
});

describe('CockroachDB capabilities', () => {
  it('runs migrations outside a transaction (no schema change after a write in one transaction there)', () => {
    const { db } = cockroachKysely();
    expect(db.getExecutor().adapter.supportsTransactionalDdl).toBe(false);
  });

  it.each<DialectName>(['sqlite', 'postgres', 'mysql', 'cockroachdb'])(
    'the capability table matches the %s adapter the database is opened with',
    async (dialect) => {
      const url = {
        sqlite: 'file::memory:',
        postgres: 'postgres://nobody@127.0.0.1:1/none',
        mysql: 'mysql://nobody@127.0.0.1:1/none',
        cockroachdb: 'cockroachdb://nobody@127.0.0.1:1/none',
      }[dialect];
      const db = openDb({ url });
      try {
        // Nothing listens there: the query fails at once, but sets the driver up so close() ends its pool.
        await sql`select 1`.execute(db.kysely).catch(() => {});
        expect(db.dialect).toBe(dialect);
        expect(db.kysely.getExecutor().adapter.supportsTransactionalDdl).toBe(
          DIALECT_CAPABILITIES[dialect].transactionalDdl,
        );
      } finally {
        await db.close();
      }
    },
  );

  it('has no LISTEN/NOTIFY, so nothing may depend on it', () => {
    expect(DIALECT_CAPABILITIES.cockroachdb.listenNotify).toBe(false);
    expect(DIALECT_CAPABILITIES.cockroachdb.migrationLock).toBe('row lock');
  });

  it('reads a snapshot source under SERIALIZABLE, not REPEATABLE READ (only in recent versions there)', async () => {
    const { db, statements } = cockroachKysely();
    expect(await loadNamespaceSource(db, 'cockroachdb', 'default')).toBeUndefined();
    expect(statements[0]?.sql).toBe('start transaction isolation level serializable');
    expect(statements.some((s) => /repeatable read/i.test(s.sql))).toBe(false);
    expect(statements.at(-1)?.sql).toBe('commit');
  });

  it('keeps REPEATABLE READ for PostgreSQL', async () => {
    const { pool, statements } = recordingPool();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    await loadNamespaceSource(db, 'postgres', 'default');
    expect(statements[0]?.sql).toBe('start transaction isolation level repeatable read');
  });
});

describe('CockroachDB serialization failures', () => {
  it('classifies "restart transaction" (SQLSTATE 40001) as a serialization failure', () => {
    expect(classifyDriverError(cockroachRestartError())).toBe('serialization');
  });

  it.each([
    [{ code: '40003', message: 'result is ambiguous (error=rpc error: …)' }, 'unavailable'],
    [{ code: '57014', message: 'query execution canceled' }, 'cancelled'],
    [{ code: '23505', message: 'duplicate key value violates unique constraint "flags_pkey"' }, 'unique'],
    [
      { code: '23503', message: 'insert on table "flags" violates foreign key constraint "flags_namespace_fk"' },
      'foreign-key',
    ],
  ])('classifies %j as %s', (err, kind) => {
    expect(classifyDriverError(err)).toBe(kind);
  });

  it('retries the whole transaction on "restart transaction", then commits', async () => {
    let restarts = 2;
    const { db, statements } = cockroachKysely((sql) =>
      sql === 'commit' && restarts-- > 0 ? cockroachRestartError() : undefined,
    );
    let attempts = 0;
    const result = await inTransaction(db, async (tx) => {
      attempts++;
      await tx.selectFrom('namespaces').select('key').execute();
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(3);
    expect(statements.filter((s) => s.sql === 'begin')).toHaveLength(3);
    expect(statements.filter((s) => s.sql === 'rollback')).toHaveLength(2);
  });

  it('gives up after a bounded number of attempts with a 503-class domain error', async () => {
    const { db } = cockroachKysely((sql) => (sql.startsWith('select') ? cockroachRestartError() : undefined));
    let attempts = 0;
    const failure = await inTransaction(db, async (tx) => {
      attempts++;
      await tx.selectFrom('namespaces').select('key').execute();
    }).catch((err: unknown) => err);
    expect(attempts).toBe(MAX_TRANSACTION_ATTEMPTS);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect((failure as Error).message).toBe('too many concurrent changes; try again');
  });
});

describe('CockroachDB column types', () => {
  it('compiles the schema exactly as for PostgreSQL (one migration tree, no CockroachDB branch)', async () => {
    const [cockroach, postgres] = [await ddlOf('cockroachdb'), await ddlOf('postgres')];
    expect(cockroach.length).toBeGreaterThan(10);
    expect(cockroach).toEqual(postgres);
  });

  it('creates every index "if not exists": migrations run outside a transaction there and may run again', async () => {
    const indexes = (await ddlOf('cockroachdb')).filter((s) => /^create (unique )?index\b/.test(s));
    expect(indexes).toHaveLength(11);
    for (const statement of indexes) expect(statement).toMatch(/^create index if not exists "[a-z_]+_idx" on /);
  });

  it('uses only types CockroachDB has, and none it lacks or treats differently', async () => {
    const ddl = (await ddlOf('cockroachdb')).join('\n');
    const types = new Set<string>();
    for (const statement of ddl.split('\n').filter((s) => s.startsWith('create table'))) {
      const body = statement.slice(statement.indexOf('(') + 1, statement.lastIndexOf(')'));
      for (const part of body.split(/,\s*(?=")/)) {
        const match = /^"[a-z_]+" ([a-z]+(?:\(\d+\))?)/.exec(part.trim());
        if (match?.[1]) types.add(match[1]);
      }
    }
    expect([...types].sort()).toEqual([
      'bigint',
      'boolean',
      'integer',
      'real',
      'text',
      'timestamptz',
      'varchar(16)',
      'varchar(255)',
      'varchar(36)',
      'varchar(64)',
    ]);
    // serial needs unique_rowid() semantics there, and the MySQL/SQLite spellings do not exist.
    expect(ddl).not.toMatch(/\b(serial|bigserial|datetime|longtext|tinyint|json|jsonb|collate|auto_increment)\b/i);
    expect(ddl).not.toMatch(/advisory|listen|notify/i);
  });

  it('reads INT8 (CockroachDB INTEGER) as a number, exactly or not at all', () => {
    const int8 = cockroachTypes.getTypeParser(20) as (text: string) => unknown;
    expect(int8('42')).toBe(42);
    expect(int8('-7')).toBe(-7);
    expect(int8('9007199254740993')).toBe('9007199254740993');
    expect(parseInt8('9007199254740991')).toBe(9007199254740991);
  });

  it('leaves every other type to pg (booleans, timestamps, floats)', () => {
    const parser = (oid: number) => cockroachTypes.getTypeParser(oid) as (text: string) => unknown;
    expect(parser(16)('t')).toBe(true);
    expect(parser(700)('0.5')).toBe(0.5);
    expect(parser(1184)('2024-01-02 03:04:05.123456+00')).toEqual(new Date('2024-01-02T03:04:05.123Z'));
    expect(parser(25)('text')).toBe('text');
  });
});
