// The one reader of a namespace's content: every table of one namespace read in one consistent
// transaction, a fixed number of queries whatever its size. What the rows become is the caller's
// shape: the snapshot cache's source (evaluation-source.ts) or an export's content
// (namespace-content.ts). The reader owns the queries, their order and the joining of child rows to
// their parents; a shape only builds each object, through the table codecs, so neither caller builds
// objects it then throws away.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely, Selectable } from 'kysely';
import type { NamespaceInfo } from '../domain/namespace-content.js';
import type { RolloutSegment, RolloutThreshold } from '../domain/types.js';
import { rolloutSegmentOf, thresholdOf } from './codecs/rollouts.js';
import { DIALECT_CAPABILITIES, type DialectName } from './db.js';
import type {
  ConstraintsTable,
  Database,
  DistributionsTable,
  FlagsTable,
  RolloutsTable,
  RulesTable,
  SegmentsTable,
  VariantsTable,
} from './schema.js';
import { inTransaction, type Tx } from './transaction.js';

export type SegmentRow = Pick<Selectable<SegmentsTable>, 'key' | 'name' | 'description' | 'match_type'>;
export type ConstraintRow = Pick<
  Selectable<ConstraintsTable>,
  'id' | 'type' | 'property' | 'operator' | 'value' | 'description'
>;
/** Name and description only when the shape asks for them (`details`). */
export type VariantRow = Pick<Selectable<VariantsTable>, 'id' | 'key' | 'attachment'> &
  Partial<Pick<Selectable<VariantsTable>, 'name' | 'description'>>;
/** Metadata only when the shape asks for it (`details`). */
export type FlagRow = Pick<
  Selectable<FlagsTable>,
  'key' | 'name' | 'description' | 'enabled' | 'type' | 'created_at' | 'updated_at'
> &
  Partial<Pick<Selectable<FlagsTable>, 'metadata'>>;
export type RuleRow = Pick<Selectable<RulesTable>, 'id' | 'rank' | 'segment_operator'>;
export type DistributionRow = Pick<Selectable<DistributionsTable>, 'id' | 'rollout'>;
export type RolloutRow = Pick<Selectable<RolloutsTable>, 'id' | 'type' | 'description' | 'rank'>;

/** The parts of the objects the reader joins child rows into. */
interface SegmentLike<C> {
  constraints: C[];
}
interface RuleLike<D> {
  segmentKeys: string[];
  distributions: D[];
}
interface RolloutLike {
  threshold?: RolloutThreshold;
  segment?: RolloutSegment;
}
interface FlagLike<R, O> {
  rules: R[];
  rollouts: O[];
}

/** How rows become objects: one shape for the snapshot's source, one for an export's content. */
export interface NamespaceShape<
  S extends SegmentLike<C>,
  C,
  V,
  F extends FlagLike<R, O>,
  R extends RuleLike<D>,
  D,
  O extends RolloutLike,
> {
  /** Also read variant names and descriptions and flag metadata. */
  details: boolean;
  segment(row: SegmentRow): S;
  constraint(row: ConstraintRow): C;
  variant(row: VariantRow): V;
  /** `defaultVariant`: the variant the row names, of any flag of the namespace. */
  flag(row: FlagRow, variants: V[], defaultVariant: V | undefined): F;
  rule(row: RuleRow): R;
  /** `variant`: the one the row names, if it is of the namespace; undefined leaves the row out. */
  distribution(row: DistributionRow & { variant_id: string }, variant: V | undefined): D | undefined;
  rollout(row: RolloutRow): O;
}

export interface NamespaceRead<S, F> {
  namespace: NamespaceInfo;
  /** The namespace's revision tag parts (revision-tag.ts). */
  revision: number | string;
  createdAt: Date | string;
  /** In creation order. */
  flags: F[];
  segments: S[];
}

/**
 * Reads the namespace in a transaction of its own; undefined when it does not exist. One consistent
 * view across the queries: REPEATABLE READ on PostgreSQL and MySQL, SERIALIZABLE on CockroachDB (its
 * default; a read there may meet a retryable conflict, hence inTransaction); SQLite serialises on its
 * single connection.
 */
export function readNamespace<
  S extends SegmentLike<C>,
  C,
  V,
  F extends FlagLike<R, O>,
  R extends RuleLike<D>,
  D,
  O extends RolloutLike,
>(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
  shape: NamespaceShape<S, C, V, F, R, D, O>,
): Promise<NamespaceRead<S, F> | undefined> {
  const isolation = DIALECT_CAPABILITIES[dialect].consistentReadIsolation;
  return inTransaction(db, (t) => readNamespaceIn(t, namespaceKey, shape), isolation ? { isolation } : {});
}

/** Runs the query after the event loop has had a turn (see readNamespaceIn). */
async function inTurn<Row>(query: { execute(): Promise<Row[]> }): Promise<Row[]> {
  await nextTurn();
  return query.execute();
}

const VARIANT_COLUMNS = ['id', 'flag_key', 'key', 'attachment'] as const;
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

/**
 * The same inside a transaction the caller holds.
 *
 * The queries run one after the other, and each one's rows are folded into the result before the next
 * query starts, so no row outlives its own query. With 10,000 flags the rows are tens of megabytes:
 * read all at once they lived long enough to be promoted to V8's old generation, and the process kept
 * that memory after the load (ADR 0012). One table at a time, they die young. Only the columns the
 * shape needs are read, for the same reason.
 * Before each table the event loop gets a turn (inTurn). SQLite's driver answers synchronously:
 * without the pauses, a 10,000-flag load (0.4–0.7 s on a slow machine) held the loop from the first
 * query to the last, and /health and every other namespace's evaluations waited (ADR 0013). On
 * PostgreSQL and MySQL the queries wait on the network anyway, and a pause costs one loop turn.
 */
export async function readNamespaceIn<
  S extends SegmentLike<C>,
  C,
  V,
  F extends FlagLike<R, O>,
  R extends RuleLike<D>,
  D,
  O extends RolloutLike,
>(t: Tx, namespaceKey: string, shape: NamespaceShape<S, C, V, F, R, D, O>): Promise<NamespaceRead<S, F> | undefined> {
  const ns = await t
    .selectFrom('namespaces')
    .select(['key', 'name', 'description', 'revision', 'created_at'])
    .where('key', '=', namespaceKey)
    .executeTakeFirst();
  if (!ns) return undefined;

  const segments: S[] = [];
  const segmentByKey = new Map<string, S>();
  for (const s of await inTurn(
    t
      .selectFrom('segments')
      .select(['key', 'name', 'description', 'match_type'])
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('key'),
  )) {
    const segment = shape.segment(s);
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
    segmentByKey.get(c.segment_key)?.constraints.push(shape.constraint(c));
  }

  // Variants before flags: a flag's default variant is one of them.
  const variantById = new Map<string, V>();
  const variantsByFlag = new Map<string, V[]>();
  for (const v of await inTurn(
    t
      .selectFrom('variants')
      .select(shape.details ? [...VARIANT_COLUMNS, 'name', 'description'] : VARIANT_COLUMNS)
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('id'),
  )) {
    const variant = shape.variant(v);
    variantById.set(v.id, variant);
    const list = variantsByFlag.get(v.flag_key);
    if (list) list.push(variant);
    else variantsByFlag.set(v.flag_key, [variant]);
  }

  const flags: F[] = [];
  const flagByKey = new Map<string, F>();
  for (const f of await inTurn(
    t
      .selectFrom('flags')
      .select(shape.details ? [...FLAG_COLUMNS, 'metadata'] : FLAG_COLUMNS)
      .where('namespace_key', '=', namespaceKey)
      .orderBy('created_at')
      .orderBy('key'),
  )) {
    const defaultVariant = f.default_variant_id ? variantById.get(f.default_variant_id) : undefined;
    const flag = shape.flag(f, variantsByFlag.get(f.key) ?? [], defaultVariant);
    flags.push(flag);
    if (!flagByKey.has(f.key)) flagByKey.set(f.key, flag);
  }

  // Equal ranks keep creation order, then id order: the order the management API lists them in.
  const ruleById = new Map<string, R>();
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
    const rule = shape.rule(r);
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
    const rule = ruleById.get(d.rule_id);
    if (rule === undefined) continue;
    const distribution = shape.distribution(d, variantById.get(d.variant_id));
    if (distribution !== undefined) rule.distributions.push(distribution);
  }

  const rolloutById = new Map<string, O>();
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
    const rollout = shape.rollout(r);
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

  return {
    namespace: { key: ns.key, name: ns.name, description: ns.description },
    revision: ns.revision,
    createdAt: ns.created_at,
    flags,
    segments,
  };
}
