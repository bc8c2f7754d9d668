// A namespace's content as an export document holds it (domain/namespace-content.ts), read by the
// namespace reader the snapshot cache uses, in the content's shape: variants named by key instead of
// id, no ids or timestamps.

import type { Kysely } from 'kysely';
import type {
  ConstraintContent,
  DistributionContent,
  FlagContent,
  NamespaceContent,
  RolloutContent,
  RuleContent,
  SegmentContent,
  VariantContent,
} from '../domain/namespace-content.js';
import { flagTypeOf, metadataOf } from './codecs/flags.js';
import { percentageOf, rankOf, segmentOperatorOf } from './codecs/rules.js';
import { comparisonTypeOf, segmentToFill } from './codecs/segments.js';
import { attachmentOf } from './codecs/variants.js';
import type { DialectName } from './db.js';
import { type NamespaceRead, type NamespaceShape, readNamespace, readNamespaceIn } from './namespace-reader.js';
import { toBool } from './rows.js';
import type { Database } from './schema.js';
import type { Tx } from './transaction.js';

/** The namespace's content read consistently; undefined when it does not exist. */
export async function readContent(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
): Promise<NamespaceContent | undefined> {
  return contentOf(await readNamespace(db, dialect, namespaceKey, CONTENT_SHAPE));
}

/** The same, inside a transaction the caller already holds. */
export async function readContentIn(tx: Tx, namespaceKey: string): Promise<NamespaceContent | undefined> {
  return contentOf(await readNamespaceIn(tx, namespaceKey, CONTENT_SHAPE));
}

function contentOf(read: NamespaceRead<SegmentContent, FlagContent> | undefined): NamespaceContent | undefined {
  return read && { namespace: read.namespace, flags: read.flags, segments: read.segments };
}

const CONTENT_SHAPE: NamespaceShape<
  SegmentContent,
  ConstraintContent,
  VariantContent,
  FlagContent,
  RuleContent,
  DistributionContent,
  RolloutContent
> = {
  details: true,
  segment: segmentToFill,
  constraint: (c) => ({
    type: comparisonTypeOf(c.type),
    property: c.property,
    operator: c.operator,
    value: c.value,
    description: c.description ?? '',
  }),
  variant: (v) => ({
    key: v.key,
    name: v.name ?? '',
    description: v.description ?? '',
    attachment: attachmentOf(v.attachment),
  }),
  flag: (f, variants, defaultVariant) => {
    const flag: FlagContent = {
      key: f.key,
      name: f.name,
      description: f.description,
      enabled: toBool(f.enabled),
      type: flagTypeOf(f.type),
      variants,
      rules: [],
      rollouts: [],
    };
    const metadata = metadataOf(f.metadata ?? null);
    if (metadata) flag.metadata = metadata;
    // A document names its default variant by key, so only one of the flag's own can be written.
    if (defaultVariant && variants.includes(defaultVariant)) flag.defaultVariantKey = defaultVariant.key;
    return flag;
  },
  rule: (r) => ({
    rank: rankOf(r.rank),
    segmentKeys: [],
    segmentOperator: segmentOperatorOf(r.segment_operator),
    distributions: [],
  }),
  // A distribution naming no variant of the namespace has no key to be written by: it is left out.
  distribution: (d, variant) =>
    variant === undefined ? undefined : { variantKey: variant.key, rollout: percentageOf(d.rollout) },
  rollout: (r) => ({ rank: rankOf(r.rank), description: r.description }),
};
