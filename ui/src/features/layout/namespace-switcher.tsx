// The namespace picker in the sidebar: switching keeps you in the same section of the new namespace.

import { useId } from 'react';
import { useNamespaces } from '../../api/queries.js';
import { ErrorNote } from '../../components/error-note.js';
import { namedNamespaces } from '../../lib/permissions.js';
import { Link, navigate, paths, useLocation } from '../../lib/router.js';
import { usePermissions } from '../auth/use-permissions.js';
import { switchNamespacePath } from './current-namespace.js';

export function NamespaceSwitcher({ current }: { current: string }) {
  const id = useId();
  const { pathname } = useLocation();
  const permissions = usePermissions();
  // Who may read no namespace is refused the list: its roles name the namespaces it may use.
  const namespaces = useNamespaces(permissions.canSomewhere('read'));
  const { access } = permissions;
  const listed = namespaces.data ?? [];
  // The list holds the readable namespaces; one the caller may only evaluate in is named by its role.
  const evaluateOnly = namedNamespaces(access)
    .filter((key) => !listed.some((n) => n.key === key))
    .map((key) => ({ key, name: key }));
  const list = [...listed, ...evaluateOnly];
  const known = list.some((n) => n.key === current);
  // Where the caller cannot read, the namespace's start page picks what it may open (the console).
  const targetOf = (key: string) =>
    permissions.can('read', key) ? switchNamespacePath(pathname, key) : `/namespaces/${encodeURIComponent(key)}`;
  return (
    <div className="ns-switcher">
      <label htmlFor={id}>Namespace</label>
      <select id={id} value={current} onChange={(e) => navigate(targetOf(e.target.value))}>
        {!known ? <option value={current}>{current}</option> : null}
        {list.map((n) => (
          <option key={n.key} value={n.key}>
            {n.name === n.key ? n.key : `${n.name} (${n.key})`}
          </option>
        ))}
      </select>
      {namespaces.error ? <ErrorNote error={namespaces.error} /> : null}
      {permissions.canSomewhere('read') ? (
        <Link to={paths.namespaces()} className="ns-manage">
          Manage namespaces
        </Link>
      ) : null}
    </div>
  );
}
