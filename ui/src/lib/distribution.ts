// Percentages of a rule's distribution, computed in hundredths so 33.33 + 33.33 + 33.34 is exactly 100
// (float sums are not).

export const MAX_DECIMALS = 2;

/** A percentage entry as typed: "" or a number with up to two decimals between 0 and 100. */
export function parsePercent(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(t)) return undefined;
  const n = Number(t);
  return n >= 0 && n <= 100 ? n : undefined;
}

/** Sum in hundredths of a percent. */
export function totalHundredths(values: number[]): number {
  return values.reduce((sum, v) => sum + Math.round(v * 100), 0);
}

export function formatPercent(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, '');
}

/** Splits 100 % over n variants in hundredths; the first ones take the remainder (33.34, 33.33, 33.33). */
export function evenSplit(n: number): number[] {
  if (n <= 0) return [];
  const base = Math.floor(10_000 / n);
  const rest = 10_000 - base * n;
  return Array.from({ length: n }, (_, i) => (base + (i < rest ? 1 : 0)) / 100);
}
