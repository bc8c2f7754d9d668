// A change's before/after as a field-by-field table, with the raw JSON one click away for the
// details the table leaves out (ids, timestamps).

import { type DiffContext, diffChange } from './diff.js';
import type { Change } from './history-api.js';

export function ChangeDiff({ change, context }: { change: Change; context?: DiffContext }) {
  const rows = diffChange(change.before, change.after, context, `${change.resourceType}s`);
  const heading =
    change.before === undefined ? 'Created with' : change.after === undefined ? 'Deleted state' : 'What changed';
  return (
    <div className="change-diff">
      {rows.length === 0 ? (
        <p className="muted">No field changed that the dashboard shows (only ids or timestamps).</p>
      ) : (
        <table className="table diff-table">
          <caption className="sr-only">{heading}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              {change.before !== undefined ? <th scope="col">Before</th> : null}
              {change.after !== undefined ? <th scope="col">After</th> : null}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.path.join(' › ')}>
                <th scope="row">{r.path.join(' › ')}</th>
                {change.before !== undefined ? (
                  <td className={r.before === undefined ? 'diff-cell' : 'diff-cell diff-before'}>
                    {r.before ?? <span className="muted">—</span>}
                  </td>
                ) : null}
                {change.after !== undefined ? (
                  <td className={r.after === undefined ? 'diff-cell' : 'diff-cell diff-after'}>
                    {r.after ?? <span className="muted">—</span>}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details className="diff-raw">
        <summary className="diff-raw-summary">Raw JSON</summary>
        <div className="diff-raw-grid">
          {change.before !== undefined ? (
            <div>
              <p className="label">Before</p>
              <pre className="code">{JSON.stringify(change.before, null, 2)}</pre>
            </div>
          ) : null}
          {change.after !== undefined ? (
            <div>
              <p className="label">After</p>
              <pre className="code">{JSON.stringify(change.after, null, 2)}</pre>
            </div>
          ) : null}
        </div>
      </details>
    </div>
  );
}
