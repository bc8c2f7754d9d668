// A flag's name, description and metadata (a JSON object), saved together.

import { type FormEvent, useState } from 'react';
import type { Flag } from '../../api/types.js';
import { ErrorNote, fieldError, formError } from '../../components/error-note.js';
import { TextAreaField, TextField } from '../../components/field.js';
import { JsonEditor, jsonProblem } from '../../components/json-editor.js';
import { useNotify } from '../../components/notices.js';
import { useUnsavedChanges } from '../../lib/router.js';
import { useEditConflict } from '../history/edit-conflict.js';
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
  // Someone else's change: an untouched form takes it in; edits are kept, with a notice, and saved
  // only with the revision they started from (the server refuses to overwrite the newer change).
  const reload = (f: Flag) => {
    setName(f.name);
    setDescription(f.description);
    setMetadata(metadataText(f));
  };
  const conflict = useEditConflict({
    current: flag,
    rows: (f) => [
      ['Name', f.name],
      ['Description', f.description],
      ['Metadata', metadataText(f)],
    ],
    mine: [
      ['Name', name],
      ['Description', description],
      ['Metadata', metadata],
    ],
    onReload: reload,
    scope: { kind: 'flag', ns: flag.namespaceKey || 'default', key: flag.key },
  });

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
      const saved = await update({ name: name.trim(), description, metadata: meta }, { ifMatch: conflict.ifMatch });
      setMetadata(metadataText(saved));
      notify(`Flag "${flag.key}" saved`);
    } catch (err) {
      if (!conflict.refused(err)) setError(err);
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
      {conflict.notice}
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
