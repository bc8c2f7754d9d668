import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationsFor } from '../../src/app/migrations.js';
import { type Db, openDb } from '../../src/storage/db.js';
import { FOREIGN_KEY_INDEXES } from '../../src/storage/migrations/002-foreign-key-indexes.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';

describeEachBackend('migrations', (backend) => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    db = openDb({ url: database.url });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('migrates a fresh database and seeds the protected default namespace', async () => {
    const first = await migrateToLatest(db.kysely, db.dialect);
    expect(first.applied).toEqual([
      '001-initial-schema',
      '002-foreign-key-indexes',
      '003-seed-state',
      '004-changes',
      '005-audit-delivery',
      '006-change-revisions',
      '007-login-states',
      '008-token-roles',
      '009-role-bindings',
    ]);
    const ns = await db.kysely.selectFrom('namespaces').selectAll().execute();
    expect(ns).toHaveLength(1);
    expect(ns[0]?.key).toBe('default');
    expect(Boolean(ns[0]?.protected)).toBe(true);
  });

  it('is a no-op the second time', async () => {
    const again = await migrateToLatest(db.kysely, db.dialect);
    expect(again.applied).toEqual([]);
  });

  it('re-runs every migration safely after a partial failure (non-transactional DDL)', async () => {
    for (const migration of Object.values(migrationsFor(db.dialect))) await migration.up(db.kysely as never);
    const ns = await db.kysely.selectFrom('namespaces').select('key').execute();
    expect(ns).toHaveLength(1);
  });

  it('indexes the columns of every foreign key, so cascades and RESTRICT checks do not scan tables', async () => {
    const keys = await foreignKeys(db);
    // Every foreign key of the schema: 001 declares 15.
    expect(keys).toHaveLength(15);
    const indexes = await indexedColumns(db);
    const unindexed = keys.filter(
      (fk) => !(indexes.get(fk.table) ?? []).some((index) => fk.columns.every((column, i) => index[i] === column)),
    );
    expect(unindexed).toEqual([]);
  });

  it('drops the indexes it added when rolled back, and adds them again', async () => {
    if (db.dialect === 'mysql') return; // InnoDB's own foreign-key indexes: 002 adds none there
    const migration = migrationsFor(db.dialect)['002-foreign-key-indexes'];
    const names = () => indexNames(db).then((all) => FOREIGN_KEY_INDEXES.filter(([n]) => all.has(n)).length);
    expect(await names()).toBe(FOREIGN_KEY_INDEXES.length);
    await migration?.down?.(db.kysely as never);
    expect(await names()).toBe(0);
    await migration?.up(db.kysely as never);
    expect(await names()).toBe(FOREIGN_KEY_INDEXES.length);
  });
});

describe('test backends', () => {
  it('reports unconfigured backends as skipped with a reason', async () => {
    const { testBackends } = await import('../helpers/backends.js');
    const list = testBackends({});
    expect(list.find((b) => b.name === 'postgres')?.skipReason).toMatch(/VEXIL_TEST_POSTGRES_URL/);
    expect(list.find((b) => b.name === 'sqlite')?.skipReason).toBeUndefined();
  });
});

interface ForeignKey {
  table: string;
  columns: string[];
}

/** SQLite's own tables (its catalog has no view of foreign keys across tables, only per table). */
async function sqliteTables(db: Db): Promise<string[]> {
  const rows = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db.kysely);
  return rows.rows.map((r) => r.name);
}

/** Every foreign key of the database, read from its catalog: the referencing table and columns in order. */
async function foreignKeys(db: Db): Promise<ForeignKey[]> {
  if (db.dialect === 'sqlite') {
    const keys: ForeignKey[] = [];
    for (const table of await sqliteTables(db)) {
      const rows = await sql<{ id: number; seq: number; from: string }>`
        select id, seq, "from" from pragma_foreign_key_list(${table}) order by id, seq`.execute(db.kysely);
      const byId = new Map<number, string[]>();
      for (const r of rows.rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r.from]);
      for (const columns of byId.values()) keys.push({ table, columns });
    }
    return keys;
  }
  if (db.dialect === 'mysql') {
    const rows = await sql<{ t: string; c: string; n: string }>`
      select table_name as t, column_name as c, constraint_name as n from information_schema.key_column_usage
      where table_schema = database() and referenced_table_name is not null
      order by table_name, constraint_name, ordinal_position`.execute(db.kysely);
    return grouped(rows.rows);
  }
  const rows = await sql<{ t: string; c: string; n: string }>`
    select cl.relname as t, a.attname as c, co.conname as n
    from pg_constraint co
    join pg_class cl on cl.oid = co.conrelid
    join pg_namespace ns on ns.oid = cl.relnamespace and ns.nspname = current_schema()
    cross join lateral unnest(co.conkey) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.attnum
    where co.contype = 'f'
    order by cl.relname, co.conname, k.position`.execute(db.kysely);
  return grouped(rows.rows);
}

/** Each table's indexes (primary and unique keys included), as their columns in order. */
async function indexedColumns(db: Db): Promise<Map<string, string[][]>> {
  const byTable = new Map<string, string[][]>();
  const add = (table: string, columns: string[]) => byTable.set(table, [...(byTable.get(table) ?? []), columns]);
  if (db.dialect === 'sqlite') {
    for (const table of await sqliteTables(db)) {
      const list = await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(db.kysely);
      for (const { name } of list.rows) {
        const info = await sql<{ name: string }>`
          select name from pragma_index_info(${name}) order by seqno`.execute(db.kysely);
        add(
          table,
          info.rows.map((r) => r.name),
        );
      }
    }
    return byTable;
  }
  const rows =
    db.dialect === 'mysql'
      ? await sql<{ t: string; c: string; n: string }>`
          select table_name as t, column_name as c, index_name as n from information_schema.statistics
          where table_schema = database() order by table_name, index_name, seq_in_index`.execute(db.kysely)
      : await sql<{ t: string; c: string; n: string }>`
          select cl.relname as t, a.attname as c, ic.relname as n
          from pg_index i
          join pg_class cl on cl.oid = i.indrelid
          join pg_class ic on ic.oid = i.indexrelid
          join pg_namespace ns on ns.oid = cl.relnamespace and ns.nspname = current_schema()
          cross join lateral unnest(i.indkey::int2[]) with ordinality as k(attnum, position)
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
          order by cl.relname, ic.relname, k.position`.execute(db.kysely);
  for (const key of grouped(rows.rows)) add(key.table, key.columns);
  return byTable;
}

async function indexNames(db: Db): Promise<Set<string>> {
  const rows =
    db.dialect === 'sqlite'
      ? await sql<{ n: string }>`select name as n from sqlite_master where type = 'index'`.execute(db.kysely)
      : await sql<{ n: string }>`select indexname as n from pg_indexes where schemaname = current_schema()`.execute(
          db.kysely,
        );
  return new Set(rows.rows.map((r) => r.n));
}

/** Rows of (table, column, constraint or index name) in order, grouped into one entry per name. */
function grouped(rows: ReadonlyArray<{ t: string; c: string; n: string }>): ForeignKey[] {
  const byName = new Map<string, ForeignKey>();
  for (const r of rows) {
    const id = `${r.t}\u0000${r.n}`;
    const entry = byName.get(id);
    if (entry) entry.columns.push(r.c);
    else byName.set(id, { table: r.t, columns: [r.c] });
  }
  return [...byName.values()];
}
