// Create an API token: name, description, optional expiry and optional namespace restriction.

import { type FormEvent, useState } from 'react';
import type { TokenInput } from '../../api/api.js';
import { useNamespaces } from '../../api/queries.js';
import { ErrorNote } from '../../components/error-note.js';
import { SelectField, TextField } from '../../components/field.js';
import { fromLocalInput, localZoneLabel } from '../../lib/datetime.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';

export function TokenForm({
  onSave,
  onCancel,
}: {
  onSave: (input: TokenInput) => Promise<unknown>;
  onCancel: () => void;
}) {
  const namespaces = useNamespaces();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  const [namespaceKey, setNamespaceKey] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const nameIssue = name.trim() ? undefined : 'Give the token a name, so you can tell tokens apart later.';
  const expiresAt = expires ? fromLocalInput(expires) : undefined;
  const expiryIssue =
    expiresAt && new Date(expiresAt).getTime() <= Date.now() ? 'Pick a time in the future.' : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (nameIssue || expiryIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({
        name: name.trim(),
        ...(description ? { description } : {}),
        ...(expiresAt ? { expiresAt } : {}),
        ...(namespaceKey ? { namespaceKey } : {}),
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={submit} aria-label="New token" noValidate>
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        autoFocus
        error={submitted ? nameIssue : undefined}
      />
      <TextField label="Description" value={description} onChange={setDescription} />
      <TextField
        label={`Expires (optional, your time ${localZoneLabel()})`}
        type="datetime-local"
        value={expires}
        onChange={setExpires}
        hint="Leave empty for a token that does not expire."
        error={expiryIssue}
      />
      <SelectField
        label="Namespace"
        value={namespaceKey}
        onChange={setNamespaceKey}
        options={[
          { value: '', label: 'All namespaces' },
          ...(namespaces.data ?? []).map((n) => ({ value: n.key, label: n.key })),
        ]}
        hint="A token limited to one namespace can only read and change that namespace; signed in with it, this dashboard shows that namespace only."
      />
      {/* Until roles exist, a token may do everything within its reach: say so before it is made. */}
      <p className="token-access" aria-live="polite">
        This token may: <strong>full access to {namespaceKey ? `namespace ${namespaceKey}` : 'every namespace'}</strong>{' '}
        (read and change its flags, segments and settings{namespaceKey ? '' : ', and manage tokens'}).
      </p>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}
