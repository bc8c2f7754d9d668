// Saving a rule is one request: the rule with its whole split (a Vexil extension, ADR 0036), so it is
// one transaction, one entry in the history and one revert, and the split never passes through more
// than 100 % on the way. A 0 % share is no distribution at all.

import * as api from '../../api/api.js';
import type { Rule } from '../../api/types.js';

export interface DistributionInput {
  variantId: string;
  rollout: number;
}

const split = (distributions: DistributionInput[]) => distributions.filter((d) => d.rollout > 0);

export function createRuleWithDistributions(
  ns: string,
  flagKey: string,
  rank: number,
  selection: api.SegmentSelection,
  distributions: DistributionInput[],
): Promise<Rule> {
  return api.createRule(ns, flagKey, rank, selection, split(distributions));
}

/** `ifMatch`: the revision the edited rule was read at (ADR 0035). */
export function updateRuleWithDistributions(
  ns: string,
  flagKey: string,
  rule: Rule,
  selection: api.SegmentSelection,
  distributions: DistributionInput[],
  ifMatch?: string,
): Promise<Rule> {
  return api.updateRule(ns, flagKey, rule.id, selection, split(distributions), { ifMatch });
}
