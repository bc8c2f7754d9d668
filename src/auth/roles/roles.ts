// Roles per namespace (issue 41): four roles, each including the one before, bound to one namespace
// key or to all (`*`). What an entry point needs follows from its access declaration (auth/access.ts)
// alone, so the same table decides for HTTP and gRPC, and a test can generate its matrix from it.

import { ALL_NAMESPACES, ROLES, type Role, type RoleBinding } from '../../domain/roles.js';
import type { Access } from '../access.js';

export { ALL_NAMESPACES, isRole, ROLES, type Role, type RoleBinding } from '../../domain/roles.js';

/** Whether `held` includes `needed`. */
export function includesRole(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/**
 * What an entry point needs: a role, on the namespaces it addresses or on `*` (`everywhere`: creating
 * and deleting namespaces, importing with `drop`). Undefined: nothing beyond being authenticated
 * (sign-in, probes, meta, reading one's own authentication).
 */
export interface RoleNeed {
  role: Role;
  everywhere: boolean;
}

const need = (role: Role, everywhere = false): RoleNeed => ({ role, everywhere });

/** The role an entry point needs, from its declaration alone. */
export function neededRole(access: Access): RoleNeed | undefined {
  const { resource, action } = access;
  switch (resource) {
    case 'sign-in':
    case 'service':
    case 'meta':
      return undefined;
    case 'evaluation':
    case 'snapshot':
    case 'stream':
      return need('client');
    case 'token':
      // Reading one's own authentication addresses no namespace; every other token call administers.
      return action === 'read' && access.namespace === 'none' ? undefined : need('admin');
    case 'role-binding':
      return need('admin');
    case 'namespace':
      if (action === 'create' || action === 'delete') return need('admin', true);
      return action === 'read' ? need('viewer') : need('admin');
    case 'document':
      if (access.namespace === 'all') return need('admin', true);
      return action === 'export' ? need('viewer') : need('editor');
    case 'change':
      return action === 'revert' ? need('editor') : need('viewer');
    default:
      // flags, variants, segments, constraints, rules, distributions, rollouts
      return action === 'read' ? need('viewer') : need('editor');
  }
}

/** Whether `bindings` give `role` on `namespace` (a binding on `*` covers every namespace). */
export function holdsRole(bindings: readonly RoleBinding[], role: Role, namespace: string): boolean {
  return bindings.some(
    (binding) =>
      (binding.namespace === ALL_NAMESPACES || binding.namespace === namespace) && includesRole(binding.role, role),
  );
}

/** Whether `bindings` give `role` on every namespace (a binding on `*`). */
export function holdsRoleEverywhere(bindings: readonly RoleBinding[], role: Role): boolean {
  return bindings.some((binding) => binding.namespace === ALL_NAMESPACES && includesRole(binding.role, role));
}

/** Whether `bindings` meet `needed` for a call addressing `namespaces`. */
export function permits(bindings: readonly RoleBinding[], needed: RoleNeed, namespaces: readonly string[]): boolean {
  if (needed.everywhere) return holdsRoleEverywhere(bindings, needed.role);
  return namespaces.every((namespace) => holdsRole(bindings, needed.role, namespace));
}

/**
 * The namespaces in which `bindings` give at least `role`: every one (`all`), or the listed keys. Lists
 * across namespaces are filtered by this, never refused.
 */
export function namespacesWith(
  bindings: readonly RoleBinding[],
  role: Role,
): { all: true } | { all: false; keys: ReadonlySet<string> } {
  if (holdsRoleEverywhere(bindings, role)) return { all: true };
  const keys = new Set<string>();
  for (const binding of bindings) if (includesRole(binding.role, role)) keys.add(binding.namespace);
  return { all: false, keys };
}

/**
 * Whether roles `asked` for stay within what `held` gives (no escalation): each asked role on a
 * namespace must be held there, and a role on `*` must be held on `*`.
 */
export function withinRoles(asked: readonly RoleBinding[], held: readonly RoleBinding[]): boolean {
  return asked.every((binding) =>
    binding.namespace === ALL_NAMESPACES
      ? holdsRoleEverywhere(held, binding.role)
      : holdsRole(held, binding.role, binding.namespace),
  );
}
