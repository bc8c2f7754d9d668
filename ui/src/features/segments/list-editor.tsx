// The value list of an `isoneof` / `isnotoneof` constraint: one entry per value, added with Enter or
// the Add button; pasting "a, b, c" adds three.

import { type KeyboardEvent, useId, useState } from 'react';

interface ListEditorProps {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  numeric?: boolean;
  max: number;
  error?: string;
}

export function isNumberText(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text.trim()));
}

export function ListEditor({ label, values, onChange, numeric, max, error }: ListEditorProps) {
  const id = useId();
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState<string | undefined>();

  const add = (text: string) => {
    const parts = text
      .split(/[,\n]/)
      .map((p) => p.trim())
      .filter(Boolean);
    if (!parts.length) return;
    const bad = numeric ? parts.find((p) => !isNumberText(p)) : undefined;
    if (bad !== undefined) {
      setDraftError(`"${bad}" is not a number.`);
      return;
    }
    const next = [...values];
    for (const p of parts) if (!next.includes(p)) next.push(p);
    if (next.length > max) {
      setDraftError(`At most ${max} values.`);
      return;
    }
    setDraftError(undefined);
    onChange(next);
    setDraft('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      add(draft);
    }
  };

  const shownError = draftError ?? error;
  return (
    <fieldset className="list-editor" aria-describedby={`${id}-hint${shownError ? ` ${id}-error` : ''}`}>
      <legend>{label}</legend>
      {values.length ? (
        <ul className="chips" aria-label={`${label}: ${values.length} entered`}>
          {values.map((v) => (
            <li key={v} className="chip">
              <span>{v}</span>
              <button
                type="button"
                className="chip-remove"
                onClick={() => onChange(values.filter((x) => x !== v))}
                aria-label={`Remove ${v}`}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="inline-add">
        <label htmlFor={`${id}-input`} className="sr-only">
          Add a value
        </label>
        <input
          id={`${id}-input`}
          value={draft}
          inputMode={numeric ? 'decimal' : undefined}
          placeholder={numeric ? 'e.g. 42' : 'e.g. gold'}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            const text = e.clipboardData.getData('text');
            if (/[,\n]/.test(text)) {
              e.preventDefault();
              add(text);
            }
          }}
          aria-invalid={draftError ? true : undefined}
        />
        <button type="button" className="btn btn-small" onClick={() => add(draft)}>
          Add value
        </button>
      </div>
      <p className="hint" id={`${id}-hint`}>
        Press Enter after each value, or paste a comma-separated list. {values.length}/{max}.
      </p>
      {shownError ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {shownError}
        </p>
      ) : null}
    </fieldset>
  );
}
