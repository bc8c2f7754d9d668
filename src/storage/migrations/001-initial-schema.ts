// The whole Flipt-v1 logical schema, plus a per-namespace revision. Written once for every dialect;
// branches only for column types and the flags ↔ variants foreign-key cycle. Every statement is
// "if not exists" (or checked first) because MySQL DDL is not transactional: a migration that failed
// half-way must be safe to run again.

import { type ColumnDefinitionBuilder, type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;
type Col = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

const notNull: Col = (c) => c.notNull();

export function initialSchema(dialect: DialectName): Migration {
  // Keys compare case-sensitively on PostgreSQL and SQLite; MySQL needs a binary collation for the
  // same answers (otherwise `Foo` and `foo` collide).
  const tableOptions = <T extends { modifyEnd(s: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect === 'mysql' ? builder.modifyEnd(sql`default character set utf8mb4 collate utf8mb4_bin`) : builder;
  // Timestamps keep milliseconds; PostgreSQL's timestamptz and MySQL's DATETIME(3) read back as UTC
  // Dates (the MySQL pool runs with timezone 'Z'); SQLite keeps ISO-8601 text.
  const timestamp = dialect === 'mysql' ? sql`datetime(3)` : dialect === 'sqlite' ? sql`text` : sql`timestamptz`;
  const bool = dialect === 'sqlite' ? sql`integer` : sql`boolean`;
  const float = dialect === 'sqlite' ? sql`real` : dialect === 'mysql' ? sql`float` : sql`real`;
  const varchar = sql`varchar(255)`;
  // MySQL's TEXT holds 64 KB; attachments may be 1000 KB.
  const text = dialect === 'mysql' ? sql`longtext` : sql`text`;

  return {
    async up(db: Db) {
      await db.schema
        .createTable('namespaces')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('key', varchar, (c) => c.primaryKey())
        .addColumn('name', varchar, notNull)
        .addColumn('description', text, notNull)
        .addColumn('protected', bool, (c) => c.notNull().defaultTo(false))
        .addColumn('revision', sql`bigint`, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addColumn('state_modified_at', timestamp)
        .execute();

      const defaultExists = await db
        .selectFrom('namespaces')
        .select('key')
        .where('key', '=', 'default')
        .executeTakeFirst();
      if (!defaultExists) {
        const now = new Date();
        const stamp = dialect === 'sqlite' ? now.toISOString() : now;
        await db
          .insertInto('namespaces')
          .values({
            key: 'default',
            name: 'Default',
            description: 'Default namespace',
            protected: dialect === 'sqlite' ? 1 : true,
            revision: 0,
            created_at: stamp,
            updated_at: stamp,
          })
          .execute();
      }

      let flags = db.schema
        .createTable('flags')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('key', varchar, notNull)
        .addColumn('name', varchar, notNull)
        .addColumn('description', text, notNull)
        .addColumn('enabled', bool, (c) => c.notNull().defaultTo(false))
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('default_variant_id', varchar)
        .addColumn('metadata', text)
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addPrimaryKeyConstraint('flags_pkey', ['namespace_key', 'key'])
        .addForeignKeyConstraint('flags_namespace_fk', ['namespace_key'], 'namespaces', ['key'], (fk) =>
          fk.onDelete('cascade'),
        );
      // SQLite resolves foreign keys lazily, so the flag → default variant key can be declared before
      // the variants table exists; the other dialects get it by ALTER TABLE below.
      if (dialect === 'sqlite') {
        flags = flags.addForeignKeyConstraint(
          'flags_default_variant_fk',
          ['default_variant_id'],
          'variants',
          ['id'],
          (fk) => fk.onDelete('set null'),
        );
      }
      await flags.execute();

      await db.schema
        .createTable('variants')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('flag_key', varchar, notNull)
        .addColumn('key', varchar, notNull)
        .addColumn('name', varchar, notNull)
        .addColumn('description', text, notNull)
        .addColumn('attachment', text)
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addUniqueConstraint('variants_namespace_flag_key_unique', ['namespace_key', 'flag_key', 'key'])
        .addForeignKeyConstraint(
          'variants_flag_fk',
          ['namespace_key', 'flag_key'],
          'flags',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('cascade'),
        )
        .execute();

      if (dialect !== 'sqlite' && !(await foreignKeyExists(db, dialect, 'flags', 'flags_default_variant_fk'))) {
        await db.schema
          .alterTable('flags')
          .addForeignKeyConstraint('flags_default_variant_fk', ['default_variant_id'], 'variants', ['id'], (fk) =>
            fk.onDelete('set null'),
          )
          .execute();
      }

      await db.schema
        .createTable('segments')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('key', varchar, notNull)
        .addColumn('name', varchar, notNull)
        .addColumn('description', text, notNull)
        .addColumn('match_type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addPrimaryKeyConstraint('segments_pkey', ['namespace_key', 'key'])
        .addForeignKeyConstraint('segments_namespace_fk', ['namespace_key'], 'namespaces', ['key'], (fk) =>
          fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('constraints')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('segment_key', varchar, notNull)
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('property', varchar, notNull)
        .addColumn('operator', varchar, notNull)
        .addColumn('value', text, notNull)
        .addColumn('description', text, notNull)
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addForeignKeyConstraint(
          'constraints_segment_fk',
          ['namespace_key', 'segment_key'],
          'segments',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rules')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('flag_key', varchar, notNull)
        .addColumn('rank', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('segment_operator', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addForeignKeyConstraint(
          'rules_flag_fk',
          ['namespace_key', 'flag_key'],
          'flags',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rule_segments')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('rule_id', varchar, notNull)
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('segment_key', varchar, notNull)
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('rule_segments_pkey', ['rule_id', 'namespace_key', 'segment_key'])
        .addForeignKeyConstraint('rule_segments_rule_fk', ['rule_id'], 'rules', ['id'], (fk) => fk.onDelete('cascade'))
        .addForeignKeyConstraint(
          'rule_segments_segment_fk',
          ['namespace_key', 'segment_key'],
          'segments',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('restrict'),
        )
        .execute();

      await db.schema
        .createTable('distributions')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('rule_id', varchar, notNull)
        .addColumn('variant_id', varchar, notNull)
        .addColumn('rollout', float, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addForeignKeyConstraint('distributions_rule_fk', ['rule_id'], 'rules', ['id'], (fk) => fk.onDelete('cascade'))
        .addForeignKeyConstraint('distributions_variant_fk', ['variant_id'], 'variants', ['id'], (fk) =>
          fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rollouts')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('flag_key', varchar, notNull)
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('description', text, notNull)
        .addColumn('rank', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addForeignKeyConstraint(
          'rollouts_flag_fk',
          ['namespace_key', 'flag_key'],
          'flags',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rollout_thresholds')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('rollout_id', varchar, (c) => c.notNull().unique())
        .addColumn('percentage', float, (c) => c.notNull().defaultTo(0))
        .addColumn('value', bool, (c) => c.notNull().defaultTo(false))
        .addForeignKeyConstraint('rollout_thresholds_rollout_fk', ['rollout_id'], 'rollouts', ['id'], (fk) =>
          fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rollout_segments')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('rollout_id', varchar, (c) => c.notNull().unique())
        .addColumn('value', bool, (c) => c.notNull().defaultTo(false))
        .addColumn('segment_operator', 'integer', (c) => c.notNull().defaultTo(0))
        .addForeignKeyConstraint('rollout_segments_rollout_fk', ['rollout_id'], 'rollouts', ['id'], (fk) =>
          fk.onDelete('cascade'),
        )
        .execute();

      await db.schema
        .createTable('rollout_segment_references')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('rollout_segment_id', varchar, notNull)
        .addColumn('namespace_key', varchar, notNull)
        .addColumn('segment_key', varchar, notNull)
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('rollout_segment_references_pkey', [
          'rollout_segment_id',
          'namespace_key',
          'segment_key',
        ])
        .addForeignKeyConstraint(
          'rollout_segment_references_fk',
          ['rollout_segment_id'],
          'rollout_segments',
          ['id'],
          (fk) => fk.onDelete('cascade'),
        )
        .addForeignKeyConstraint(
          'rollout_segment_references_segment_fk',
          ['namespace_key', 'segment_key'],
          'segments',
          ['namespace_key', 'key'],
          (fk) => fk.onDelete('restrict'),
        )
        .execute();

      await db.schema
        .createTable('authentications')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('id', varchar, (c) => c.primaryKey())
        .addColumn('hashed_client_token', varchar, notNull)
        .addColumn('method', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('metadata', text, notNull)
        .addColumn('expires_at', timestamp)
        .addColumn('created_at', timestamp, notNull)
        .addColumn('updated_at', timestamp, notNull)
        .addUniqueConstraint('hashed_client_token_authentications_index', ['hashed_client_token'])
        .execute();

      await db.schema
        .createTable('operation_lock')
        .ifNotExists()
        .$call(tableOptions)
        .addColumn('operation', varchar, (c) => c.primaryKey())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_acquired_at', timestamp)
        .addColumn('acquired_until', timestamp)
        .execute();
    },
  };
}

async function foreignKeyExists(db: Db, dialect: DialectName, table: string, name: string): Promise<boolean> {
  const schemaFilter = dialect === 'mysql' ? sql`database()` : sql`current_schema()`;
  const row = await sql<{ n: number | string }>`
    select count(*) as n from information_schema.table_constraints
    where table_schema = ${schemaFilter} and table_name = ${table} and constraint_name = ${name}`.execute(db);
  return Number(row.rows[0]?.n ?? 0) > 0;
}
