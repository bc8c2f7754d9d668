import { PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationLockQuery } from './cockroach.js';
import { cockroachToPostgresUrl, dialectOf, sqlitePath } from './db.js';
import { classifyDriverError } from './errors.js';

describe('database URLs', () => {
  it.each([
    ['file:/var/lib/vexil/vexil.db', 'sqlite'],
    ['file:vexil.db', 'sqlite'],
    ['./data/x.db', 'sqlite'],
    ['postgres://u@h/db', 'postgres'],
    ['postgresql://u@h/db', 'postgres'],
    ['mysql://root@h:3306/db', 'mysql'],
    ['cockroach://root@h:26257/db', 'cockroachdb'],
    ['cockroachdb://root@h:26257/db', 'cockroachdb'],
    ['crdb://root@h:26257/db', 'cockroachdb'],
  ])('%s is %s', (url, dialect) => {
    expect(dialectOf(url)).toBe(dialect);
  });

  it('refuses unknown schemes with Flipt message', () => {
    expect(() => dialectOf('oracle://x')).toThrow('unknown database driver for: "oracle"');
  });

  it('resolves SQLite paths', () => {
    expect(sqlitePath('file:/var/lib/vexil/vexil.db')).toBe('/var/lib/vexil/vexil.db');
    expect(sqlitePath('file:///tmp/a.db?cache=shared')).toBe('/tmp/a.db');
  });

  it('speaks PostgreSQL to CockroachDB', () => {
    expect(cockroachToPostgresUrl('cockroachdb://root@h:26257/vexil?sslmode=disable')).toBe(
      'postgres://root@h:26257/vexil?sslmode=disable',
    );
  });
});

describe('CockroachDB migration lock', () => {
  it('is a row lock (SELECT … FOR UPDATE), since CockroachDB has no advisory locks', () => {
    const query = migrationLockQuery({
      lockTable: 'vexil_migrations_lock',
      lockRowId: 'migration_lock',
      lockTableSchema: undefined,
    } as never);
    const compiled = query.compile({
      getExecutor: () => ({
        compileQuery: (node: never) => new PostgresQueryCompiler().compileQuery(node, { queryId: '' } as never),
        transformQuery: (node: never) => node,
        adapter: {},
        plugins: [],
      }),
    } as never);
    expect(compiled.sql).toBe('select "id" from "vexil_migrations_lock" where "id" = $1 for update');
    expect(compiled.parameters).toEqual(['migration_lock']);
  });
});

describe('driver errors', () => {
  it.each([
    [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'unique'],
    [{ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }, 'unique'],
    [{ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }, 'foreign-key'],
    [{ code: '23505' }, 'unique'],
    [{ code: '23503' }, 'foreign-key'],
    [{ code: '40001' }, 'serialization'],
    [{ code: '57014' }, 'cancelled'],
    [{ code: 'ER_DUP_ENTRY', errno: 1062 }, 'unique'],
    [{ code: 'ER_ROW_IS_REFERENCED_2', errno: 1451 }, 'foreign-key'],
    [{ code: 'ER_NO_REFERENCED_ROW_2', errno: 1452 }, 'foreign-key'],
    [{ code: 'ER_LOCK_DEADLOCK', errno: 1213 }, 'serialization'],
    [{ code: 'ECONNREFUSED' }, 'unavailable'],
    [{ code: 'ECONNRESET' }, 'unavailable'],
    [{ code: '57P01' }, 'unavailable'],
    [{ code: '57P02' }, 'unavailable'],
    [{ code: '57P03' }, 'unavailable'],
    [new Error('Client has encountered a connection error and is not queryable'), 'unavailable'],
    [new Error('Connection terminated unexpectedly'), 'unavailable'],
    [new Error('timeout exceeded when trying to connect'), 'unavailable'],
    [{ code: 'PROTOCOL_CONNECTION_LOST' }, 'unavailable'],
    [new Error("Can't add new command when connection is in closed state"), 'unavailable'],
    [{ code: 'ER_SERVER_SHUTDOWN', errno: 1053 }, 'unavailable'],
    [{ code: 'ER_CONNECTION_KILLED', errno: 1927 }, 'unavailable'],
    [new Error('something else'), undefined],
  ])('%j → %s', (err, kind) => {
    expect(classifyDriverError(err)).toBe(kind);
  });
});
