// Whole namespaces in one go, for import and export: a namespace's content read by keys in one
// consistent transaction (a fixed number of queries, whatever its size), and content written as
// multi-row inserts. An import of 10,000 flags through the per-object writes of the management API
// took minutes; here it is a few hundred statements (docs/performance.md).

import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { FlagContent, NamespaceContent, RolloutContent, SegmentContent } from '../domain/namespace-content.js';
import {
  COMPARISON_TYPES,
  DEFAULT_NAMESPACE,
  FLAG_TYPES,
  MATCH_TYPES,
  type RolloutSegment,
  SEGMENT_OPERATORS,
} from '../domain/types.js';
import { DIALECT_CAPABILITIES, type DialectName } from './db.js';
import { toBool, toDate } from './rows.js';
import type { Database } from './schema.js';
import type { Executor } from './store.js';
import { inTransaction, type Tx } from './transaction.js';

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
 * (ADR 0038).
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

function segmentOperatorInt(op: RolloutSegment['segmentOperator']): number {
  return SEGMENT_OPERATORS.indexOf(op);
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
  await bulk(
    'segments',
    await rowsInTurns(segments, ({ s, at }) => ({
      namespace_key: namespaceKey,
      key: s.key,
      name: s.name,
      description: s.description,
      match_type: MATCH_TYPES.indexOf(s.matchType),
      created_at: at,
      updated_at: at,
    })),
  );
  await bulk(
    'constraints',
    await rowsInTurns(segments, ({ s, at }) =>
      s.constraints.map((c) => ({
        id: nextId(),
        namespace_key: namespaceKey,
        segment_key: s.key,
        type: COMPARISON_TYPES.indexOf(c.type),
        property: c.property,
        operator: c.operator,
        value: c.value,
        description: c.description,
        created_at: at,
        updated_at: at,
      })),
    ),
  );

  const flags = content.flags.map((f, i) => ({ f, at: new Date(flagBase + i) }));
  const variantIds = new Map<string, string>();
  const variantRows = await rowsInTurns(flags, ({ f, at }) =>
    f.variants.map((v) => {
      const id = nextId();
      variantIds.set(`${f.key}\u0000${v.key}`, id);
      return {
        id,
        namespace_key: namespaceKey,
        flag_key: f.key,
        key: v.key,
        name: v.name,
        description: v.description,
        attachment: v.attachment === '' ? null : v.attachment,
        created_at: at,
        updated_at: at,
      };
    }),
  );
  const variantId = (flag: FlagContent, key: string): string => {
    const id = variantIds.get(`${flag.key}\u0000${key}`);
    if (id === undefined) throw new Error(`variant "${key}" of flag "${flag.key}" is not in the content`);
    return id;
  };
  // Flags first without their default variant (the variants reference the flags), then the variants,
  // then the default variants: the flags ↔ variants references form a cycle.
  await bulk(
    'flags',
    await rowsInTurns(flags, ({ f, at }) => ({
      namespace_key: namespaceKey,
      key: f.key,
      name: f.name,
      description: f.description,
      enabled: f.enabled,
      type: FLAG_TYPES.indexOf(f.type),
      default_variant_id: null,
      metadata: f.metadata && Object.keys(f.metadata).length ? JSON.stringify(f.metadata) : null,
      created_at: at,
      updated_at: at,
    })),
  );
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
  await bulk(
    'rules',
    await rowsInTurns(rules, ({ id, f, at, rule }) => ({
      id,
      namespace_key: namespaceKey,
      flag_key: f.key,
      rank: rule.rank,
      segment_operator: segmentOperatorInt(rule.segmentOperator),
      created_at: at,
      updated_at: at,
    })),
  );
  await bulk(
    'rule_segments',
    await rowsInTurns(rules, ({ id, rule }) =>
      rule.segmentKeys.map((segmentKey, position) => ({
        rule_id: id,
        namespace_key: namespaceKey,
        segment_key: segmentKey,
        position,
      })),
    ),
  );
  await bulk(
    'distributions',
    await rowsInTurns(rules, ({ id, f, at, rule }) =>
      rule.distributions.map((d) => ({
        id: nextId(),
        rule_id: id,
        variant_id: variantId(f, d.variantKey),
        rollout: d.rollout,
        created_at: at,
        updated_at: at,
      })),
    ),
  );

  const rollouts = await rowsInTurns(flags, ({ f, at }) =>
    f.rollouts.map((rollout) => ({ id: nextId(), segmentId: nextId(), f, at, rollout })),
  );
  await bulk(
    'rollouts',
    await rowsInTurns(rollouts, ({ id, f, at, rollout }) => ({
      id,
      namespace_key: namespaceKey,
      flag_key: f.key,
      type: rollout.segment ? 1 : 2,
      description: rollout.description,
      rank: rollout.rank,
      created_at: at,
      updated_at: at,
    })),
  );
  await bulk(
    'rollout_thresholds',
    await rowsInTurns(rollouts, ({ id, segmentId, rollout }) =>
      rollout.threshold
        ? [
            {
              id: segmentId,
              namespace_key: namespaceKey,
              rollout_id: id,
              percentage: rollout.threshold.percentage,
              value: rollout.threshold.value,
            },
          ]
        : [],
    ),
  );
  const segmentRollouts = rollouts.filter((r) => r.rollout.segment !== undefined);
  await bulk(
    'rollout_segments',
    await rowsInTurns(segmentRollouts, ({ id, segmentId, rollout }) => ({
      id: segmentId,
      rollout_id: id,
      value: (rollout.segment as RolloutSegment).value,
      segment_operator: segmentOperatorInt((rollout.segment as RolloutSegment).segmentOperator),
    })),
  );
  await bulk(
    'rollout_segment_references',
    await rowsInTurns(segmentRollouts, ({ segmentId, rollout }) =>
      (rollout.segment as RolloutSegment).segmentKeys.map((segmentKey, position) => ({
        rollout_segment_id: segmentId,
        namespace_key: namespaceKey,
        segment_key: segmentKey,
        position,
      })),
    ),
  );
}

async function readContent(t: Tx, namespaceKey: string): Promise<NamespaceContent | undefined> {
  const ns = await t
    .selectFrom('namespaces')
    .select(['key', 'name', 'description'])
    .where('key', '=', namespaceKey)
    .executeTakeFirst();
  if (!ns) return undefined;

  const segments: SegmentContent[] = [];
  const segmentByKey = new Map<string, SegmentContent>();
  for (const s of await t
    .selectFrom('segments')
    .select(['key', 'name', 'description', 'match_type'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('key')
    .execute()) {
    const segment: SegmentContent = {
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: MATCH_TYPES[s.match_type] ?? 'ALL_MATCH_TYPE',
      constraints: [],
    };
    segments.push(segment);
    segmentByKey.set(s.key, segment);
  }
  for (const c of await t
    .selectFrom('constraints')
    .select(['segment_key', 'type', 'property', 'operator', 'value', 'description'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('id')
    .execute()) {
    segmentByKey.get(c.segment_key)?.constraints.push({
      type: COMPARISON_TYPES[c.type] ?? 'UNKNOWN_COMPARISON_TYPE',
      property: c.property,
      operator: c.operator,
      value: c.value,
      description: c.description ?? '',
    });
  }

  const flags: FlagContent[] = [];
  const flagByKey = new Map<string, FlagContent>();
  const defaultVariantIds = new Map<string, string>();
  for (const f of await t
    .selectFrom('flags')
    .select(['key', 'name', 'description', 'enabled', 'type', 'metadata', 'default_variant_id'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('key')
    .execute()) {
    const flag: FlagContent = {
      key: f.key,
      name: f.name,
      description: f.description,
      enabled: toBool(f.enabled),
      type: FLAG_TYPES[f.type] ?? 'VARIANT_FLAG_TYPE',
      variants: [],
      rules: [],
      rollouts: [],
    };
    if (f.metadata) {
      const metadata = JSON.parse(f.metadata) as unknown;
      if (
        typeof metadata === 'object' &&
        metadata !== null &&
        !Array.isArray(metadata) &&
        Object.keys(metadata).length
      ) {
        flag.metadata = metadata as Record<string, unknown>;
      }
    }
    if (f.default_variant_id) defaultVariantIds.set(f.default_variant_id, f.key);
    flags.push(flag);
    flagByKey.set(f.key, flag);
  }
  const variantKeyById = new Map<string, string>();
  for (const v of await t
    .selectFrom('variants')
    .select(['id', 'flag_key', 'key', 'name', 'description', 'attachment'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('id')
    .execute()) {
    const flag = flagByKey.get(v.flag_key);
    if (!flag) continue;
    variantKeyById.set(v.id, v.key);
    // Stored as compact JSON text on every dialect (services/variants.ts normalizes it).
    flag.variants.push({ key: v.key, name: v.name, description: v.description, attachment: v.attachment ?? '' });
    if (defaultVariantIds.get(v.id) === v.flag_key) flag.defaultVariantKey = v.key;
  }

  const ruleById = new Map<string, FlagContent['rules'][number]>();
  for (const r of await t
    .selectFrom('rules')
    .select(['id', 'flag_key', 'rank', 'segment_operator'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('rank')
    .orderBy('created_at')
    .orderBy('id')
    .execute()) {
    const flag = flagByKey.get(r.flag_key);
    if (!flag) continue;
    const rule = {
      rank: Number(r.rank),
      segmentKeys: [] as string[],
      segmentOperator: SEGMENT_OPERATORS[r.segment_operator] ?? 'OR_SEGMENT_OPERATOR',
      distributions: [],
    };
    flag.rules.push(rule);
    ruleById.set(r.id, rule);
  }
  for (const rs of await t
    .selectFrom('rule_segments')
    .select(['rule_id', 'segment_key'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('position')
    .execute()) {
    ruleById.get(rs.rule_id)?.segmentKeys.push(rs.segment_key);
  }
  for (const d of await t
    .selectFrom('distributions')
    .innerJoin('rules', 'rules.id', 'distributions.rule_id')
    .select(['distributions.rule_id', 'distributions.variant_id', 'distributions.rollout'])
    .where('rules.namespace_key', '=', namespaceKey)
    .orderBy('distributions.created_at')
    .orderBy('distributions.id')
    .execute()) {
    const variantKey = variantKeyById.get(d.variant_id);
    // A distribution on another flag's variant (Flipt does not check they belong together) has no
    // key to be written by: it is left out.
    if (variantKey === undefined) continue;
    ruleById.get(d.rule_id)?.distributions.push({ variantKey, rollout: Number(d.rollout) });
  }

  const rolloutById = new Map<string, RolloutContent>();
  for (const r of await t
    .selectFrom('rollouts')
    .select(['id', 'flag_key', 'description', 'rank'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('rank')
    .orderBy('created_at')
    .orderBy('id')
    .execute()) {
    const flag = flagByKey.get(r.flag_key);
    if (!flag) continue;
    const rollout: RolloutContent = { rank: Number(r.rank), description: r.description };
    flag.rollouts.push(rollout);
    rolloutById.set(r.id, rollout);
  }
  for (const th of await t
    .selectFrom('rollout_thresholds')
    .select(['rollout_id', 'percentage', 'value'])
    .where('namespace_key', '=', namespaceKey)
    .execute()) {
    const rollout = rolloutById.get(th.rollout_id);
    if (rollout) rollout.threshold = { percentage: Number(th.percentage), value: toBool(th.value) };
  }
  const segmentByRow = new Map<string, RolloutSegment>();
  for (const s of await t
    .selectFrom('rollout_segments')
    .innerJoin('rollouts', 'rollouts.id', 'rollout_segments.rollout_id')
    .select([
      'rollout_segments.id',
      'rollout_segments.rollout_id',
      'rollout_segments.value',
      'rollout_segments.segment_operator',
    ])
    .where('rollouts.namespace_key', '=', namespaceKey)
    .execute()) {
    const rollout = rolloutById.get(s.rollout_id);
    if (!rollout) continue;
    const segment: RolloutSegment = {
      value: toBool(s.value),
      segmentOperator: SEGMENT_OPERATORS[s.segment_operator] ?? 'OR_SEGMENT_OPERATOR',
      segmentKeys: [],
    };
    rollout.segment = segment;
    segmentByRow.set(s.id, segment);
  }
  for (const ref of await t
    .selectFrom('rollout_segment_references')
    .select(['rollout_segment_id', 'segment_key'])
    .where('namespace_key', '=', namespaceKey)
    .orderBy('position')
    .execute()) {
    segmentByRow.get(ref.rollout_segment_id)?.segmentKeys.push(ref.segment_key);
  }
  return { namespace: { key: ns.key, name: ns.name, description: ns.description }, flags, segments };
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
  const isolation = DIALECT_CAPABILITIES[dialect].consistentReadIsolation;
  return {
    async namespaceKeys(db) {
      const rows = await db.selectFrom('namespaces').select('key').orderBy('created_at').orderBy('key').execute();
      return rows.map((r) => r.key);
    },
    read: (db, namespaceKey) => inTransaction(db, (t) => readContent(t, namespaceKey), isolation ? { isolation } : {}),
    readIn: readContent,
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
