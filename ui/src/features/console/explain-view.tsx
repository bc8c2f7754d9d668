// Renders the `explain` object of an evaluation (which rule or rollout matched, which constraint
// failed) without assuming its exact shape: objects become labelled groups, arrays numbered lists.

import type { Json } from '../../api/types.js';

function humanize(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());
}

function Scalar({ value }: { value: Exclude<Json, Json[] | { [key: string]: Json }> }) {
  if (value === null) return <span className="muted">none</span>;
  if (typeof value === 'boolean')
    return <span className={`status ${value ? 'status-on' : 'status-off'}`}>{String(value)}</span>;
  if (typeof value === 'number') return <code>{value}</code>;
  return value === '' ? <span className="muted">(empty)</span> : <code>{value}</code>;
}

type JsonObject = { [key: string]: Json };
const isObject = (v: Json): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A one-line title for an object in a list: its name-like field, and whether it matched. */
function summaryOf(item: JsonObject, index: number): { text: string; matched?: boolean } {
  const nameField = ['key', 'segmentKey', 'variantKey', 'property', 'name', 'flagKey', 'id'].find(
    (k) => typeof item[k] === 'string' && item[k] !== '',
  );
  const label =
    nameField && nameField !== 'id'
      ? String(item[nameField])
      : typeof item.rank === 'number'
        ? `rank ${item.rank}`
        : nameField
          ? String(item[nameField])
          : '';
  const text = `${index + 1}. ${label}`.trim();
  const matched =
    typeof item.matched === 'boolean' ? item.matched : typeof item.match === 'boolean' ? item.match : undefined;
  return { text, matched };
}

export function ExplainNode({ value, depth = 0 }: { value: Json; depth?: number }) {
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    if (value.every(isObject)) {
      // Lists of objects (rules, segments, constraints…) fold, each titled by its key; the ones that
      // matched start open, so the path to the answer is visible at a glance.
      return (
        <div className="explain-items">
          {value.map((item, i) => {
            const summary = summaryOf(item, i);
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: explain arrays are positional
              <details key={i} className="explain-item" open={summary.matched !== false && depth < 4}>
                <summary>
                  {summary.text}
                  {summary.matched !== undefined ? (
                    <span className={`status ${summary.matched ? 'status-on' : 'status-off'}`}>
                      {summary.matched ? 'matched' : 'no match'}
                    </span>
                  ) : null}
                </summary>
                <ExplainNode value={item} depth={depth + 1} />
              </details>
            );
          })}
        </div>
      );
    }
    return (
      <ol className="explain-list">
        {value.map((item, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: explain arrays are positional
          <li key={i}>
            <ExplainNode value={item} depth={depth + 1} />
          </li>
        ))}
      </ol>
    );
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return <span className="muted">—</span>;
    return (
      <dl className={`explain-object depth-${Math.min(depth, 3)}`}>
        {entries.map(([k, v]) => (
          <div key={k} className="explain-entry">
            <dt>{humanize(k)}</dt>
            <dd>
              <ExplainNode value={v} depth={depth + 1} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <Scalar value={value} />;
}

/**
 * For a boolean flag, `enabled` is the value when no rollout matches, so the explanation's
 * `flagEnabled` is shown as that ("Default value"), not as "Flag enabled: false" beside a true result.
 */
function forDisplay(explain: Json, kind: 'boolean' | 'variant'): Json {
  if (kind !== 'boolean' || !isObject(explain) || !('flagEnabled' in explain)) return explain;
  const { flagEnabled, ...rest } = explain;
  return { defaultValue: flagEnabled ?? null, ...rest };
}

export function ExplainView({ explain, kind = 'variant' }: { explain: Json; kind?: 'boolean' | 'variant' }) {
  return (
    <section className="explain" aria-labelledby="explain-title">
      <h3 id="explain-title">Explanation</h3>
      <ExplainNode value={forDisplay(explain, kind)} />
      <details>
        <summary>Raw JSON</summary>
        <pre className="code">{JSON.stringify(explain, null, 2)}</pre>
      </details>
    </section>
  );
}
