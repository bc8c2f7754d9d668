// role_bindings: the role bindings admins store through the API (issue 41, ADR 47), one row a binding,
// read whole into every instance's memory (stored-rules.ts). A binding matches on a metadata key or on a
// claim, never both (the service checks it, as the config's rules are checked), and names a namespace
// key or `*`; it has no foreign key to namespaces, so it may name one before it is created and outlives
// one that is deleted, as the config's rules do.

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../../storage/db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function roleBindingsTable(dialect: DialectName): Migration {
  const timestamp = dialect === 'mysql' ? sql`datetime(3)` : dialect === 'sqlite' ? sql`text` : sql`timestamptz`;
  const varchar = sql`varchar(255)`;
  return {
    async up(db: Db) {
      let table = db.schema.createTable('role_bindings').ifNotExists();
      if (dialect === 'mysql') table = table.modifyEnd(sql`default character set utf8mb4 collate utf8mb4_bin`);
      await table
        .addColumn('id', sql`varchar(36)`, (c) => c.primaryKey())
        .addColumn('method', sql`integer`)
        .addColumn('match_metadata', varchar)
        .addColumn('match_claim', varchar)
        .addColumn('pattern', varchar, (c) => c.notNull())
        .addColumn('role', sql`varchar(16)`, (c) => c.notNull())
        .addColumn('namespace_key', varchar, (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
    },
    async down(db: Db) {
      await db.schema.dropTable('role_bindings').ifExists().execute();
    },
  };
}
