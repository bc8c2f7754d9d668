// changes.revision: the namespace revision each recorded write left behind (issue 42), so a write that
// carries a precondition ("nothing of this object changed after revision R") can find the changes
// made after R to the object and its parts in one indexed read (ADR 0035). Rows recorded before this
// migration keep null: they are older than any revision a client can hold after the upgrade… nearly;
// see the ADR.

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function changeRevisions(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      // Safe to run again after a partial failure (DDL is not transactional everywhere).
      const changes = (await db.introspection.getTables()).find((t) => t.name === 'changes');
      if (!changes?.columns.some((c) => c.name === 'revision')) {
        await db.schema.alterTable('changes').addColumn('revision', sql`bigint`).execute();
      }
      await db.schema
        .createIndex('changes_namespace_revision_idx')
        .ifNotExists()
        .on('changes')
        .columns(['namespace_key', 'revision'])
        .execute();
    },
    async down(db: Db) {
      const drop = db.schema.dropIndex('changes_namespace_revision_idx').ifExists();
      await (dialect === 'mysql' ? drop.on('changes') : drop).execute();
      await db.schema.alterTable('changes').dropColumn('revision').execute();
    },
  };
}
