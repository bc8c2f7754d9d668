// Which variant a variant flag returns when it is disabled or no rule matches; saved on change.

import { useId, useState } from 'react';
import type { Flag } from '../../api/types.js';
import { ErrorNote } from '../../components/error-note.js';
import { useNotify } from '../../components/notices.js';
import { useFlagUpdate } from './use-flag-update.js';

export function DefaultVariantSelect({ flag }: { flag: Flag }) {
  const id = useId();
  const update = useFlagUpdate(flag.namespaceKey || 'default', flag.key);
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const change = async (variantId: string) => {
    setBusy(true);
    setError(null);
    try {
      const saved = await update({ defaultVariantId: variantId });
      notify(saved.defaultVariant ? `Default variant is now "${saved.defaultVariant.key}"` : 'Default variant removed');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="field default-variant">
      <label htmlFor={id}>Default variant</label>
      <select
        id={id}
        value={flag.defaultVariant?.id ?? ''}
        onChange={(e) => change(e.target.value)}
        disabled={busy}
        aria-describedby={`${id}-hint`}
      >
        <option value="">None</option>
        {flag.variants.map((v) => (
          <option key={v.id} value={v.id}>
            {v.key}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-hint`}>
        Returned when the flag is disabled, when no rule matches, or when a matching rule has no distribution.
      </p>
      <ErrorNote error={error} />
    </div>
  );
}
