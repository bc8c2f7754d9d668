// A new role binding: who (an OIDC claim or a metadata key of the sign-in, and a pattern), which role,
// on which namespace.

import { type FormEvent, useState } from 'react';
import type { RoleBindingInput, RoleName } from '../../api/role-bindings.js';
import { ErrorNote } from '../../components/error-note.js';
import { SelectField, TextField } from '../../components/field.js';
import { focusFirstInvalid, formOf } from '../../lib/focus.js';
import { ROLE_ABILITIES, ROLES, roleOn } from '../../lib/permissions.js';
import { usePermissions } from '../auth/use-permissions.js';
import { grantableRoles, useAdministeredNamespaces } from './administered-namespaces.js';

type MatchBy = 'claim' | 'metadata';

const METHODS = [
  { value: '', label: 'Any sign-in method' },
  { value: 'METHOD_OIDC', label: 'OpenID Connect' },
  { value: 'METHOD_GITHUB', label: 'GitHub' },
  { value: 'METHOD_JWT', label: 'JSON Web Token' },
  { value: 'METHOD_KUBERNETES', label: 'Kubernetes' },
];

export function RoleBindingForm({
  onSave,
  onCancel,
}: {
  onSave: (input: RoleBindingInput) => Promise<unknown>;
  onCancel: () => void;
}) {
  const { access } = usePermissions();
  const namespaces = useAdministeredNamespaces();
  const [matchBy, setMatchBy] = useState<MatchBy>('claim');
  const [attribute, setAttribute] = useState('groups');
  const [pattern, setPattern] = useState('');
  const [method, setMethod] = useState('');
  const [namespace, setNamespace] = useState(namespaces[0]?.value ?? '');
  const [role, setRole] = useState<RoleName>('viewer');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const chosen = namespace || namespaces[0]?.value || '';
  const roles = grantableRoles(roleOn(access, chosen));
  const attributeIssue = attribute.trim() ? undefined : `Name the ${matchBy === 'claim' ? 'claim' : 'metadata key'}.`;
  const patternIssue = pattern.trim() ? undefined : 'Give the value to match; * stands for any run of characters.';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (attributeIssue || patternIssue) return focusFirstInvalid(formOf(e));
    setBusy(true);
    setError(null);
    try {
      await onSave({
        match: { [matchBy]: attribute.trim(), pattern: pattern.trim(), ...(method ? { method } : {}) },
        role,
        namespace: chosen,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={submit} aria-label="New role binding" noValidate>
      <SelectField
        label="Match by"
        value={matchBy}
        onChange={(v) => {
          setMatchBy(v);
          setAttribute(v === 'claim' ? 'groups' : 'io.flipt.auth.email');
        }}
        options={[
          { value: 'claim', label: 'OpenID Connect claim' },
          { value: 'metadata', label: 'Metadata key of the sign-in' },
        ]}
      />
      <TextField
        label={matchBy === 'claim' ? 'Claim' : 'Metadata key'}
        value={attribute}
        onChange={setAttribute}
        required
        error={submitted ? attributeIssue : undefined}
        hint={matchBy === 'claim' ? 'e.g. groups' : 'e.g. io.flipt.auth.email or io.flipt.auth.github.organization'}
      />
      <TextField
        label="Pattern"
        value={pattern}
        onChange={setPattern}
        required
        error={submitted ? patternIssue : undefined}
        hint="The value to match; * stands for any run of characters (e.g. release-* or *@example.com)."
      />
      <SelectField label="Sign-in method" value={method} onChange={setMethod} options={METHODS} />
      <SelectField label="Namespace" value={chosen} onChange={setNamespace} options={namespaces} />
      <SelectField
        label="Role"
        value={role}
        onChange={(v) => setRole(v)}
        options={ROLES.map((r) => ({
          value: r,
          label: r,
          disabled: !roles.includes(r),
        }))}
        hint={`A ${role} may ${ROLE_ABILITIES[role]}${role === 'client' ? '' : ', and everything the roles before it may'}.`}
      />
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !chosen}>
          {busy ? 'Creating…' : 'Create binding'}
        </button>
      </div>
    </form>
  );
}
