// A timestamp as the operator prefers it (local time or UTC, see Preferences), optionally with
// "3 minutes ago" in front for lists.

import { formatDate, relativeDate } from '../lib/format.js';
import { usePreferences } from '../lib/preferences.js';

export function DateTime({ iso, relative }: { iso?: string; relative?: boolean }) {
  const { time } = usePreferences();
  if (!iso) return <span className="muted">—</span>;
  const absolute = formatDate(iso, time);
  if (!relative) return <time dateTime={iso}>{absolute}</time>;
  return (
    <time dateTime={iso} className="datetime">
      {relativeDate(iso)}
      <span className="datetime-abs muted">{absolute}</span>
    </time>
  );
}
