// Who may make, see and remove which bindings (issue 41): no escalation. Binding a role on a namespace
// needs that role there (withinRoles) and admin there, since managing bindings is administering; on `*`
// both are needed on `*` itself, never assembled from namespaces one by one. A binding is seen and
// removed by an admin of its namespace (of `*` for one on `*`). Callers without roles keep their legacy
// meaning (effectiveRoles: an unscoped token administers everything).

import { effectiveRoles, roleRefusal } from '../../auth/authorize.js';
import type { RoleRule } from '../../auth/roles/identity-rules.js';
import { holdsRole, withinRoles } from '../../auth/roles/roles.js';
import type { Authentication } from '../../domain/authentication.js';

/** Whether `caller` administers bindings on `namespace` (a key or `*`). No caller: authentication is off. */
export function administersBindings(caller: Authentication | null, namespace: string): boolean {
  return caller === null || holdsRole(effectiveRoles(caller), 'admin', namespace);
}

/** Throws 403 unless `caller` administers bindings on `namespace`. */
export function checkAdministersBindings(caller: Authentication | null, namespace: string): void {
  if (!administersBindings(caller, namespace)) throw roleRefusal('admin', namespace);
}

/** Throws 403 naming what is missing unless `caller` may store `rule`. */
export function checkBindingGrant(caller: Authentication | null, rule: RoleRule): void {
  if (caller === null) return;
  const held = effectiveRoles(caller);
  if (!withinRoles([{ role: rule.role, namespace: rule.namespace }], held)) {
    throw roleRefusal(rule.role, rule.namespace);
  }
  checkAdministersBindings(caller, rule.namespace);
}
