// Create an API token: name, description, optional expiry, optional namespace restriction and roles.

import { type FormEvent, useState } from 'react';
import type { TokenInput } from '../../api/api.js';
import { ErrorNote } from '../../components/error-note.js';
import { SelectField, TextField } from '../../components/field.js';
import { fromLocalInput, localZoneLabel } from '../../lib/datetime.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { ALL_NAMESPACES, type RoleBinding } from '../../lib/permissions.js';
import { useAdministeredNamespaces } from '../role-bindings/administered-namespaces.js';
import { TokenRolesPicker } from './token-roles-picker.js';

export function TokenForm({
  onSave,
  onCancel,
}: {
  onSave: (input: TokenInput) => Promise<unknown>;
  onCancel: () => void;
}) {
  // Making a token is administering where it reaches (issue 41): only those namespaces are offered.
  const administered = useAdministeredNamespaces();
  const everywhere = administered.some((n) => n.value === ALL_NAMESPACES);
  const keys = administered.filter((n) => n.value !== ALL_NAMESPACES);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  // Not chosen yet: every namespace for an admin of all, else the first administered (the list may
  // still be loading on the first render).
  const [chosenKey, setNamespaceKey] = useState<string | undefined>(undefined);
  const namespaceKey = chosenKey ?? (everywhere ? '' : (keys[0]?.value ?? ''));
  const [roles, setRoles] = useState<RoleBinding[]>([]);
  // A token limited to a namespace carries roles on that namespace only.
  const roleNamespaces = namespaceKey ? administered.filter((n) => n.value === namespaceKey) : administered;
  const rolesIssue =
    namespaceKey && roles.some((r) => r.namespace !== namespaceKey)
      ? `A token limited to namespace ${namespaceKey} carries roles on it only.`
      : !namespaceKey && !everywhere && roles.length === 0
        ? 'Without roles a token reaches every namespace, which only an admin of every namespace may give: add roles or limit it to a namespace.'
        : undefined;
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
    if (nameIssue || expiryIssue || rolesIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({
        name: name.trim(),
        ...(description ? { description } : {}),
        ...(expiresAt ? { expiresAt } : {}),
        ...(namespaceKey ? { namespaceKey } : {}),
        ...(roles.length > 0 ? { roles } : {}),
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
        onChange={(key) => {
          setNamespaceKey(key);
          if (key) setRoles(roles.map((r) => ({ ...r, namespace: key })));
        }}
        options={[{ value: '', label: everywhere ? 'All namespaces' : 'Not limited: its roles decide' }, ...keys]}
        hint="A token limited to one namespace can only read and change that namespace; signed in with it, this dashboard shows that namespace only."
      />
      <TokenRolesPicker value={roles} onChange={setRoles} namespaces={roleNamespaces} />
      {rolesIssue ? (
        <p className="field-error" role="alert">
          {rolesIssue}
        </p>
      ) : null}
      {/* What the token will be able to do, said before it is made. */}
      <p className="token-access" aria-live="polite">
        This token may:{' '}
        {roles.length > 0 ? (
          <strong>
            {roles
              .map((r) => `${r.role} on ${r.namespace === ALL_NAMESPACES ? 'every namespace' : r.namespace}`)
              .join(', ')}
          </strong>
        ) : (
          <>
            <strong>full access to {namespaceKey ? `namespace ${namespaceKey}` : 'every namespace'}</strong> (read and
            change its flags, segments and settings{namespaceKey ? '' : ', and manage tokens'}).
          </>
        )}
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
