// The namespaces the caller may hand roles on (bindings, tokens): `*` and every listed namespace for an
// admin on every namespace, else the namespaces it administers. No escalation: the server refuses the
// rest all the same (issue 41); this only keeps the choice to what it would accept.

import { useNamespaces } from '../../api/queries.js';
import { ALL_NAMESPACES, can, ROLES, type Role, roleOn } from '../../lib/permissions.js';
import { usePermissions } from '../auth/use-permissions.js';

export interface NamespaceChoice {
  value: string;
  label: string;
}

export function useAdministeredNamespaces(): NamespaceChoice[] {
  const { access } = usePermissions();
  const namespaces = useNamespaces();
  const keys = new Set<string>();
  if (roleOn(access, ALL_NAMESPACES) === 'admin') keys.add(ALL_NAMESPACES);
  for (const n of namespaces.data ?? []) if (can(access, 'settings', n.key)) keys.add(n.key);
  for (const b of access.roles) if (b.role === 'admin' && b.namespace !== ALL_NAMESPACES) keys.add(b.namespace);
  return [...keys].map((key) => ({ value: key, label: key === ALL_NAMESPACES ? 'every namespace (*)' : key }));
}

/** The roles the caller may give on `namespace`: up to its own role there. */
export function grantableRoles(held: Role | undefined): Role[] {
  return held ? ROLES.slice(0, ROLES.indexOf(held) + 1) : [];
}
