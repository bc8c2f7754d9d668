// Editable key/value rows (evaluation context): add, edit and remove pairs; every input is labelled.

export interface KeyValue {
  key: string;
  value: string;
}

interface KeyValueRowsProps {
  rows: KeyValue[];
  onChange: (rows: KeyValue[]) => void;
  legend: string;
  keyLabel?: string;
  valueLabel?: string;
}

export function KeyValueRows({ rows, onChange, legend, keyLabel = 'Key', valueLabel = 'Value' }: KeyValueRowsProps) {
  const update = (i: number, patch: Partial<KeyValue>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const keys = rows.map((r) => r.key.trim());
  return (
    <fieldset className="kv">
      <legend>{legend}</legend>
      {rows.length === 0 ? <p className="hint">No properties. Add one to test constraints.</p> : null}
      {rows.map((row, i) => {
        const duplicate = row.key.trim() !== '' && keys.indexOf(row.key.trim()) !== i;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity besides their position
          <div className="kv-row" key={i}>
            <label>
              <span className="sr-only">
                {keyLabel} {i + 1}
              </span>
              <input
                value={row.key}
                placeholder={keyLabel}
                onChange={(e) => update(i, { key: e.target.value })}
                aria-invalid={duplicate || undefined}
              />
            </label>
            <label>
              <span className="sr-only">
                {valueLabel} {i + 1}
              </span>
              <input
                value={row.value}
                placeholder={valueLabel}
                onChange={(e) => update(i, { value: e.target.value })}
              />
            </label>
            <button
              type="button"
              className="btn btn-small btn-ghost"
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
              aria-label={`Remove ${row.key || `row ${i + 1}`}`}
            >
              Remove
            </button>
            {duplicate ? (
              <p className="field-error" role="alert">
                Duplicate key "{row.key}": the last one wins.
              </p>
            ) : null}
          </div>
        );
      })}
      <button type="button" className="btn btn-small" onClick={() => onChange([...rows, { key: '', value: '' }])}>
        Add property
      </button>
    </fieldset>
  );
}

/** Rows → context object; empty keys are skipped. */
export function rowsToRecord(rows: KeyValue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) if (r.key.trim() !== '') out[r.key.trim()] = r.value;
  return out;
}
