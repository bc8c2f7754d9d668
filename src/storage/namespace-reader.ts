// The one reader of a namespace's content: every table of one namespace read in one consistent
// transaction, a fixed number of queries whatever its size. The snapshot cache compiles what it reads
// (a NamespaceSource); an export asks for the details a source leaves out (variant names and
// descriptions, flag metadata) and turns the same read into a document (namespace-content.ts).

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { NamespaceInfo } from '../domain/namespace-content.js';
import type { RolloutSegment } from '../domain/types.js';
import type {
  FlagSource,
  NamespaceSource,
  RolloutSource,
  RuleSource,
  SegmentSource,
  VariantSource,
} from '../evaluation/source.js';
import { flagFieldsOf, metadataOf } from './codecs/flags.js';
import { rolloutSegmentOf, rolloutTypeOf, thresholdOf } from './codecs/rollouts.js';
import { rankOf, rolloutOf, segmentOperatorOf } from './codecs/rules.js';
import { constraintFieldsOf, segmentFieldsOf } from './codecs/segments.js';
import { attachmentOf } from './codecs/variants.js';
import { DIALECT_CAPABILITIES, type DialectName } from './db.js';
import { revisionTag } from './revision-tag.js';
import { toDate } from './rows.js';
import type { Database } from './schema.js';
import { inTransaction, type Tx } from './transaction.js';

/** What an export shows beyond a source; read only when asked. */
export interface NamespaceDetails {
  /** Name and description of each variant, by variant id. */
  variants: Map<string, { name: string; description: string }>;
  /** Each flag's stored metadata, by flag key (flags without any are absent). */
  flagMetadata: Map<string, Record<string, unknown>>;
}

export interface NamespaceRead {
  namespace: NamespaceInfo;
  source: NamespaceSource;
  /** Present when the read asked for details. */
  details?: NamespaceDetails;
}

export interface ReadOptions {
  /** Also read what an export needs beyond a source (NamespaceDetails). */
  details: boolean;
}

/**
 * Reads the namespace in a transaction of its own; undefined when it does not exist. One consistent
 * view across the queries: REPEATABLE READ on PostgreSQL and MySQL, SERIALIZABLE on CockroachDB (its
 * default; a read there may meet a retryable conflict, hence inTransaction); SQLite serialises on its
 * single connection.
 */
export function readNamespace(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
  options: ReadOptions,
): Promise<NamespaceRead | undefined> {
  const isolation = DIALECT_CAPABILITIES[dialect].consistentReadIsolation;
  return inTransaction(db, (t) => readNamespaceIn(t, namespaceKey, options), isolation ? { isolation } : {});
}

/** A flag's columns in every read; an export adds its metadata. */
const FLAG_COLUMNS = [
  'key',
  'name',
  'description',
  'enabled',
  'type',
  'default_variant_id',
  'created_at',
  'updated_at',
] as const;

/** Runs the query after the event loop has had a turn (see readNamespaceIn). */
async function inTurn<Row>(query: { execute(): Promise<Row[]> }): Promise<Row[]> {
  await nextTurn();
  return query.execute();
}

/**
 * The same inside a transaction the caller holds.
 *
 * The queries run one after the other, and each one's rows are folded into the result before the next
 * query starts, so no row outlives its own query. With 10,000 flags the rows are tens of megabytes:
 * read all at once they lived long enough to be promoted to V8's old generation, and the process kept
 * that memory after the load (ADR 0012). One table at a time, they die young. Only the columns the
 * result needs are read, for the same reason.
 * Before each table the event loop gets a turn (inTurn). SQLite's driver answers synchronously:
 * without the pauses, a 10,000-flag load (0.4–0.7 s on a slow machine) held the loop from the first
 * query to the last, and /health and every other namespace's evaluations waited (ADR 0013). On
 * PostgreSQL and MySQL the queries wait on the network anyway, and a pause costs one loop turn.
 */
export async function readNamespaceIn(
  t: Tx,
  namespaceKey: string,
  options: ReadOptions,
): Promise<NamespaceRead | undefined> {
  const ns = await t
    .selectFrom('namespaces')
    .select(['key', 'name', 'description', 'revision', 'created_at'])
    .where('key', '=', namespaceKey)
    .executeTakeFirst();
  if (!ns) return undefined;
  const details: NamespaceDetails | undefined = options.details
    ? { variants: new Map(), flagMetadata: new Map() }
    : undefined;

  const segments: SegmentSource[] = [];
  const segmentByKey = new Map<string, SegmentSource>();
  for (const s of await inTurn(
    t
      .selectFrom('segments')
      .select(['key', 'name', 'description', 'match_type'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('key'),
  )) {
    const segment: SegmentSource = { ...segmentFieldsOf(s), constraints: [] };
    segments.push(segment);
    // The first of a duplicated key collects the constraints, as the grouping by key did.
    if (!segmentByKey.has(s.key)) segmentByKey.set(s.key, segment);
  }
  for (const c of await inTurn(
    t
      .selectFrom('constraints')
      .select(['id', 'segment_key', 'type', 'property', 'operator', 'value', 'description'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('id'),
  )) {
    segmentByKey.get(c.segment_key)?.constraints.push({ id: c.id, ...constraintFieldsOf(c) });
  }

  // Variants before flags: a flag's default variant is one of them.
  const variantById = new Map<string, VariantSource>();
  const variantsByFlag = new Map<string, VariantSource[]>();
  const variantColumns = details
    ? (['id', 'flag_key', 'key', 'attachment', 'name', 'description'] as const)
    : (['id', 'flag_key', 'key', 'attachment'] as const);
  for (const v of await inTurn(
    t
      .selectFrom('variants')
      .select(variantColumns)
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('id'),
  )) {
    const variant: VariantSource = { id: v.id, key: v.key, attachment: attachmentOf(v.attachment) };
    variantById.set(v.id, variant);
    const list = variantsByFlag.get(v.flag_key);
    if (list) list.push(variant);
    else variantsByFlag.set(v.flag_key, [variant]);
    if (details && 'name' in v) details.variants.set(v.id, { name: v.name, description: v.description });
  }

  const flags: FlagSource[] = [];
  const flagByKey = new Map<string, FlagSource>();
  const flagColumns = details ? ([...FLAG_COLUMNS, 'metadata'] as const) : FLAG_COLUMNS;
  for (const f of await inTurn(
    t
      .selectFrom('flags')
      .select(flagColumns)
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('key'),
  )) {
    const defaultVariant = f.default_variant_id ? variantById.get(f.default_variant_id) : undefined;
    const flag: FlagSource = {
      ...flagFieldsOf(f),
      createdAt: toDate(f.created_at).toISOString(),
      updatedAt: toDate(f.updated_at).toISOString(),
      ...(defaultVariant ? { defaultVariant } : {}),
      variants: variantsByFlag.get(f.key) ?? [],
      rules: [],
      rollouts: [],
    };
    flags.push(flag);
    if (!flagByKey.has(f.key)) flagByKey.set(f.key, flag);
    if (details && 'metadata' in f) {
      const metadata = metadataOf(f.metadata);
      if (metadata) details.flagMetadata.set(f.key, metadata);
    }
  }

  // Equal ranks keep creation order, then id order: the order the management API lists them in.
  const ruleById = new Map<string, RuleSource>();
  for (const r of await inTurn(
    t
      .selectFrom('rules')
      .select(['id', 'flag_key', 'rank', 'segment_operator'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('rank')
      .orderBy('created_at')
      .orderBy('id'),
  )) {
    const flag = flagByKey.get(r.flag_key);
    if (flag === undefined) continue;
    const rule: RuleSource = {
      id: r.id,
      rank: rankOf(r.rank),
      segmentKeys: [],
      segmentOperator: segmentOperatorOf(r.segment_operator),
      distributions: [],
    };
    flag.rules.push(rule);
    ruleById.set(r.id, rule);
  }
  for (const rs of await inTurn(
    t
      .selectFrom('rule_segments')
      .select(['rule_id', 'segment_key'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('position'),
  )) {
    ruleById.get(rs.rule_id)?.segmentKeys.push(rs.segment_key);
  }
  for (const d of await inTurn(
    t
      .selectFrom('distributions')
      .innerJoin('rules', 'rules.id', 'distributions.rule_id')
      .select(['distributions.id', 'distributions.rule_id', 'distributions.variant_id', 'distributions.rollout'])
      .where('rules.namespace_key', '=', namespaceKey)
      .orderBy('distributions.created_at')
      .orderBy('distributions.id'),
  )) {
    ruleById.get(d.rule_id)?.distributions.push({
      id: d.id,
      // The variant's own id string, so the source holds one copy of it instead of two.
      variantId: variantById.get(d.variant_id)?.id ?? d.variant_id,
      rollout: rolloutOf(d.rollout),
    });
  }

  const rolloutById = new Map<string, RolloutSource>();
  for (const r of await inTurn(
    t
      .selectFrom('rollouts')
      .select(['id', 'flag_key', 'type', 'description', 'rank'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('rank')
      .orderBy('created_at')
      .orderBy('id'),
  )) {
    const flag = flagByKey.get(r.flag_key);
    if (flag === undefined) continue;
    const rollout: RolloutSource = {
      id: r.id,
      rank: rankOf(r.rank),
      type: rolloutTypeOf(r.type),
      description: r.description,
    };
    flag.rollouts.push(rollout);
    rolloutById.set(r.id, rollout);
  }
  // A rollout has at most one threshold and one segment row; should there be more, the last wins.
  for (const th of await inTurn(
    t
      .selectFrom('rollout_thresholds')
      .select(['rollout_id', 'percentage', 'value'])
      .where('namespace_key', '=', namespaceKey),
  )) {
    const rollout = rolloutById.get(th.rollout_id);
    if (rollout) rollout.threshold = thresholdOf(th);
  }
  // Segment rows by their own id, for their references; only the one a rollout keeps is read.
  const segmentByRow = new Map<string, RolloutSegment>();
  for (const s of await inTurn(
    t
      .selectFrom('rollout_segments')
      .innerJoin('rollouts', 'rollouts.id', 'rollout_segments.rollout_id')
      .select([
        'rollout_segments.id',
        'rollout_segments.rollout_id',
        'rollout_segments.value',
        'rollout_segments.segment_operator',
      ])
      .where('rollouts.namespace_key', '=', namespaceKey),
  )) {
    const rollout = rolloutById.get(s.rollout_id);
    if (rollout === undefined) continue;
    const segment = rolloutSegmentOf(s);
    rollout.segment = segment;
    segmentByRow.set(s.id, segment);
  }
  for (const ref of await inTurn(
    t
      .selectFrom('rollout_segment_references')
      .select(['rollout_segment_id', 'segment_key'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('position'),
  )) {
    segmentByRow.get(ref.rollout_segment_id)?.segmentKeys.push(ref.segment_key);
  }

  const source: NamespaceSource = {
    namespaceKey,
    revision: revisionTag(ns.created_at, ns.revision),
    flags,
    segments,
  };
  const namespace = { key: ns.key, name: ns.name, description: ns.description };
  return details ? { namespace, source, details } : { namespace, source };
}
