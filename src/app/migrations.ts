// Every migration of the app, in order: the core's (storage/migrations) and each feature's, composed
// here because storage may not import features. Kysely orders them by name, and so does this list, so
// a feature's migration runs where its number puts it; a name used twice is a mistake caught at start.

import type { Kysely, Migration } from 'kysely';
import { AUDIT_MIGRATIONS } from '../features/audit/index.js';
import { ROLE_BINDING_MIGRATIONS } from '../features/role-bindings/index.js';
import type { DialectName } from '../storage/db.js';
import { coreMigrations, type MigrateOutcome, type MigrationsFor, runMigrations } from '../storage/migrations/index.js';

const SOURCES: readonly MigrationsFor[] = [coreMigrations, AUDIT_MIGRATIONS, ROLE_BINDING_MIGRATIONS];

export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  const all: [string, Migration][] = [];
  for (const source of SOURCES) all.push(...Object.entries(source(dialect)));
  all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const names = new Set<string>();
  for (const [name] of all) {
    if (names.has(name)) throw new Error(`migration ${name} is defined twice`);
    names.add(name);
  }
  return Object.fromEntries(all);
}

/** Runs every pending migration; throws with the failing migration's name and error. */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on the untyped schema
export function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<MigrateOutcome> {
  return runMigrations(db, migrationsFor(dialect));
}
