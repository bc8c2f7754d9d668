// authentications.roles: the roles a token was made with (issue 41, ADR 46), as a JSON list of
// `{role, namespace}`. NULL for every authentication made before, and for tokens made without roles:
// those keep their meaning (everything within the token's namespace scope).

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function tokenRoles(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      // Safe to run again after a partial failure (DDL is not transactional everywhere), as 006 is.
      const table = (await db.introspection.getTables()).find((t) => t.name === 'authentications');
      if (table?.columns.some((c) => c.name === 'roles')) return;
      await db.schema
        .alterTable('authentications')
        .addColumn('roles', dialect === 'mysql' ? sql`longtext` : sql`text`)
        .execute();
    },
    async down(db: Db) {
      await db.schema.alterTable('authentications').dropColumn('roles').execute();
    },
  };
}
