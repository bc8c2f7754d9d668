// Create or edit a namespace: key (create only, derived from the name until typed), name, description.

import { type FormEvent, useState } from 'react';
import type { NamespaceInput } from '../../api/api.js';
import type { Namespace } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { keyFromName, keyProblem } from '../../lib/format.js';

interface NamespaceFormProps {
  initial?: Namespace;
  onSave: (input: NamespaceInput) => Promise<unknown>;
  onCancel: () => void;
}

export function NamespaceForm({ initial, onSave, onCancel }: NamespaceFormProps) {
  const [name, setName] = useState(initial?.name ?? '');
  const [key, setKey] = useState(initial?.key ?? '');
  const [keyTouched, setKeyTouched] = useState(Boolean(initial));
  const [description, setDescription] = useState(initial?.description ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  const effectiveKey = keyTouched ? key : keyFromName(name);
  const keyIssue = initial ? undefined : keyProblem(effectiveKey);
  const nameIssue = name.trim() ? undefined : 'Required.';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (keyIssue || nameIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({ key: effectiveKey, name: name.trim(), description });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card form"
      onSubmit={submit}
      aria-label={initial ? `Edit namespace ${initial.key}` : 'New namespace'}
      noValidate
    >
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        autoFocus
        error={(submitted ? nameIssue : undefined) ?? fieldError(error, 'name')}
      />
      {initial ? (
        <TextField
          label="Key"
          value={initial.key}
          onChange={() => {}}
          readOnly
          hint="A namespace's key cannot change."
        />
      ) : (
        <TextField
          label="Key"
          value={effectiveKey}
          onChange={(v) => {
            setKeyTouched(true);
            setKey(v);
          }}
          required
          hint="Used by applications and in URLs. Letters, digits and the characters - _ , (comma)."
          error={(submitted || keyTouched ? keyIssue : undefined) ?? fieldError(error, 'key')}
        />
      )}
      <TextAreaField label="Description" value={description} onChange={setDescription} />
      <ErrorNote error={formError(error, 'name', 'key')} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save namespace' : 'Create namespace'}
        </button>
      </div>
    </form>
  );
}
