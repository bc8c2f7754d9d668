// One sentence saying what an evaluation returned and why, from the result and, when the server
// sent one, its explanation (src/evaluation/explain.ts: `decision`, the rules or rollouts tried).

import type { BooleanEvaluation, Json, VariantEvaluation } from '../../api/types.js';

/** What one evaluation in the console answered. */
export type EvaluationOutcome =
  | { kind: 'boolean'; result: BooleanEvaluation }
  | { kind: 'variant'; result: VariantEvaluation };

type Obj = { [key: string]: Json };
const isObj = (v: Json | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function lastMatched(list: Json | undefined): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.filter(isObj).find((item) => item.matched === true);
}

function segmentsOf(item: Obj): string {
  const segs = Array.isArray(item.segments) ? item.segments.filter(isObj) : [];
  const keys = segs.filter((s) => s.matched === true).map((s) => String(s.key));
  return keys.length ? ` (${keys.join(', ')})` : '';
}

export function evaluationSummary(outcome: EvaluationOutcome, entityId: string): string {
  const who = entityId ? `"${entityId}"` : 'This entity';
  const explain = isObj(outcome.result.explain) ? outcome.result.explain : undefined;
  const decision = typeof explain?.decision === 'string' ? explain.decision : undefined;
  const bucket = typeof explain?.bucket === 'number' ? ` (bucket ${explain.bucket})` : '';

  if (outcome.kind === 'boolean') {
    const value = String(outcome.result.enabled);
    const rollout = lastMatched(explain?.rollouts);
    if (decision === 'THRESHOLD_MATCHED' && rollout)
      return `${who} gets ${value}: rollout ${rollout.rank} (${rollout.percentage} % of entities) matched${bucket}.`;
    if (decision === 'SEGMENT_MATCHED' && rollout)
      return `${who} gets ${value}: rollout ${rollout.rank}${segmentsOf(rollout)} matched.`;
    if (outcome.result.reason === 'MATCH_EVALUATION_REASON') return `${who} gets ${value}: a rollout matched.`;
    return `${who} gets ${value}: no rollout matched, so the flag's default value applies.`;
  }

  const r = outcome.result;
  const value = r.variantKey ? `variant "${r.variantKey}"` : 'no variant';
  const rule = lastMatched(explain?.rules);
  switch (decision ?? r.reason) {
    case 'FLAG_DISABLED':
    case 'FLAG_DISABLED_EVALUATION_REASON':
      return `${who} gets ${value}: the flag is disabled.`;
    case 'RULE_MATCHED_DISTRIBUTION':
      return `${who} gets ${value}: rule ${rule?.rank ?? ''}${rule ? segmentsOf(rule) : ''} matched and its distribution chose it${bucket}.`;
    case 'RULE_MATCHED_BUCKET_GAP':
      return `${who} gets ${value}: rule ${rule?.rank ?? ''} matched, but its percentages (under 100 %) do not cover this entity${bucket}.`;
    case 'RULE_MATCHED_WITHOUT_DISTRIBUTIONS':
      return `${who} gets ${value}: rule ${rule?.rank ?? ''} matched, and it has no distributions.`;
    case 'MATCH_EVALUATION_REASON':
      return `${who} gets ${value}: a rule matched.`;
    default:
      return `${who} gets ${value}: no rule matched, so the default variant applies.`;
  }
}
