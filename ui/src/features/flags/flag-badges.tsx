// Small labels for a flag's type and state, used in lists and headers.

import { useRollouts } from '../../api/queries.js';
import type { Flag, FlagType } from '../../api/types.js';
import { plural } from '../../lib/format.js';

export function TypeBadge({ type }: { type: FlagType }) {
  return (
    <span className={`badge badge-${type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant'}`}>
      {type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'Variant'}
    </span>
  );
}

export function EnabledBadge({ enabled, type }: { enabled: boolean; type: FlagType }) {
  // For boolean flags "enabled" is the default value when no rollout matches (behavior.md §1.5).
  const text =
    type === 'BOOLEAN_FLAG_TYPE' ? (enabled ? 'Default: true' : 'Default: false') : enabled ? 'Enabled' : 'Disabled';
  return <span className={`status ${enabled ? 'status-on' : 'status-off'}`}>{text}</span>;
}

/**
 * A boolean flag's default alone would mislead when rollouts give some entities the other value
 * ("Default: false" on a flag rolled out to 30 %), so the list counts them (one read per flag on
 * the visible page, shared with the flag page's cache).
 */
function BooleanState({ ns, flag }: { ns: string; flag: Flag }) {
  const rollouts = useRollouts(ns, flag.key);
  const n = rollouts.data?.length ?? 0;
  if (n === 0) return <EnabledBadge enabled={flag.enabled} type={flag.type} />;
  return (
    <span className="status status-mixed">
      {plural(n, 'rollout')}, else {String(flag.enabled)}
    </span>
  );
}

export function FlagStateBadge({ ns, flag }: { ns: string; flag: Flag }) {
  return flag.type === 'BOOLEAN_FLAG_TYPE' ? (
    <BooleanState ns={ns} flag={flag} />
  ) : (
    <EnabledBadge enabled={flag.enabled} type={flag.type} />
  );
}
