// The core's migrations, and the migrator that runs a list of them. A feature's migrations live in its
// folder (features/<name>/) and storage may not import features, so app/migrations.ts composes the whole
// ordered list; Kysely's Migrator runs it at start and for `vexil migrate`. Names are what existing
// databases recorded in vexil_migrations: never rename one, and number a new one after the highest,
// wherever it lives.

import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { DialectName } from '../db.js';
import { initialSchema } from './001-initial-schema.js';
import { foreignKeyIndexes } from './002-foreign-key-indexes.js';
import { seedState } from './003-seed-state.js';
import { changes } from './004-changes.js';
import { changeRevisions } from './006-change-revisions.js';
import { loginStates } from './007-login-states.js';
import { tokenRoles } from './008-token-roles.js';

/** A migration by name, built for a dialect (the schema differs by database in places). */
export type MigrationsFor = (dialect: DialectName) => Record<string, Migration>;

/** The core's migrations; '005-audit-delivery' is audit's (features/audit/migration.ts). */
export const coreMigrations: MigrationsFor = (dialect) => {
  return {
    '001-initial-schema': initialSchema(dialect),
    '002-foreign-key-indexes': foreignKeyIndexes(dialect),
    '003-seed-state': seedState(dialect),
    '004-changes': changes(dialect),
    '006-change-revisions': changeRevisions(dialect),
    '007-login-states': loginStates(dialect),
    '008-token-roles': tokenRoles(dialect),
  };
};

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations() {
    return this.migrations;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on the untyped schema
export function createMigrator(db: Kysely<any>, migrations: Record<string, Migration>): Migrator {
  return new Migrator({
    db,
    provider: new StaticMigrationProvider(migrations),
    migrationTableName: 'vexil_migrations',
    migrationLockTableName: 'vexil_migrations_lock',
  });
}

export interface MigrateOutcome {
  applied: string[];
}

/** Runs every pending one of `migrations`; throws with the failing migration's name and error. */
export async function runMigrations(
  // biome-ignore lint/suspicious/noExplicitAny: the migrator works on the untyped schema
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<MigrateOutcome> {
  const result: MigrationResultSet = await createMigrator(db, migrations).migrateToLatest();
  const failed = result.results?.find((r) => r.status === 'Error');
  if (result.error) {
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`.replace('  ', ' '));
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
