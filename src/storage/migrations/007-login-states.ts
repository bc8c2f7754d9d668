// login_states: the sign-ins under way (OIDC, later GitHub), one row per authorize request, keyed by
// the SHA-256 of its `state` and consumed once at the callback (storage/login-states.ts). Kept in the
// database, not in memory, so a callback may reach another instance than the authorize request did
// (docs/adr/0037-sign-in-state-and-sessions.md).

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function loginStates(dialect: DialectName): Migration {
  const timestamp = dialect === 'mysql' ? sql`datetime(3)` : dialect === 'sqlite' ? sql`text` : sql`timestamptz`;
  return {
    async up(db: Db) {
      let table = db.schema.createTable('login_states').ifNotExists();
      if (dialect === 'mysql') table = table.modifyEnd(sql`default character set utf8mb4 collate utf8mb4_bin`);
      await table
        .addColumn('state_hash', sql`varchar(64)`, (c) => c.primaryKey())
        .addColumn('method', sql`integer`, (c) => c.notNull())
        .addColumn('provider', sql`varchar(255)`, (c) => c.notNull())
        .addColumn('nonce', sql`varchar(255)`, (c) => c.notNull())
        .addColumn('code_verifier', sql`varchar(255)`, (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('expires_at', timestamp, (c) => c.notNull())
        .execute();
    },
    async down(db: Db) {
      await db.schema.dropTable('login_states').ifExists().execute();
    },
  };
}
