// Small labels for a flag's type and state, used in lists and headers.

import type { FlagType } from '../../api/types.js';

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
