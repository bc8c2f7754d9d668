// A JSON text area that validates as the user types and says where the first mistake is.

import { useId } from 'react';
import { checkJson } from '../lib/json.js';
import { describedBy, FieldShell } from './field.js';

interface JsonEditorProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Empty text is allowed (means "none"). */
  allowEmpty?: boolean;
  /** Only a JSON object is accepted (metadata). */
  objectOnly?: boolean;
  hint?: string;
  serverError?: string;
  rows?: number;
}

/** Whether the text is acceptable for the editor's rules; forms use it to block saving. */
export function jsonProblem(text: string, { allowEmpty = true, objectOnly = false } = {}): string | undefined {
  if (text.trim() === '') return allowEmpty ? undefined : 'Required.';
  const check = checkJson(text);
  if (!check.ok) return check.error;
  if (objectOnly && (typeof check.value !== 'object' || check.value === null || Array.isArray(check.value))) {
    return 'Must be a JSON object, like {"team": "growth"}.';
  }
  return undefined;
}

export function JsonEditor({
  label,
  value,
  onChange,
  allowEmpty = true,
  objectOnly = false,
  hint,
  serverError,
  rows = 6,
}: JsonEditorProps) {
  const id = useId();
  const problem = jsonProblem(value, { allowEmpty, objectOnly });
  const error = problem ?? serverError;
  const status = value.trim() === '' ? undefined : problem ? undefined : 'Valid JSON';
  const fullHint = [hint, status].filter(Boolean).join(' · ') || undefined;
  return (
    <FieldShell id={id} label={label} hint={fullHint} error={error}>
      <textarea
        id={id}
        className="code"
        value={value}
        rows={rows}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, fullHint, error)}
      />
    </FieldShell>
  );
}
