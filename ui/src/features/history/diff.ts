// A change's before/after as rows an operator can read: one row per field that differs, nested
// lists (variants, rules, distributions, constraints, rollouts) matched by id so a reordered or
// edited rule shows as "Rule #2 › Segment keys", and a whole added or removed item summarised in
// one line instead of a JSON dump.

export interface DiffRow {
  /** Readable labels from the resource down to the field, e.g. ["Rule #1", "Segment keys"]. */
  path: string[];
  before?: string;
  after?: string;
}

export interface DiffContext {
  /** Variant ids to keys, so a distribution names its variant. */
  variantKeys?: Map<string, string>;
}

type Obj = Record<string, unknown>;

// Bookkeeping the server sets by itself (or the parent already names): never what an operator changed.
// The parent (flag, rule) is already in the change's summary; `siblingsBefore` is what a revert of a
// delete needs to renumber the other rules, not something anyone edited.
const NOISE = new Set(['createdAt', 'updatedAt', 'namespaceKey', 'id', 'flagKey', 'ruleId', 'siblingsBefore']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const LABELS: Record<string, string> = {
  segmentKeys: 'Segments',
  segmentKey: 'Segment',
  segmentOperator: 'Segment operator',
  matchType: 'Match type',
  variantId: 'Variant',
  defaultVariant: 'Default variant',
  rollout: 'Percentage',
  isDefault: "Flag's default",
};

export function fieldLabel(name: string): string {
  const known = LABELS[name];
  if (known) return known;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const ENUMS: [RegExp, string][] = [
  [/_FLAG_TYPE$/, ''],
  [/_MATCH_TYPE$/, ''],
  [/_SEGMENT_OPERATOR$/, ''],
  [/_COMPARISON_TYPE$/, ''],
  [/_ROLLOUT_TYPE$/, ''],
];

/** One value as text: enums without their suffix, lists comma-separated, empty text said so. */
export function formatValue(value: unknown, ctx: DiffContext = {}, field?: string): string {
  if (value === undefined || value === null) return '(none)';
  if (typeof value === 'string') {
    if (value === '') return '(empty)';
    if (field === 'variantId') return ctx.variantKeys?.get(value) ?? value;
    for (const [re] of ENUMS) if (re.test(value)) return value.replace(re, '').toLowerCase();
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value.map((v) => (isObj(v) ? `{${summarise(v, ctx)}}` : formatValue(v, ctx))).join(', ');
  }
  if (isObj(value)) return summarise(value, ctx);
  return String(value);
}

/** A whole item on one line: "key: blue, name: Blue" with nested lists summarised in turn. */
export function summarise(item: Obj, ctx: DiffContext = {}): string {
  return Object.entries(item)
    .filter(([k, v]) => !NOISE.has(k) && v !== '' && v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${fieldLabel(k).toLowerCase()}: ${formatValue(v, ctx, k)}`)
    .join('; ');
}

/** What an item of a nested list is called: variants by key, rules by rank, constraints by property. */
export function itemLabel(list: string, item: Obj, index: number, ctx: DiffContext = {}): string {
  const noun = fieldLabel(list).replace(/s$/, '');
  if (typeof item.key === 'string' && item.key) return `${noun} "${item.key}"`;
  if (typeof item.rank === 'number') return `${noun} #${item.rank}`;
  if (typeof item.property === 'string') return `${noun} on "${item.property}"`;
  if (typeof item.variantId === 'string') return `${noun} to "${formatValue(item.variantId, ctx, 'variantId')}"`;
  return `${noun} ${index + 1}`;
}

function identity(item: unknown, index: number): string {
  if (isObj(item)) {
    if (typeof item.id === 'string' && item.id) return `id:${item.id}`;
    if (typeof item.key === 'string' && item.key) return `key:${item.key}`;
  }
  return `index:${index}`;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function diffList(path: string[], name: string, before: unknown[], after: unknown[], ctx: DiffContext, out: DiffRow[]) {
  if (!before.concat(after).some(isObj)) {
    if (!same(before, after))
      out.push({ path: [...path, fieldLabel(name)], before: formatValue(before, ctx), after: formatValue(after, ctx) });
    return;
  }
  const afterById = new Map(after.map((item, i) => [identity(item, i), item] as const));
  const seen = new Set<string>();
  before.forEach((item, i) => {
    const id = identity(item, i);
    seen.add(id);
    const label = itemLabel(name, isObj(item) ? item : {}, i, ctx);
    if (!afterById.has(id)) {
      out.push({ path: [...path, label], before: formatValue(item, ctx) });
      return;
    }
    const next = afterById.get(id);
    diffInto([...path, isObj(next) ? itemLabel(name, next, i, ctx) : label], item, next, ctx, out);
  });
  after.forEach((item, i) => {
    if (seen.has(identity(item, i))) return;
    out.push({ path: [...path, itemLabel(name, isObj(item) ? item : {}, i, ctx)], after: formatValue(item, ctx) });
  });
}

function diffInto(path: string[], before: unknown, after: unknown, ctx: DiffContext, out: DiffRow[]) {
  if (isObj(before) && isObj(after)) {
    const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !NOISE.has(k));
    for (const name of names) {
      const b = before[name];
      const a = after[name];
      if (same(b, a)) continue;
      if (Array.isArray(b) || Array.isArray(a)) {
        diffList(path, name, Array.isArray(b) ? b : [], Array.isArray(a) ? a : [], ctx, out);
      } else {
        out.push({
          path: [...path, fieldLabel(name)],
          ...(b === undefined ? {} : { before: formatValue(b, ctx, name) }),
          ...(a === undefined ? {} : { after: formatValue(a, ctx, name) }),
        });
      }
    }
    return;
  }
  if (!same(before, after)) out.push({ path, before: formatValue(before, ctx), after: formatValue(after, ctx) });
}

/** Variant ids to keys from any `variants` list in the states (a flag change carries them). */
export function variantKeysOf(...states: unknown[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const s of states) {
    if (!isObj(s) || !Array.isArray(s.variants)) continue;
    for (const v of s.variants)
      if (isObj(v) && typeof v.id === 'string' && typeof v.key === 'string') map.set(v.id, v.key);
  }
  return map;
}

/** The rows of one change; a created resource has only "after" values, a deleted one only "before". */
export function diffChange(before: unknown, after: unknown, ctx: DiffContext = {}, listName = 'items'): DiffRow[] {
  const variantKeys = new Map([...variantKeysOf(before, after), ...(ctx.variantKeys ?? [])]);
  const out: DiffRow[] = [];
  // A reorder is recorded as the whole list before and after: compare it item by item.
  if (Array.isArray(before) || Array.isArray(after))
    diffList(
      [],
      listName,
      Array.isArray(before) ? before : [],
      Array.isArray(after) ? after : [],
      { variantKeys },
      out,
    );
  else diffInto([], before ?? {}, after ?? {}, { variantKeys }, out);
  // A created or deleted resource lists its fields with empty ones left out: "(empty)" rows are noise there.
  if (before === undefined || after === undefined)
    return out.filter((r) => (r.before ?? r.after) !== '(empty)' && (r.before ?? r.after) !== '(none)');
  return out;
}
