// The flag's on/off switch, saved as soon as it is flipped (with the result announced).

import { useState } from 'react';
import type { Flag } from '../../api/types.js';
import { ErrorNote } from '../../components/error-note.js';
import { useNotify } from '../../components/notices.js';
import { Toggle } from '../../components/toggle.js';
import { useFlagUpdate } from './use-flag-update.js';

export function FlagEnabledToggle({ flag }: { flag: Flag }) {
  const update = useFlagUpdate(flag.namespaceKey || 'default', flag.key);
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const label = boolean ? 'Default value' : 'Status';

  const change = async (enabled: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await update({ enabled });
      notify(
        boolean
          ? `Default value of "${flag.key}" is now ${enabled}`
          : `Flag "${flag.key}" ${enabled ? 'enabled' : 'disabled'}`,
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="enabled-toggle">
      <span className="label" aria-hidden="true">
        {label}
      </span>
      <Toggle
        label={label}
        checked={flag.enabled}
        onChange={change}
        disabled={busy}
        stateText={boolean ? ['True', 'False'] : ['Enabled', 'Disabled']}
      />
      <ErrorNote error={error} />
    </div>
  );
}
