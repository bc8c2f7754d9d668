// Saving a rule means several API calls (the rule, then one per distribution). A new rule whose
// distributions fail is deleted again, so nothing half-configured starts taking traffic.

import * as api from '../../api/api.js';
import type { Rule } from '../../api/types.js';

export interface DistributionInput {
  variantId: string;
  rollout: number;
}

export async function createRuleWithDistributions(
  ns: string,
  flagKey: string,
  rank: number,
  selection: api.SegmentSelection,
  distributions: DistributionInput[],
): Promise<Rule> {
  const rule = await api.createRule(ns, flagKey, rank, selection);
  try {
    for (const d of distributions) {
      if (d.rollout > 0) await api.createDistribution(ns, flagKey, rule.id, d.variantId, d.rollout);
    }
  } catch (err) {
    await api.deleteRule(ns, flagKey, rule.id).catch(() => {});
    throw err;
  }
  return rule;
}

/** Updates the segments, then brings the distributions to the wanted percentages (0 % removes one). */
export async function updateRuleWithDistributions(
  ns: string,
  flagKey: string,
  rule: Rule,
  selection: api.SegmentSelection,
  distributions: DistributionInput[],
): Promise<void> {
  await api.updateRule(ns, flagKey, rule.id, selection);
  const existing = new Map(rule.distributions.map((d) => [d.variantId, d]));
  // Lower shares first, so the rule never sends more than 100 % while the changes land one by one.
  const ordered = [...distributions].sort(
    (a, b) =>
      a.rollout - (existing.get(a.variantId)?.rollout ?? 0) - (b.rollout - (existing.get(b.variantId)?.rollout ?? 0)),
  );
  for (const d of ordered) {
    const current = existing.get(d.variantId);
    if (current && d.rollout === 0) await api.deleteDistribution(ns, flagKey, rule.id, current.id, current.variantId);
    else if (current && current.rollout !== d.rollout)
      await api.updateDistribution(ns, flagKey, rule.id, current.id, d.variantId, d.rollout);
    else if (!current && d.rollout > 0) await api.createDistribution(ns, flagKey, rule.id, d.variantId, d.rollout);
  }
  // Distributions for variants that no longer exist are left to the server's cascade.
}
