// Whole namespaces in one go, for import and export: a namespace's content read by keys in one
// consistent transaction (a fixed number of queries, whatever its size), and content written as
// multi-row inserts. An import of 10,000 flags through the per-object writes of the management API
// took minutes; here it is a few hundred statements (docs/performance.md).

import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { FlagContent, NamespaceContent } from '../domain/namespace-content.js';
import { DEFAULT_NAMESPACE, type RolloutSegment } from '../domain/types.js';
import { flagRow } from './codecs/flags.js';
import { rolloutRow, rolloutSegmentRow, segmentReferenceRows, thresholdRow } from './codecs/rollouts.js';
import { distributionRow, ruleRow, ruleSegmentRows } from './codecs/rules.js';
import { constraintRow, segmentRow } from './codecs/segments.js';
import { variantRow } from './codecs/variants.js';
import type { DialectName } from './db.js';
import { readContent, readContentIn } from './namespace-content.js';
import { toDate } from './rows.js';
import type { Database } from './schema.js';
import type { Executor } from './store.js';
import type { Tx } from './transaction.js';

/** What import and export need of storage beyond the per-resource stores. */
export interface DocumentStore {
  /** Every namespace key, in creation order. */
  namespaceKeys(db: Executor): Promise<string[]>;
  /** The namespace's content read consistently; undefined when it does not exist. */
  read(db: Kysely<Database>, namespaceKey: string): Promise<NamespaceContent | undefined>;
  /** The same, inside a transaction the caller already holds. */
  readIn(tx: Tx, namespaceKey: string): Promise<NamespaceContent | undefined>;
  /** Keys of the namespace's flags and segments. */
  existingKeys(db: Executor, namespaceKey: string): Promise<{ flags: Set<string>; segments: Set<string> }>;
  /** Writes flags (with variants, default variants, rules, rollouts) and segments (with constraints). */
  insert(tx: Tx, namespaceKey: string, content: Pick<NamespaceContent, 'flags' | 'segments'>): Promise<void>;
  /** Deletes every namespace with its content, then creates `default` again as the migration does. */
  dropAll(tx: Tx): Promise<string[]>;
  /** The hash of the seed last applied under `name`, if any. */
  seedHash(db: Executor, name: string): Promise<string | undefined>;
  recordSeed(tx: Tx, name: string, hash: string): Promise<void>;
}

/**
 * Rows per insert statement, and the statement is what holds the event loop on SQLite, whose driver
 * answers synchronously: 500 rows took 14 ms (up to 125 ms on the loaded machine), 100 rows under
 * 1 ms (up to 48), the import no slower within the noise; the cost per row grows with the statement
 * (ADR 0042).
 */
const ROWS_PER_INSERT = 100;

async function insertRows<T>(insert: (rows: T[]) => Promise<unknown>, rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    // SQLite's driver answers synchronously: a turn between statements lets /health and evaluations
    // from held snapshots answer during a large import (ADR 0013).
    if (i > 0) await nextTurn();
    await insert(rows.slice(i, i + ROWS_PER_INSERT));
  }
}

type Row = Record<string, unknown>;

/**
 * `items.flatMap(fn)` with an event-loop turn after every ROWS_PER_INSERT items: building one table's
 * rows for 100,000 flags is itself a stretch that /health and evaluations would wait behind.
 */
async function rowsInTurns<T, R extends object>(items: readonly T[], fn: (item: T) => R | R[]): Promise<R[]> {
  const rows: R[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % ROWS_PER_INSERT === 0) await nextTurn();
    const out = fn(items[i] as T);
    if (Array.isArray(out)) rows.push(...out);
    else rows.push(out);
  }
  return rows;
}

/** PostgreSQL's type of each column bulkInsert writes, for the casts of its arrays. */
const POSTGRES_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  segments: { match_type: 'int4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  constraints: { type: 'int4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  flags: { enabled: 'bool', type: 'int4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  variants: { created_at: 'timestamptz', updated_at: 'timestamptz' },
  rules: { rank: 'int4', segment_operator: 'int4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  rule_segments: { position: 'int4' },
  distributions: { rollout: 'float4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  rollouts: { type: 'int4', rank: 'int4', created_at: 'timestamptz', updated_at: 'timestamptz' },
  rollout_thresholds: { percentage: 'float4', value: 'bool' },
  rollout_segments: { value: 'bool', segment_operator: 'int4' },
  rollout_segment_references: { position: 'int4' },
};

/**
 * Rows per statement on PostgreSQL, where a statement binds one array per column. The driver writes
 * the arrays as text in one synchronous stretch: 10,000 rows held the event loop 0.26–0.45 s during a
 * 30,000-flag import, 2,000 rows 0.07–0.22 s, the import no slower within the noise (ADR 0034).
 */
const POSTGRES_ROWS_PER_INSERT = 2_000;

/**
 * Writes rows of one table. PostgreSQL gets one array per column (`insert … select * from unnest(…)`):
 * a handful of parameters instead of thousands, which the driver sends and the server parses in a
 * fraction of the time (a 10,000-flag import: measured in docs/performance.md). Elsewhere multi-row
 * VALUES, ROWS_PER_INSERT rows at a time.
 */
function bulkInsert(tx: Tx, dialect: DialectName): (table: keyof Database, rows: Row[]) => Promise<void> {
  return async (table, rows) => {
    const first = rows[0];
    if (first === undefined) return;
    if (dialect !== 'postgres') {
      await insertRows(
        (chunk) =>
          tx
            .insertInto(table)
            .values(chunk as never)
            .execute(),
        rows,
      );
      return;
    }
    const columns = Object.keys(first);
    const types = POSTGRES_TYPES[table] ?? {};
    for (let i = 0; i < rows.length; i += POSTGRES_ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + POSTGRES_ROWS_PER_INSERT);
      const arrays = columns.map((c) => sql`${chunk.map((r) => r[c])}::${sql.raw(types[c] ?? 'text')}[]`);
      await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)})`.execute(
        tx,
      );
    }
  };
}

/**
 * Ids that sort in the order they are made (UUID v7 layout: milliseconds, then a counter), so rows
 * that share a timestamp — a flag's variants, a rule's distributions — still list in document order.
 */
function orderedIds(now: number): () => string {
  const time = now.toString(16).padStart(12, '0').slice(-12);
  const random = randomBytes(6).toString('hex');
  let counter = 0;
  return () => {
    const c = (counter++).toString(16).padStart(6, '0');
    return `${time.slice(0, 8)}-${time.slice(8)}-7${c.slice(0, 3)}-8${c.slice(3)}-${random}`;
  };
}

/** The latest created_at among the namespace's rows of the table, in epoch milliseconds (0: none). */
async function latest(tx: Tx, table: 'flags' | 'segments', namespaceKey: string): Promise<number> {
  const row = await tx
    .selectFrom(table)
    .select((eb) => eb.fn.max('created_at').as('latest'))
    .where('namespace_key', '=', namespaceKey)
    .executeTakeFirst();
  const value = row?.latest as Date | string | null | undefined;
  return value === null || value === undefined ? 0 : toDate(value).getTime();
}

async function insertContent(
  tx: Tx,
  dialect: DialectName,
  namespaceKey: string,
  content: Pick<NamespaceContent, 'flags' | 'segments'>,
): Promise<void> {
  const bulk = bulkInsert(tx, dialect);
  // Flags and segments list by creation time: each gets its own millisecond, counted back from now (so
  // a large import is not stamped in the future) but never before what the namespace already holds.
  const now = Date.now();
  const nextId = orderedIds(now);
  const segmentBase = Math.max(now - content.segments.length, (await latest(tx, 'segments', namespaceKey)) + 1);
  const flagBase = Math.max(now - content.flags.length, (await latest(tx, 'flags', namespaceKey)) + 1);

  const segments = content.segments.map((s, i) => ({ s, at: new Date(segmentBase + i) }));
  await bulk('segments', await rowsInTurns(segments, ({ s, at }) => segmentRow(namespaceKey, s.key, s, at)));
  await bulk(
    'constraints',
    await rowsInTurns(segments, ({ s, at }) =>
      s.constraints.map((c) => constraintRow(nextId(), namespaceKey, s.key, c, at)),
    ),
  );

  const flags = content.flags.map((f, i) => ({ f, at: new Date(flagBase + i) }));
  const variantIds = new Map<string, string>();
  const variantRows = await rowsInTurns(flags, ({ f, at }) =>
    f.variants.map((v) => {
      const id = nextId();
      variantIds.set(`${f.key}\u0000${v.key}`, id);
      return variantRow(id, namespaceKey, f.key, v, at);
    }),
  );
  const variantId = (flag: FlagContent, key: string): string => {
    const id = variantIds.get(`${flag.key}\u0000${key}`);
    if (id === undefined) throw new Error(`variant "${key}" of flag "${flag.key}" is not in the content`);
    return id;
  };
  // Flags first without their default variant (the variants reference the flags), then the variants,
  // then the default variants: the flags ↔ variants references form a cycle.
  await bulk('flags', await rowsInTurns(flags, ({ f, at }) => flagRow(namespaceKey, f, at)));
  await bulk('variants', variantRows);
  // The default variants, a few hundred flags per statement (one UPDATE per flag was a third of a
  // 10,000-flag import on PostgreSQL).
  const defaults = await rowsInTurns(flags, ({ f }) =>
    f.defaultVariantKey === undefined ? [] : [{ key: f.key, id: variantId(f, f.defaultVariantKey) }],
  );
  await insertRows(async (batch) => {
    const choices = sql.join(
      batch.map(({ key, id }) => sql`when ${key} then ${id}`),
      sql` `,
    );
    await tx
      .updateTable('flags')
      .set({ default_variant_id: sql<string>`case ${sql.ref('key')} ${choices} end` })
      .where('namespace_key', '=', namespaceKey)
      .where(
        'key',
        'in',
        batch.map((d) => d.key),
      )
      .execute();
  }, defaults);

  const rules = await rowsInTurns(flags, ({ f, at }) => f.rules.map((rule) => ({ id: nextId(), f, at, rule })));
  await bulk('rules', await rowsInTurns(rules, ({ id, f, at, rule }) => ruleRow(id, namespaceKey, f.key, rule, at)));
  await bulk(
    'rule_segments',
    await rowsInTurns(rules, ({ id, rule }) => ruleSegmentRows(id, namespaceKey, rule.segmentKeys)),
  );
  await bulk(
    'distributions',
    await rowsInTurns(rules, ({ id, f, at, rule }) =>
      rule.distributions.map((d) => distributionRow(nextId(), id, variantId(f, d.variantKey), d.rollout, at)),
    ),
  );

  const rollouts = await rowsInTurns(flags, ({ f, at }) =>
    f.rollouts.map((rollout) => ({ id: nextId(), segmentId: nextId(), f, at, rollout })),
  );
  await bulk(
    'rollouts',
    await rowsInTurns(rollouts, ({ id, f, at, rollout }) => rolloutRow(id, namespaceKey, f.key, rollout, at)),
  );
  await bulk(
    'rollout_thresholds',
    await rowsInTurns(rollouts, ({ id, segmentId, rollout }) =>
      rollout.threshold ? [thresholdRow(segmentId, namespaceKey, id, rollout.threshold)] : [],
    ),
  );
  const segmentRollouts = rollouts.filter((r) => r.rollout.segment !== undefined);
  await bulk(
    'rollout_segments',
    await rowsInTurns(segmentRollouts, ({ id, segmentId, rollout }) =>
      rolloutSegmentRow(segmentId, id, rollout.segment as RolloutSegment),
    ),
  );
  await bulk(
    'rollout_segment_references',
    await rowsInTurns(segmentRollouts, ({ segmentId, rollout }) =>
      segmentReferenceRows(segmentId, namespaceKey, (rollout.segment as RolloutSegment).segmentKeys),
    ),
  );
}

async function dropAll(tx: Tx): Promise<string[]> {
  const keys = (await tx.selectFrom('namespaces').select('key').orderBy('created_at').orderBy('key').execute()).map(
    (r) => r.key,
  );
  // Default variants first: MySQL cannot follow the flags → variants → flags (SET NULL) cycle within one cascade.
  await tx.updateTable('flags').set({ default_variant_id: null }).where('default_variant_id', 'is not', null).execute();
  // Rules and rollouts before segments: their segment references RESTRICT.
  await tx.deleteFrom('rules').execute();
  await tx.deleteFrom('rollouts').execute();
  await tx.deleteFrom('flags').execute();
  await tx.deleteFrom('segments').execute();
  await tx.deleteFrom('namespaces').execute();
  const now = new Date();
  await tx
    .insertInto('namespaces')
    .values({
      key: DEFAULT_NAMESPACE,
      name: 'Default',
      description: 'Default namespace',
      protected: true,
      revision: 1,
      created_at: now,
      updated_at: now,
      state_modified_at: now,
    })
    .execute();
  return keys;
}

export function sqlDocumentStore(dialect: DialectName): DocumentStore {
  return {
    async namespaceKeys(db) {
      const rows = await db.selectFrom('namespaces').select('key').orderBy('created_at').orderBy('key').execute();
      return rows.map((r) => r.key);
    },
    read: (db, namespaceKey) => readContent(db, dialect, namespaceKey),
    readIn: readContentIn,
    async existingKeys(db, namespaceKey) {
      const flags = await db.selectFrom('flags').select('key').where('namespace_key', '=', namespaceKey).execute();
      const segments = await db
        .selectFrom('segments')
        .select('key')
        .where('namespace_key', '=', namespaceKey)
        .execute();
      return { flags: new Set(flags.map((r) => r.key)), segments: new Set(segments.map((r) => r.key)) };
    },
    insert: (tx, namespaceKey, content) => insertContent(tx, dialect, namespaceKey, content),
    dropAll,
    async seedHash(db, name) {
      const row = await db.selectFrom('seed_state').select('hash').where('name', '=', name).executeTakeFirst();
      return row?.hash;
    },
    async recordSeed(tx, name, hash) {
      const now = new Date();
      const updated = await tx
        .updateTable('seed_state')
        .set({ hash, applied_at: now })
        .where('name', '=', name)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        await tx.insertInto('seed_state').values({ name, hash, applied_at: now }).execute();
      }
    },
  };
}
