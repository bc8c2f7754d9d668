// CockroachDB speaks the PostgreSQL protocol, so it rides on Kysely's PostgreSQL dialect. The one
// difference Kysely's migrator meets is the lock: CockroachDB has no advisory locks
// (pg_advisory_xact_lock is a no-op there), so the migration lock is a row lock on Kysely's own lock
// table, taken with SELECT … FOR UPDATE inside the migration transaction.

import { type DialectAdapter, type Kysely, type MigrationLockOptions, PostgresAdapter, PostgresDialect, sql } from 'kysely';

export class CockroachAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await migrationLockQuery(options).execute(db);
  }
}

/** The row-lock statement, exposed so its SQL can be unit-tested without a live CockroachDB. */
export function migrationLockQuery(options: MigrationLockOptions) {
  const table = options.lockTableSchema
    ? sql.table(`${options.lockTableSchema}.${options.lockTable}`)
    : sql.table(options.lockTable);
  return sql`select ${sql.ref('id')} from ${table} where ${sql.ref('id')} = ${options.lockRowId} for update`;
}

export class CockroachDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new CockroachAdapter();
  }
}
