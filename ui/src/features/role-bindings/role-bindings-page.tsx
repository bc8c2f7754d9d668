// Settings → Role bindings (issue 41, admins only): which signed-in people get which role on which
// namespace, besides the rules in the server's configuration. List, create, delete.

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { keys } from '../../api/queries.js';
import type { RoleBindingRecord } from '../../api/role-bindings.js';
import * as bindingsApi from '../../api/role-bindings.js';
import { DeleteButton } from '../../components/confirm-dialog.js';
import { EmptyState } from '../../components/empty-state.js';
import { ErrorNote } from '../../components/error-note.js';
import { Loading } from '../../components/loading.js';
import { useNotify } from '../../components/notices.js';
import { PageHeader } from '../../components/page-header.js';
import { formatDate } from '../../lib/format.js';
import { ALL_NAMESPACES } from '../../lib/permissions.js';
import { usePermissions } from '../auth/use-permissions.js';
import { RoleBindingForm } from './role-binding-form.js';

/** Who a binding is for, in words: `claim groups = release-*`. */
export function describeMatch(binding: Pick<RoleBindingRecord, 'match'>): string {
  const { match } = binding;
  const what = match.claim !== undefined ? `claim ${match.claim}` : `metadata ${match.metadata ?? '?'}`;
  const method = match.method ? ` (${match.method.replace(/^METHOD_/, '').toLowerCase()})` : '';
  return `${what} = ${match.pattern}${method}`;
}

function BindingRow({ binding, onDeleted }: { binding: RoleBindingRecord; onDeleted: () => Promise<unknown> }) {
  const permissions = usePermissions();
  const notify = useNotify();
  const who = describeMatch(binding);
  // Only an admin of the binding's namespace may remove it (on `*`: an admin of every namespace).
  const why = permissions.reason('settings', binding.namespace);
  return (
    <tr>
      <td data-label="Who">
        <code>{who}</code>
      </td>
      <td data-label="Role">
        <span className="role-badge">{binding.role}</span>
      </td>
      <td data-label="Namespace">
        {binding.namespace === ALL_NAMESPACES ? <em>every namespace</em> : <code>{binding.namespace}</code>}
      </td>
      <td data-label="Created">{formatDate(binding.createdAt)}</td>
      <td>
        {why ? (
          <span className="muted" title={why}>
            not yours to remove
          </span>
        ) : (
          <DeleteButton
            small
            label="Delete"
            accessibleLabel={`Delete role binding ${who}`}
            title="Delete this role binding?"
            onConfirm={async () => {
              await bindingsApi.deleteRoleBinding(binding.id);
              await onDeleted();
              notify('Role binding deleted');
            }}
          >
            <p>
              Whoever it matched loses the {binding.role} role it gave, the next time they are checked (their other
              roles stay).
            </p>
          </DeleteButton>
        )}
      </td>
    </tr>
  );
}

export function RoleBindingsPage() {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const [creating, setCreating] = useState(false);
  const bindings = useQuery({ queryKey: keys.roleBindings, queryFn: bindingsApi.listRoleBindings });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.roleBindings });
  const list = bindings.data ?? [];

  return (
    <>
      <PageHeader
        title="Role bindings"
        actions={
          creating ? null : (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              New binding
            </button>
          )
        }
      />
      <p className="lead">
        People who sign in get roles from the rules in the server's configuration and from these bindings: a binding
        gives one role on one namespace (or every one) to whoever matches it.
      </p>
      {creating ? (
        <RoleBindingForm
          onCancel={() => setCreating(false)}
          onSave={async (input) => {
            await bindingsApi.createRoleBinding(input);
            setCreating(false);
            await refresh();
            notify(`Role binding created: ${input.role} on ${input.namespace}`);
          }}
        />
      ) : null}
      {bindings.isPending ? <Loading label="Loading role bindings…" /> : null}
      <ErrorNote error={bindings.error} />
      {bindings.data && list.length === 0 ? (
        <EmptyState title="No role bindings">Roles come from the server's configuration only.</EmptyState>
      ) : null}
      {list.length ? (
        <table className="table table-cards">
          <caption className="sr-only">Role bindings</caption>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Role</th>
              <th scope="col">Namespace</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((binding) => (
              <BindingRow key={binding.id} binding={binding} onDeleted={refresh} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
