// Conversions between Flipt's datetime constraint values (RFC 3339 in UTC, or a date `YYYY-MM-DD`
// meaning midnight UTC; behavior.md §2.3) and the browser's date/time pickers, which work in local time.

/** `2024-01-02T03:04:05Z` → `2024-01-02T04:04:05` in the browser's zone (for <input type="datetime-local">). */
export function toLocalInput(value: string): string {
  if (!value || isDateOnly(value)) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A datetime-local value (local time) → RFC 3339 UTC with whole seconds, as Flipt stores it. */
export function fromLocalInput(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  if (Number.isNaN(d.getTime())) return '';
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isDateOnly(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** The browser's offset as `UTC+02:00`, to say which zone the picker uses. */
export function localZoneLabel(at = new Date()): string {
  const minutes = -at.getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
