// Display helpers shared by pages: dates, reasons, keys derived from names.

import { getPreferences } from './preferences.js';

/** A date and time in the zone the operator chose (local, or UTC marked as such). */
export function formatDate(iso?: string, zone = getPreferences().time): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = d.toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(zone === 'utc' ? { timeZone: 'UTC' } : {}),
  });
  return zone === 'utc' ? `${text} UTC` : text;
}

export function relativeDate(iso?: string): string {
  if (!iso) return '—';
  const d = new Date(iso).getTime();
  if (Number.isNaN(d)) return iso;
  const seconds = Math.round((Date.now() - d) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
  ];
  let value = -seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return rtf.format(Math.round(value), unit);
    value /= size;
  }
  return rtf.format(Math.round(value), 'year');
}

/** A key in Flipt's alphabet (`^[-_,A-Za-z0-9]+$`) derived from a display name. */
export function keyFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 255);
}

export const KEY_PATTERN = /^[-_,A-Za-z0-9]+$/;

export function keyProblem(key: string): string | undefined {
  if (!key) return 'Required.';
  if (!KEY_PATTERN.test(key)) return 'Use only letters, digits, "-", "_" and ",".';
  if (key.length > 255) return 'At most 255 characters.';
  return undefined;
}

const REASONS: Record<string, string> = {
  MATCH_EVALUATION_REASON: 'Match',
  DEFAULT_EVALUATION_REASON: 'Default',
  FLAG_DISABLED_EVALUATION_REASON: 'Flag disabled',
  UNKNOWN_EVALUATION_REASON: 'No match',
};
export function reasonLabel(reason: string): string {
  return REASONS[reason] ?? reason;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
