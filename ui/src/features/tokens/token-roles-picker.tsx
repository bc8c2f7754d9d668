// The roles a new token carries (issue 41): a role per namespace, each no higher than the creator's own
// there (the server refuses escalation all the same). No rows: a token without roles, as before roles.

import { SelectField } from '../../components/field.js';
import { ROLES, type Role, type RoleBinding, roleOn } from '../../lib/permissions.js';
import { usePermissions } from '../auth/use-permissions.js';
import { grantableRoles, type NamespaceChoice } from '../role-bindings/administered-namespaces.js';

export function TokenRolesPicker({
  value,
  onChange,
  namespaces,
}: {
  value: RoleBinding[];
  onChange: (roles: RoleBinding[]) => void;
  /** The namespaces a role may be given on (the token's own when it is limited to one). */
  namespaces: NamespaceChoice[];
}) {
  const { access } = usePermissions();
  const set = (index: number, binding: RoleBinding) => onChange(value.map((b, i) => (i === index ? binding : b)));
  const first = namespaces[0]?.value;
  return (
    <fieldset className="token-roles">
      <legend>Roles</legend>
      <p className="hint">
        A token with roles may do only what they allow. Without roles it may do everything within its namespace.
      </p>
      {value.map((binding, index) => {
        const grantable = grantableRoles(roleOn(access, binding.namespace));
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <div className="role-picker" key={index}>
            <SelectField
              label={`Role ${index + 1}`}
              value={binding.role}
              onChange={(role: Role) => set(index, { ...binding, role })}
              options={ROLES.map((r) => ({ value: r, label: r, disabled: !grantable.includes(r) }))}
            />
            <SelectField
              label={`Namespace of role ${index + 1}`}
              value={binding.namespace}
              onChange={(namespace) => set(index, { ...binding, namespace })}
              options={namespaces}
            />
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Remove role ${index + 1}`}
              onClick={() => onChange(value.filter((_, i) => i !== index))}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button
        type="button"
        className="btn btn-small"
        disabled={!first}
        onClick={() => first && onChange([...value, { role: 'viewer', namespace: first }])}
      >
        Add role
      </button>
    </fieldset>
  );
}
