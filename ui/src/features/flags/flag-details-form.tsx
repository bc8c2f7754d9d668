// A flag's name, description and metadata (a JSON object), saved together.

import { type FormEvent, useState } from 'react';
import type { Flag } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { JsonEditor, jsonProblem } from '../../components/json-editor.js';
import { useNotify } from '../../components/notices.js';
import { useUnsavedChanges } from '../../lib/router.js';
import { useFlagUpdate } from './use-flag-update.js';

function metadataText(flag: Flag): string {
  return flag.metadata && Object.keys(flag.metadata).length ? JSON.stringify(flag.metadata, null, 2) : '';
}

export function FlagDetailsForm({ flag }: { flag: Flag }) {
  const update = useFlagUpdate(flag.namespaceKey || 'default', flag.key);
  const notify = useNotify();
  const [name, setName] = useState(flag.name);
  const [description, setDescription] = useState(flag.description);
  const [metadata, setMetadata] = useState(metadataText(flag));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The flag as the form last took it in. When it is refetched changed (someone else saved it), an
  // untouched form shows the new values: left as they were, they would count as unsaved edits and a
  // save would quietly put the old text back.
  const [shown, setShown] = useState(flag);
  if (flag !== shown) {
    if (name === shown.name && description === shown.description && metadata === metadataText(shown)) {
      setName(flag.name);
      setDescription(flag.description);
      setMetadata(metadataText(flag));
    }
    setShown(flag);
  }

  const dirty = name !== flag.name || description !== flag.description || metadata !== metadataText(flag);
  useUnsavedChanges(dirty);
  const metadataIssue = jsonProblem(metadata, { objectOnly: true });
  const nameIssue = name.trim() ? undefined : 'Required.';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (metadataIssue || nameIssue) return;
    setBusy(true);
    setError(null);
    try {
      // `{}` clears stored metadata; an absent field would keep it (behavior.md §3.4).
      const meta = metadata.trim() ? (JSON.parse(metadata) as Record<string, never>) : {};
      const saved = await update({ name: name.trim(), description, metadata: meta });
      setMetadata(metadataText(saved));
      notify(`Flag "${flag.key}" saved`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="flag-details-title" noValidate>
      <h2 id="flag-details-title">Details</h2>
      <TextField label="Name" value={name} onChange={setName} required error={nameIssue ?? fieldError(error, 'name')} />
      <TextAreaField
        label="Description"
        value={description}
        onChange={setDescription}
        error={fieldError(error, 'description')}
      />
      <JsonEditor
        label="Metadata"
        value={metadata}
        onChange={setMetadata}
        objectOnly
        rows={4}
        hint='Optional JSON object for your own bookkeeping, e.g. {"owner": "growth"}.'
        serverError={fieldError(error, 'metadata')}
      />
      <ErrorNote error={formError(error, 'name', 'description', 'metadata')} />
      <div className="actions">
        <button
          type="button"
          className="btn"
          disabled={!dirty || busy}
          onClick={() => {
            setName(flag.name);
            setDescription(flag.description);
            setMetadata(metadataText(flag));
            setError(null);
          }}
        >
          Reset
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!dirty || busy || Boolean(metadataIssue || nameIssue)}
        >
          {busy ? 'Saving…' : 'Save details'}
        </button>
      </div>
    </form>
  );
}
