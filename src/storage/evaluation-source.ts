// The evaluation read model: everything one namespace's snapshot is compiled from, read in one
// consistent transaction (a fixed number of queries, whatever the number of flags).

import type { Kysely } from 'kysely';
import { COMPARISON_TYPES, FLAG_TYPES, MATCH_TYPES, ROLLOUT_TYPES, SEGMENT_OPERATORS } from '../domain/types.js';
import type {
  ConstraintSource,
  FlagSource,
  NamespaceSource,
  RolloutSource,
  RuleSource,
  SegmentSource,
  VariantSource,
} from '../evaluation/source.js';
import { DIALECT_CAPABILITIES, type DialectName } from './db.js';
import { toBool, toDate } from './rows.js';
import type { Database } from './schema.js';
import { inTransaction, type Tx } from './transaction.js';

function groupBy<T, K>(rows: T[], keyOf: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = map.get(key);
    if (list) list.push(row);
    else map.set(key, [row]);
  }
  return map;
}

/**
 * The opaque revision a snapshot is tagged with. It includes the namespace's creation time, so a
 * namespace deleted and created again never repeats an earlier revision (and so an earlier ETag).
 */
export function revisionTag(createdAt: Date | string, revision: number | string): string {
  return `${toDate(createdAt).getTime()}.${revision}`;
}

/** The namespace's source, or undefined when the namespace does not exist. */
export async function loadNamespaceSource(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
): Promise<NamespaceSource | undefined> {
  // One consistent view across the queries below: REPEATABLE READ on PostgreSQL and MySQL, SERIALIZABLE
  // on CockroachDB (its default; a read there may meet a retryable conflict, hence inTransaction); SQLite
  // serialises on its single connection.
  const isolation = DIALECT_CAPABILITIES[dialect].consistentReadIsolation;
  return inTransaction(db, readSource, isolation ? { isolation } : {});

  async function readSource(t: Tx): Promise<NamespaceSource | undefined> {
    const ns = await t
      .selectFrom('namespaces')
      .select(['revision', 'created_at'])
      .where('key', '=', namespaceKey)
      .executeTakeFirst();
    if (!ns) return undefined;

    const [
      flags,
      variants,
      rules,
      ruleSegments,
      distributions,
      rollouts,
      thresholds,
      rolloutSegments,
      references,
      segments,
      constraints,
    ] = await Promise.all([
      // Only the columns a source needs: with 10,000 flags every unread column is tens of thousands of
      // strings alive at once while the snapshot compiles, and the process keeps that peak's memory.
      t
        .selectFrom('flags')
        .select(['key', 'name', 'description', 'enabled', 'type', 'default_variant_id', 'created_at', 'updated_at'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('created_at')
        .orderBy('key')
        .execute(),
      t
        .selectFrom('variants')
        .select(['id', 'flag_key', 'key', 'attachment'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      t
        .selectFrom('rules')
        .select(['id', 'flag_key', 'rank', 'segment_operator'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('rank')
        .orderBy('created_at')
        .execute(),
      t
        .selectFrom('rule_segments')
        .select(['rule_id', 'segment_key', 'position'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('position')
        .execute(),
      t
        .selectFrom('distributions')
        .innerJoin('rules', 'rules.id', 'distributions.rule_id')
        .select(['distributions.id', 'distributions.rule_id', 'distributions.variant_id', 'distributions.rollout'])
        .where('rules.namespace_key', '=', namespaceKey)
        .orderBy('distributions.created_at')
        .orderBy('distributions.id')
        .execute(),
      t
        .selectFrom('rollouts')
        .select(['id', 'flag_key', 'type', 'description', 'rank'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('rank')
        .orderBy('created_at')
        .execute(),
      t
        .selectFrom('rollout_thresholds')
        .select(['rollout_id', 'percentage', 'value'])
        .where('namespace_key', '=', namespaceKey)
        .execute(),
      t
        .selectFrom('rollout_segments')
        .innerJoin('rollouts', 'rollouts.id', 'rollout_segments.rollout_id')
        .select([
          'rollout_segments.id',
          'rollout_segments.rollout_id',
          'rollout_segments.value',
          'rollout_segments.segment_operator',
        ])
        .where('rollouts.namespace_key', '=', namespaceKey)
        .execute(),
      t
        .selectFrom('rollout_segment_references')
        .select(['rollout_segment_id', 'segment_key', 'position'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('position')
        .execute(),
      t
        .selectFrom('segments')
        .select(['key', 'name', 'description', 'match_type'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('created_at')
        .orderBy('key')
        .execute(),
      t
        .selectFrom('constraints')
        .select(['id', 'segment_key', 'type', 'property', 'operator', 'value', 'description'])
        .where('namespace_key', '=', namespaceKey)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    ]);

    const variantsByFlag = groupBy(variants, (v) => v.flag_key);
    const variantById = new Map(variants.map((v) => [v.id, v]));
    const segmentKeysByRule = groupBy(ruleSegments, (r) => r.rule_id);
    const distributionsByRule = groupBy(distributions, (d) => d.rule_id);
    const rulesByFlag = groupBy(rules, (r) => r.flag_key);
    const rolloutsByFlag = groupBy(rollouts, (r) => r.flag_key);
    const thresholdByRollout = new Map(thresholds.map((th) => [th.rollout_id, th]));
    const segmentByRollout = new Map(rolloutSegments.map((s) => [s.rollout_id, s]));
    const referencesBySegmentRow = groupBy(references, (r) => r.rollout_segment_id);
    const constraintsBySegment = groupBy(constraints, (c) => c.segment_key);

    const toVariant = (v: (typeof variants)[number]): VariantSource => ({
      id: v.id,
      key: v.key,
      attachment: v.attachment ?? '',
    });

    const flagSources: FlagSource[] = flags.map((f) => {
      const defaultVariant = f.default_variant_id ? variantById.get(f.default_variant_id) : undefined;
      const ruleSources: RuleSource[] = (rulesByFlag.get(f.key) ?? []).map((r) => ({
        id: r.id,
        rank: r.rank,
        segmentKeys: (segmentKeysByRule.get(r.id) ?? []).map((s) => s.segment_key),
        segmentOperator: SEGMENT_OPERATORS[r.segment_operator] ?? 'OR_SEGMENT_OPERATOR',
        distributions: (distributionsByRule.get(r.id) ?? []).map((d) => ({
          id: d.id,
          // The variant's own id string: the compiled snapshot keeps it, one copy instead of two.
          variantId: variantById.get(d.variant_id)?.id ?? d.variant_id,
          rollout: Number(d.rollout),
        })),
      }));
      const rolloutSources: RolloutSource[] = (rolloutsByFlag.get(f.key) ?? []).map((r) => {
        const threshold = thresholdByRollout.get(r.id);
        const segment = segmentByRollout.get(r.id);
        return {
          id: r.id,
          rank: r.rank,
          type: ROLLOUT_TYPES[r.type] ?? 'UNKNOWN_ROLLOUT_TYPE',
          description: r.description,
          ...(threshold
            ? { threshold: { percentage: Number(threshold.percentage), value: toBool(threshold.value) } }
            : {}),
          ...(segment
            ? {
                segment: {
                  value: toBool(segment.value),
                  segmentOperator: SEGMENT_OPERATORS[segment.segment_operator] ?? 'OR_SEGMENT_OPERATOR',
                  segmentKeys: (referencesBySegmentRow.get(segment.id) ?? []).map((ref) => ref.segment_key),
                },
              }
            : {}),
        };
      });
      return {
        key: f.key,
        name: f.name,
        description: f.description,
        enabled: toBool(f.enabled),
        type: FLAG_TYPES[f.type] ?? 'VARIANT_FLAG_TYPE',
        createdAt: toDate(f.created_at).toISOString(),
        updatedAt: toDate(f.updated_at).toISOString(),
        ...(defaultVariant ? { defaultVariant: toVariant(defaultVariant) } : {}),
        variants: (variantsByFlag.get(f.key) ?? []).map(toVariant),
        rules: ruleSources,
        rollouts: rolloutSources,
      };
    });

    const segmentSources: SegmentSource[] = segments.map((s) => ({
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: MATCH_TYPES[s.match_type] ?? 'ALL_MATCH_TYPE',
      constraints: (constraintsBySegment.get(s.key) ?? []).map(
        (c): ConstraintSource => ({
          id: c.id,
          type: COMPARISON_TYPES[c.type] ?? 'UNKNOWN_COMPARISON_TYPE',
          property: c.property,
          operator: c.operator,
          value: c.value,
          description: c.description ?? '',
        }),
      ),
    }));

    return {
      namespaceKey,
      revision: revisionTag(ns.created_at, ns.revision),
      flags: flagSources,
      segments: segmentSources,
    };
  }
}
