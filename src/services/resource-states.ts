// Reads a resource's state for the change log (issue 28): what a change records as "before" and
// "after", and what revert restores. A flag's full state carries its rules and rollouts, so deleting
// a flag records everything needed to bring it back.

import { NotFoundError } from '../domain/errors.js';
import type { Constraint, Distribution, Flag, Namespace, Rollout, Rule, Segment, Variant } from '../domain/types.js';
import { ALL } from '../storage/pagination.js';
import type { Executor, FlagReads, NamespaceReads, RolloutReads, RuleReads, SegmentReads } from '../storage/store.js';

/** A flag with its rules and rollouts, in rank order: what a flag's delete records. */
export interface FlagState extends Flag {
  rules: Rule[];
  rollouts: Rollout[];
}

/**
 * A variant with what deleting it takes along: the distributions that gave it traffic (they go with
 * it) and whether it was its flag's default variant (which is cleared). A variant's create and delete
 * record this, so a revert brings all of it back.
 */
export interface VariantState extends Variant {
  distributions: Distribution[];
  isDefault: boolean;
}

/** Where a rule's or rollout's siblings stood: what a delete's renumbering changed. */
export interface SiblingRank {
  id: string;
  rank: number;
  updatedAt: Date;
}

export function siblingRanks(
  items: readonly { id: string; rank: number; updatedAt: Date }[],
  except: string,
): SiblingRank[] {
  return items.filter((i) => i.id !== except).map(({ id, rank, updatedAt }) => ({ id, rank, updatedAt }));
}

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

export class ResourceStates {
  constructor(
    private readonly flags: FlagReads,
    private readonly rules: RuleReads,
    private readonly rollouts: RolloutReads,
    private readonly segments: SegmentReads,
    private readonly namespaces: NamespaceReads,
  ) {}

  namespace(db: Executor, key: string): Promise<Namespace | undefined> {
    return this.namespaces.find(db, key);
  }

  flag(db: Executor, ns: string, key: string): Promise<Flag | undefined> {
    return orUndefined(this.flags.get(db, ns, key));
  }

  async fullFlag(db: Executor, ns: string, key: string): Promise<FlagState | undefined> {
    const flag = await this.flag(db, ns, key);
    if (!flag) return undefined;
    const [rules, rollouts] = await Promise.all([this.ruleOrder(db, ns, key), this.rolloutOrder(db, ns, key)]);
    return { ...flag, rules, rollouts };
  }

  async variant(db: Executor, ns: string, flagKey: string, id: string): Promise<Variant | undefined> {
    return (await this.flag(db, ns, flagKey))?.variants.find((v) => v.id === id);
  }

  async fullVariant(db: Executor, ns: string, flagKey: string, id: string): Promise<VariantState | undefined> {
    const flag = await this.flag(db, ns, flagKey);
    const variant = flag?.variants.find((v) => v.id === id);
    if (!flag || !variant) return undefined;
    const rules = await this.ruleOrder(db, ns, flagKey);
    const distributions = rules.flatMap((r) => r.distributions.filter((d) => d.variantId === id));
    return { ...variant, distributions, isDefault: flag.defaultVariant?.id === id };
  }

  segment(db: Executor, ns: string, key: string): Promise<Segment | undefined> {
    return orUndefined(this.segments.get(db, ns, key));
  }

  constraint(db: Executor, ns: string, segmentKey: string, id: string): Promise<Constraint | undefined> {
    return this.segments.findConstraint(db, ns, segmentKey, id);
  }

  rule(db: Executor, ns: string, id: string): Promise<Rule | undefined> {
    return orUndefined(this.rules.get(db, ns, id));
  }

  async ruleOrder(db: Executor, ns: string, flagKey: string): Promise<Rule[]> {
    return (await this.rules.list(db, ns, flagKey, ALL)).items;
  }

  async distribution(db: Executor, ns: string, ruleId: string, id: string): Promise<Distribution | undefined> {
    return (await this.rule(db, ns, ruleId))?.distributions.find((d) => d.id === id);
  }

  rollout(db: Executor, ns: string, id: string): Promise<Rollout | undefined> {
    return orUndefined(this.rollouts.get(db, ns, id));
  }

  async rolloutOrder(db: Executor, ns: string, flagKey: string): Promise<Rollout[]> {
    return (await this.rollouts.list(db, ns, flagKey, ALL)).items;
  }

  /** Everything a namespace holds: what deleting it takes along. */
  async namespaceContents(db: Executor, ns: string): Promise<{ flags: FlagState[]; segments: Segment[] }> {
    const flags: FlagState[] = [];
    for (const flag of (await this.flags.list(db, ns, ALL)).items) {
      const [rules, rollouts] = await Promise.all([
        this.ruleOrder(db, ns, flag.key),
        this.rolloutOrder(db, ns, flag.key),
      ]);
      flags.push({ ...flag, rules, rollouts });
    }
    return { flags, segments: (await this.segments.list(db, ns, ALL)).items };
  }
}
