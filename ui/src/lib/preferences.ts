// The operator's display preferences, remembered in this browser (localStorage): the colour theme
// (light, dark, or the system's) and whether times are shown in local time or UTC.

import { useSyncExternalStore } from 'react';

export type Theme = 'system' | 'light' | 'dark';
export type TimeZonePref = 'local' | 'utc';

export interface Preferences {
  theme: Theme;
  time: TimeZonePref;
}

const KEY = 'vexil.preferences';
const DEFAULTS: Preferences = { theme: 'system', time: 'local' };

function read(): Preferences {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Preferences>;
    return {
      theme: parsed.theme === 'light' || parsed.theme === 'dark' ? parsed.theme : 'system',
      time: parsed.time === 'utc' ? 'utc' : 'local',
    };
  } catch {
    return DEFAULTS;
  }
}

let current: Preferences = typeof window === 'undefined' ? DEFAULTS : read();
const listeners = new Set<() => void>();

/** Sets the theme on <html data-theme>, which styles.css keys its dark palette on. */
export function applyTheme(theme: Theme = current.theme): void {
  if (typeof document === 'undefined') return;
  const dark =
    theme === 'dark' || (theme === 'system' && window.matchMedia?.('(prefers-color-scheme: dark)').matches === true);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function setPreferences(changes: Partial<Preferences>): void {
  current = { ...current, ...changes };
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // kept for this page only
  }
  applyTheme();
  for (const l of listeners) l();
}

export function getPreferences(): Preferences {
  return current;
}

export function usePreferences(): Preferences {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
    () => DEFAULTS,
  );
}

if (typeof window !== 'undefined') {
  applyTheme();
  // "System" follows the operating system when it switches (e.g. at sunset).
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', () => applyTheme());
  // Another tab changed the preferences.
  window.addEventListener('storage', (e) => {
    if (e.key !== KEY) return;
    current = read();
    applyTheme();
    for (const l of listeners) l();
  });
}
