// How one rollout reads: "50% of entities → true", or "entities in beta OR staff → true".

import type { Rollout, Segment } from '../../api/types.js';
import { formatPercent } from '../../lib/distribution.js';
import { SegmentList } from '../rules/rule-card.js';
import { segmentKeysOf } from '../rules/segment-picker.js';

export function RolloutCard({
  ns,
  rollout,
  position,
  segments,
}: {
  ns: string;
  rollout: Rollout;
  position: number;
  segments: Segment[];
}) {
  const value = rollout.threshold?.value ?? rollout.segment?.value ?? false;
  return (
    <div className="rule-card">
      <p className="rule-head">
        <span className="rank">Rollout {position + 1}</span>
        {rollout.threshold ? (
          <>{formatPercent(rollout.threshold.percentage)}% of entities</>
        ) : rollout.segment ? (
          <>
            Entities in{' '}
            <SegmentList
              ns={ns}
              keys={segmentKeysOf(rollout.segment)}
              operator={rollout.segment.segmentOperator}
              segments={segments}
            />
          </>
        ) : (
          'Unknown rollout type'
        )}{' '}
        → <span className={`status ${value ? 'status-on' : 'status-off'}`}>{String(value)}</span>
      </p>
      {rollout.threshold ? (
        <div className="dist-bar" aria-hidden="true">
          <span
            className={`dist-seg ${value ? 'dist-true' : 'dist-false'}`}
            style={{ width: `${Math.min(rollout.threshold.percentage, 100)}%` }}
          />
        </div>
      ) : null}
      {rollout.description ? <p className="muted">{rollout.description}</p> : null}
    </div>
  );
}
