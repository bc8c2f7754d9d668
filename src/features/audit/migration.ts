// audit_delivery: how far each audit sink has delivered the changes table (issue 28), so delivery
// survives restarts and moves between instances. `delivered_through` is the highest change id handled;
// `gaps` (JSON) lists the id ranges below it that were not yet visible when it was passed — on
// PostgreSQL and MySQL a smaller id can commit after a larger one — and are still watched for a while
// (docs/adr/0025-audit-sinks-deliver-from-the-changes-table.md).

import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../../storage/db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

export function auditDelivery(dialect: DialectName): Migration {
  const timestamp = dialect === 'mysql' ? sql`datetime(3)` : dialect === 'sqlite' ? sql`text` : sql`timestamptz`;
  const text = dialect === 'mysql' ? sql`longtext` : sql`text`;
  return {
    async up(db: Db) {
      let table = db.schema.createTable('audit_delivery').ifNotExists();
      if (dialect === 'mysql') table = table.modifyEnd(sql`default character set utf8mb4 collate utf8mb4_bin`);
      await table
        .addColumn('sink', sql`varchar(255)`, (c) => c.primaryKey())
        .addColumn('delivered_through', sql`bigint`, (c) => c.notNull())
        .addColumn('gaps', text, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
    },
    async down(db: Db) {
      await db.schema.dropTable('audit_delivery').ifExists().execute();
    },
  };
}
