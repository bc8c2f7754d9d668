// How a rule splits matching traffic between the flag's variants, as percentages with a live total
// of at most 100: as in Flipt, whatever is left over gets no variant.

import type { Variant } from '../../api/types.js';
import { evenSplit, formatPercent, parsePercent, totalHundredths } from '../../lib/distribution.js';

/** Percentage text per variant id, as typed. */
export type DistributionValues = Record<string, string>;

export interface DistributionStatus {
  /** Sum of the valid entries, in percent. */
  total: number;
  valid: boolean;
  /** Why it cannot be saved, or undefined. */
  problem?: string;
  /** What happens to the share below 100 %, when the total is less. */
  note?: string;
  /** Variant ids whose entry is not a percentage. */
  invalid: string[];
}

export function distributionStatus(variants: Variant[], values: DistributionValues): DistributionStatus {
  const invalid: string[] = [];
  const numbers: number[] = [];
  for (const v of variants) {
    const text = values[v.id] ?? '';
    if (text.trim() === '') continue;
    const n = parsePercent(text);
    if (n === undefined) invalid.push(v.id);
    else numbers.push(n);
  }
  const hundredths = totalHundredths(numbers);
  const total = hundredths / 100;
  if (invalid.length)
    return {
      total,
      valid: false,
      invalid,
      problem: 'Each percentage must be a number from 0 to 100 with at most two decimals.',
    };
  if (hundredths > 10_000) {
    return {
      total,
      valid: false,
      invalid,
      problem: `The percentages must not add up to more than 100% (now ${formatPercent(total)}%).`,
    };
  }
  if (hundredths < 10_000) {
    const rest = formatPercent((10_000 - hundredths) / 100);
    return { total, valid: true, invalid, note: `The remaining ${rest}% of matching entities get no variant.` };
  }
  return { total, valid: true, invalid };
}

export function evenValues(variants: Variant[]): DistributionValues {
  const split = evenSplit(variants.length);
  return Object.fromEntries(variants.map((v, i) => [v.id, formatPercent(split[i] ?? 0)]));
}

interface DistributionEditorProps {
  variants: Variant[];
  values: DistributionValues;
  onChange: (values: DistributionValues) => void;
}

export function DistributionEditor({ variants, values, onChange }: DistributionEditorProps) {
  const status = distributionStatus(variants, values);
  return (
    <fieldset className="distribution" data-invalid={status.valid ? undefined : true}>
      <legend>Distribution</legend>
      <p className="hint">
        Entities matching this rule are split between the variants in these proportions (stable per entity id).
      </p>
      <div className="dist-bar" aria-hidden="true">
        {variants.map((v, i) => {
          const n = parsePercent(values[v.id] ?? '') ?? 0;
          return n > 0 ? (
            <span
              key={v.id}
              className={`dist-seg dist-c${i % 6}`}
              style={{ width: `${Math.min(n, 100)}%` }}
              title={`${v.key} ${n}%`}
            />
          ) : null;
        })}
      </div>
      <div className="dist-rows">
        {variants.map((v, i) => {
          const id = `dist-${v.id}`;
          const bad = status.invalid.includes(v.id);
          return (
            <div className="dist-row" key={v.id}>
              <span className={`dist-swatch dist-c${i % 6}`} aria-hidden="true" />
              <label htmlFor={id} className="dist-label">
                {v.key}
                {v.name && v.name !== v.key ? <span className="muted"> {v.name}</span> : null}
              </label>
              <span className="percent-input">
                <input
                  id={id}
                  inputMode="decimal"
                  value={values[v.id] ?? ''}
                  placeholder="0"
                  onChange={(e) => onChange({ ...values, [v.id]: e.target.value })}
                  aria-invalid={bad || undefined}
                  aria-label={`Percentage for ${v.key}`}
                  aria-describedby={status.problem || status.note ? 'dist-problem' : undefined}
                />
                <span aria-hidden="true">%</span>
              </span>
            </div>
          );
        })}
      </div>
      <div className="dist-footer">
        <output className={`dist-total ${status.valid ? 'ok' : 'bad'}`} aria-live="polite">
          Total: {formatPercent(status.total)}%
        </output>
        <button type="button" className="btn btn-small" onClick={() => onChange(evenValues(variants))}>
          Split evenly
        </button>
      </div>
      {status.problem ? (
        <p className="field-error" id="dist-problem">
          {status.problem}
        </p>
      ) : status.note ? (
        <p className="hint" id="dist-problem">
          {status.note}
        </p>
      ) : null}
    </fieldset>
  );
}
