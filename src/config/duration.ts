// Go-style durations ("500ms", "30s", "1h30m"), as Flipt's config files write them.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/** Milliseconds in a Go duration string; undefined when it is not one. A bare "0" is zero. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const start = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== start) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return total;
}
