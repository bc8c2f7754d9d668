// The static list of migrations, in order. Kysely's Migrator runs them at start and for `vexil migrate`.

import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { DialectName } from '../db.js';
import { initialSchema } from './001-initial-schema.js';
import { foreignKeyIndexes } from './002-foreign-key-indexes.js';
import { seedState } from './003-seed-state.js';
import { changes } from './004-changes.js';
import { auditDelivery } from './005-audit-delivery.js';
import { changeRevisions } from './006-change-revisions.js';
import { loginStates } from './007-login-states.js';

export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '001-initial-schema': initialSchema(dialect),
    '002-foreign-key-indexes': foreignKeyIndexes(dialect),
    '003-seed-state': seedState(dialect),
    '004-changes': changes(dialect),
    '005-audit-delivery': auditDelivery(dialect),
    '006-change-revisions': changeRevisions(dialect),
    '007-login-states': loginStates(dialect),
  };
}

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations() {
    return this.migrations;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on the untyped schema
export function createMigrator(db: Kysely<any>, dialect: DialectName): Migrator {
  return new Migrator({
    db,
    provider: new StaticMigrationProvider(migrationsFor(dialect)),
    migrationTableName: 'vexil_migrations',
    migrationLockTableName: 'vexil_migrations_lock',
  });
}

export interface MigrateOutcome {
  applied: string[];
}

/** Runs every pending migration; throws with the failing migration's name and error. */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on the untyped schema
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<MigrateOutcome> {
  const result: MigrationResultSet = await createMigrator(db, dialect).migrateToLatest();
  const failed = result.results?.find((r) => r.status === 'Error');
  if (result.error) {
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`.replace('  ', ' '));
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
