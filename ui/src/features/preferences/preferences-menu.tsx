// The sidebar's preferences: colour theme and time zone of displayed times, kept in this browser.

import { useId } from 'react';
import { setPreferences, type Theme, type TimeZonePref, usePreferences } from '../../lib/preferences.js';

export function PreferencesMenu() {
  const prefs = usePreferences();
  const themeId = useId();
  const timeId = useId();
  return (
    <details className="prefs-menu">
      <summary>Preferences</summary>
      <div className="prefs">
        <label htmlFor={themeId}>Theme</label>
        <select id={themeId} value={prefs.theme} onChange={(e) => setPreferences({ theme: e.target.value as Theme })}>
          <option value="system">Same as the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
        <label htmlFor={timeId}>Times</label>
        <select
          id={timeId}
          value={prefs.time}
          onChange={(e) => setPreferences({ time: e.target.value as TimeZonePref })}
        >
          <option value="local">Local time</option>
          <option value="utc">UTC</option>
        </select>
      </div>
    </details>
  );
}
