// A namespace's content as an export document holds it (domain/namespace-content.ts), made from the
// same read the snapshot cache compiles (namespace-reader.ts): variants named by key instead of id,
// no ids or timestamps.

import type { Kysely } from 'kysely';
import type {
  DistributionContent,
  FlagContent,
  NamespaceContent,
  RolloutContent,
} from '../domain/namespace-content.js';
import type { FlagSource } from '../evaluation/source.js';
import type { DialectName } from './db.js';
import { type NamespaceDetails, type NamespaceRead, readNamespace, readNamespaceIn } from './namespace-reader.js';
import type { Database } from './schema.js';
import type { Tx } from './transaction.js';

/** The namespace's content read consistently; undefined when it does not exist. */
export async function readContent(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
): Promise<NamespaceContent | undefined> {
  const read = await readNamespace(db, dialect, namespaceKey, { details: true });
  return read && contentOf(read);
}

/** The same, inside a transaction the caller already holds. */
export async function readContentIn(tx: Tx, namespaceKey: string): Promise<NamespaceContent | undefined> {
  const read = await readNamespaceIn(tx, namespaceKey, { details: true });
  return read && contentOf(read);
}

function contentOf({ namespace, source, details }: NamespaceRead): NamespaceContent {
  if (details === undefined) throw new Error('a namespace read for its content must include its details');
  // Of every flag: a distribution may name another flag's variant (Flipt does not check they belong
  // together), and such a variant is still written by its key.
  const variantKeyById = new Map<string, string>();
  for (const flag of source.flags) for (const v of flag.variants) variantKeyById.set(v.id, v.key);
  return {
    namespace,
    flags: source.flags.map((flag) => flagContentOf(flag, details, variantKeyById)),
    segments: source.segments.map((s) => ({
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: s.matchType,
      constraints: s.constraints.map((c) => ({
        type: c.type,
        property: c.property,
        operator: c.operator,
        value: c.value,
        description: c.description,
      })),
    })),
  };
}

function flagContentOf(flag: FlagSource, details: NamespaceDetails, variantKeyById: Map<string, string>): FlagContent {
  const content: FlagContent = {
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    type: flag.type,
    variants: flag.variants.map((v) => {
      const named = details.variants.get(v.id);
      return { key: v.key, name: named?.name ?? '', description: named?.description ?? '', attachment: v.attachment };
    }),
    rules: flag.rules.map((r) => ({
      rank: r.rank,
      segmentKeys: r.segmentKeys,
      segmentOperator: r.segmentOperator,
      distributions: r.distributions.flatMap((d): DistributionContent[] => {
        const variantKey = variantKeyById.get(d.variantId);
        // A variant outside the namespace has no key to be written by: the distribution is left out.
        return variantKey === undefined ? [] : [{ variantKey, rollout: d.rollout }];
      }),
    })),
    rollouts: flag.rollouts.map((r) => {
      const rollout: RolloutContent = { rank: r.rank, description: r.description };
      if (r.threshold) rollout.threshold = r.threshold;
      if (r.segment) rollout.segment = r.segment;
      return rollout;
    }),
  };
  const metadata = details.flagMetadata.get(flag.key);
  if (metadata) content.metadata = metadata;
  // Only one of the flag's own variants is written as its default: a document names it by key.
  if (flag.defaultVariant && flag.variants.includes(flag.defaultVariant)) {
    content.defaultVariantKey = flag.defaultVariant.key;
  }
  return content;
}
