// An index on the referencing columns of every foreign key whose columns no key of its table already
// leads with. A cascade or a RESTRICT check looks up the child rows of each parent row it deletes;
// without an index that lookup scans the whole child table. Deleting a namespace of 10,000 flags
// (`DELETE /api/v1/namespaces/{key}?force=true`) then took 58 s on SQLite, holding the process the
// whole time: per flag a scan of rules and rollouts, per variant a scan of flags and distributions,
// per rule a scan of distributions. The loads of a namespace's snapshot filter these tables by
// namespace too, and use the same indexes.
//
// MySQL (InnoDB) creates such an index by itself for every foreign key, so there is nothing to add
// there (and MySQL, unlike MariaDB, has no CREATE INDEX IF NOT EXISTS). Elsewhere every index is
// "if not exists": CockroachDB runs migrations outside a transaction, so a run that failed half-way
// must be safe to repeat.

import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../db.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run on the schema builder, before types exist
type Db = Kysely<any>;

/** [index, table, columns]: the foreign keys the primary and unique keys of 001 do not cover. */
export const FOREIGN_KEY_INDEXES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['flags_default_variant_idx', 'flags', ['default_variant_id']],
  ['constraints_segment_idx', 'constraints', ['namespace_key', 'segment_key']],
  ['rules_flag_idx', 'rules', ['namespace_key', 'flag_key']],
  ['rule_segments_segment_idx', 'rule_segments', ['namespace_key', 'segment_key']],
  ['distributions_rule_idx', 'distributions', ['rule_id']],
  ['distributions_variant_idx', 'distributions', ['variant_id']],
  ['rollouts_flag_idx', 'rollouts', ['namespace_key', 'flag_key']],
  ['rollout_segment_references_segment_idx', 'rollout_segment_references', ['namespace_key', 'segment_key']],
];

export function foreignKeyIndexes(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      if (dialect === 'mysql') return;
      for (const [name, table, columns] of FOREIGN_KEY_INDEXES) {
        await db.schema
          .createIndex(name)
          .ifNotExists()
          .on(table)
          .columns([...columns])
          .execute();
      }
    },
    async down(db: Db) {
      if (dialect === 'mysql') return;
      for (const [name] of FOREIGN_KEY_INDEXES) await db.schema.dropIndex(name).ifExists().execute();
    },
  };
}
