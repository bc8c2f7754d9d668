// What the snapshot cache loads from the database: one namespace's source (read by the namespace
// reader, which the export shares, in the source's shape), and every namespace's revision tag, which
// tells an instance which of its snapshots are out of date.

import type { Kysely } from 'kysely';
import type {
  ConstraintSource,
  DistributionSource,
  FlagSource,
  NamespaceSource,
  RolloutSource,
  RuleSource,
  SegmentSource,
  VariantSource,
} from '../evaluation/source.js';
import { flagTypeOf } from './codecs/flags.js';
import { rolloutTypeOf } from './codecs/rollouts.js';
import { percentageOf, rankOf, segmentOperatorOf } from './codecs/rules.js';
import { comparisonTypeOf, segmentToFill } from './codecs/segments.js';
import { attachmentOf } from './codecs/variants.js';
import type { DialectName } from './db.js';
import { type NamespaceShape, readNamespace } from './namespace-reader.js';
import { revisionTag } from './revision-tag.js';
import { toBool, toDate } from './rows.js';
import type { Database } from './schema.js';

/**
 * Every namespace's revision tag: the one cheap read (a scan of a table with a row per namespace)
 * that tells an instance what other instances changed.
 */
export async function namespaceRevisionTags(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('namespaces').select(['key', 'revision', 'created_at']).execute();
  return new Map(rows.map((r) => [r.key, revisionTag(r.created_at, r.revision)]));
}

/** The namespace's source, read consistently; undefined when the namespace does not exist. */
export async function loadNamespaceSource(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
): Promise<NamespaceSource | undefined> {
  const read = await readNamespace(db, dialect, namespaceKey, SOURCE_SHAPE);
  if (read === undefined) return undefined;
  return {
    namespaceKey,
    revision: revisionTag(read.createdAt, read.revision),
    flags: read.flags,
    segments: read.segments,
  };
}

// Each object is one literal built field by field: a snapshot holds thousands of them, and the source
// is what a cache's JSON-lines form writes, key order included.
const SOURCE_SHAPE: NamespaceShape<
  SegmentSource,
  ConstraintSource,
  VariantSource,
  FlagSource,
  RuleSource,
  DistributionSource,
  RolloutSource
> = {
  details: false,
  segment: segmentToFill,
  constraint: (c) => ({
    id: c.id,
    type: comparisonTypeOf(c.type),
    property: c.property,
    operator: c.operator,
    value: c.value,
    description: c.description ?? '',
  }),
  variant: (v) => ({ id: v.id, key: v.key, attachment: attachmentOf(v.attachment) }),
  flag: (f, variants, defaultVariant) => ({
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: toBool(f.enabled),
    type: flagTypeOf(f.type),
    createdAt: toDate(f.created_at).toISOString(),
    updatedAt: toDate(f.updated_at).toISOString(),
    ...(defaultVariant ? { defaultVariant } : {}),
    variants,
    rules: [],
    rollouts: [],
  }),
  rule: (r) => ({
    id: r.id,
    rank: rankOf(r.rank),
    segmentKeys: [],
    segmentOperator: segmentOperatorOf(r.segment_operator),
    distributions: [],
  }),
  distribution: (d, variant) => ({
    id: d.id,
    // The variant's own id string, so the source holds one copy of it instead of two. A distribution
    // may name a variant of any flag of the namespace (Flipt does not check they belong together).
    variantId: variant?.id ?? d.variant_id,
    rollout: percentageOf(d.rollout),
  }),
  rollout: (r) => ({
    id: r.id,
    rank: rankOf(r.rank),
    type: rolloutTypeOf(r.type),
    description: r.description,
  }),
};
