// changes: one row per write, inserted in the write's own transaction (issue 28), so a recorded change
// always happened and a rolled-back write leaves none. The audit sinks deliver from this table (an
// outbox), the history API and the dashboard read it, and revert restores its `before_state`.

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function changes(dialect: DialectName): Migration {
  const timestamp = dialect === 'mysql' ? sql`datetime(3)` : dialect === 'sqlite' ? sql`text` : sql`timestamptz`;
  // MySQL's TEXT holds 64 KB; a flag's state with its rules may be larger.
  const text = dialect === 'mysql' ? sql`longtext` : sql`text`;
  // Every text column varchar(255), the one size the schema uses (CockroachDB's column-type check).
  const varchar = sql`varchar(255)`;
  const tableOptions = <T extends { modifyEnd(s: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect === 'mysql' ? builder.modifyEnd(sql`default character set utf8mb4 collate utf8mb4_bin`) : builder;
  return {
    async up(db: Db) {
      let table = db.schema.createTable('changes').ifNotExists().$call(tableOptions);
      table =
        dialect === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : dialect === 'mysql'
            ? table.addColumn('id', sql`bigint`, (c) => c.primaryKey().autoIncrement())
            : // An identity column, not bigserial: CockroachDB turns serial into unique_rowid(), whose
              // values jump, and the audit outbox reads ids in order and watches the gaps between them.
              table.addColumn('id', sql`bigint`, (c) => c.primaryKey().generatedByDefaultAsIdentity());
      await table
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('batch', varchar)
        .addColumn('namespace_key', varchar)
        .addColumn('resource_type', varchar, (c) => c.notNull())
        .addColumn('resource_key', varchar, (c) => c.notNull())
        .addColumn('parent_key', varchar)
        .addColumn('action', varchar, (c) => c.notNull())
        .addColumn('actor', text, (c) => c.notNull())
        .addColumn('before_state', text)
        .addColumn('after_state', text)
        .addColumn('reverts', sql`bigint`)
        .execute();
      await db.schema
        .createIndex('changes_namespace_id_idx')
        .ifNotExists()
        .on('changes')
        .columns(['namespace_key', 'id'])
        .execute();
      await db.schema.createIndex('changes_created_at_idx').ifNotExists().on('changes').column('created_at').execute();
    },
    async down(db: Db) {
      await db.schema.dropTable('changes').ifExists().execute();
    },
  };
}
