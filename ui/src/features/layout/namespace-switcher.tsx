// The namespace picker in the sidebar: switching keeps you in the same section of the new namespace.

import { useId } from 'react';
import { useNamespaces } from '../../api/queries.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link, navigate, paths, useLocation } from '../../lib/router.js';
import { switchNamespacePath } from './current-namespace.js';

export function NamespaceSwitcher({ current }: { current: string }) {
  const id = useId();
  const { pathname } = useLocation();
  const namespaces = useNamespaces();
  const list = namespaces.data ?? [];
  const known = list.some((n) => n.key === current);
  return (
    <div className="ns-switcher">
      <label htmlFor={id}>Namespace</label>
      <select id={id} value={current} onChange={(e) => navigate(switchNamespacePath(pathname, e.target.value))}>
        {!known ? <option value={current}>{current}</option> : null}
        {list.map((n) => (
          <option key={n.key} value={n.key}>
            {n.name === n.key ? n.key : `${n.name} (${n.key})`}
          </option>
        ))}
      </select>
      {namespaces.error ? <ErrorNote error={namespaces.error} /> : null}
      <Link to={paths.namespaces()} className="ns-manage">
        Manage namespaces
      </Link>
    </div>
  );
}
