// How one rule reads: which segments it targets and how it splits traffic.

import type { Flag, Rule, Segment } from '../../api/types.js';
import { formatPercent } from '../../lib/distribution.js';
import { Link, paths } from '../../lib/router.js';
import { segmentKeysOf } from './segment-picker.js';

export function SegmentList({
  ns,
  keys,
  operator,
  segments,
}: {
  ns: string;
  keys: string[];
  operator: string;
  segments: Segment[];
}) {
  const joiner = operator === 'AND_SEGMENT_OPERATOR' ? 'AND' : 'OR';
  return (
    <span className="segment-list">
      {keys.map((k, i) => {
        const s = segments.find((x) => x.key === k);
        return (
          <span key={k}>
            {i > 0 ? <span className="joiner"> {joiner} </span> : null}
            <Link to={paths.segment(ns, k)} className="segment-chip">
              {s?.name || k}
            </Link>
          </span>
        );
      })}
    </span>
  );
}

export function RuleCard({
  ns,
  flag,
  rule,
  position,
  segments,
}: {
  ns: string;
  flag: Flag;
  rule: Rule;
  position: number;
  segments: Segment[];
}) {
  const variants = new Map(flag.variants.map((v, i) => [v.id, { v, i }]));
  const dists = [...rule.distributions].sort(
    (a, b) => (variants.get(a.variantId)?.i ?? 0) - (variants.get(b.variantId)?.i ?? 0),
  );
  return (
    <div className="rule-card">
      <p className="rule-head">
        <span className="rank">Rule {position + 1}</span> If the entity is in{' '}
        <SegmentList ns={ns} keys={segmentKeysOf(rule)} operator={rule.segmentOperator} segments={segments} />
      </p>
      {dists.length ? (
        <>
          <div className="dist-bar" aria-hidden="true">
            {dists.map((d) => (
              <span
                key={d.id}
                className={`dist-seg dist-c${(variants.get(d.variantId)?.i ?? 0) % 6}`}
                style={{ width: `${Math.min(d.rollout, 100)}%` }}
              />
            ))}
          </div>
          <ul className="dist-legend" aria-label={`Distribution of rule ${position + 1}`}>
            {dists.map((d) => (
              <li key={d.id}>
                <span className={`dist-swatch dist-c${(variants.get(d.variantId)?.i ?? 0) % 6}`} aria-hidden="true" />
                <code>{variants.get(d.variantId)?.v.key ?? 'deleted variant'}</code> {formatPercent(d.rollout)}%
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">
          Returns {flag.defaultVariant ? <code>{flag.defaultVariant.key}</code> : 'no variant'} (no distribution).
        </p>
      )}
    </div>
  );
}
