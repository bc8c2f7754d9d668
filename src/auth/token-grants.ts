// Who may make, see and remove which tokens once tokens carry roles (issue 41, ADR 46). No escalation:
// a token's roles must be within its creator's own; a token without roles (today's meaning: everything
// within its namespace scope) may be made only by an admin of that namespace, an unscoped one only by
// an admin on `*`. A token is administered — listed, read, deleted — by an admin of every namespace it
// can reach. Token metadata grants nothing: whoever makes a token sets it.

import { type Authentication, tokenNamespace } from '../domain/authentication.js';
import { InvalidArgumentError } from '../domain/errors.js';
import { isBindableNamespace } from '../domain/role-rules.js';
import { ALL_NAMESPACES, isRole, ROLES, type RoleBinding } from '../domain/roles.js';
import { effectiveRoles, roleRefusal } from './authorize.js';
import { holdsRole, withinRoles } from './roles/roles.js';

/**
 * The `roles` asked for a new token, checked: undefined when none were asked (absent or an empty list:
 * proto3 cannot tell the two apart, so REST reads them alike). 400 for a role that is not one of the
 * four, a namespace that is neither a key nor `*`, or one outside the token's `namespaceKey`.
 */
export function askedRoles(raw: unknown, namespaceKey: string | undefined): RoleBinding[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw new InvalidArgumentError('roles must be a list of {role, namespace}');
  if (raw.length === 0) return undefined;
  const asked: RoleBinding[] = [];
  for (const item of raw) {
    const role = (item as { role?: unknown } | null)?.role;
    const namespace = (item as { namespace?: unknown } | null)?.namespace;
    if (!isRole(role)) {
      throw new InvalidArgumentError(`invalid role ${JSON.stringify(role ?? '')}: one of ${ROLES.join(', ')}`);
    }
    if (typeof namespace !== 'string' || !isBindableNamespace(namespace)) {
      throw new InvalidArgumentError(
        `invalid role namespace ${JSON.stringify(namespace ?? '')}: a namespace key or ${ALL_NAMESPACES}`,
      );
    }
    if (namespaceKey !== undefined && namespaceKey !== '' && namespace !== namespaceKey) {
      throw new InvalidArgumentError(
        `role namespace "${namespace}" is outside the token's namespace "${namespaceKey}"`,
      );
    }
    asked.push({ role, namespace });
  }
  return asked;
}

/** Every namespace a token can reach: its scope, else its roles' namespaces, else every one (`*`). */
export function namespacesOfToken(token: Authentication): string[] {
  const scope = tokenNamespace(token);
  if (scope !== undefined) return [scope];
  if (token.roles !== undefined) {
    const keys = new Set(token.roles.map((binding) => binding.namespace));
    return keys.has(ALL_NAMESPACES) ? [ALL_NAMESPACES] : [...keys];
  }
  return [ALL_NAMESPACES];
}

/** Throws 403 unless `caller` may make a token scoped to `namespaceKey` with the `asked` roles. */
export function checkTokenGrant(
  caller: Authentication | null,
  namespaceKey: string | undefined,
  asked: readonly RoleBinding[] | undefined,
): void {
  if (caller === null) return;
  const held = effectiveRoles(caller);
  if (asked === undefined) {
    const namespace = namespaceKey === undefined || namespaceKey === '' ? ALL_NAMESPACES : namespaceKey;
    if (!holdsRole(held, 'admin', namespace)) throw roleRefusal('admin', namespace);
    return;
  }
  if (!withinRoles(asked, held)) {
    const missing = asked.find((binding) => !withinRoles([binding], held)) as RoleBinding;
    throw roleRefusal(missing.role, missing.namespace);
  }
  // Making tokens is administering: the creator must be an admin where the token reaches.
  for (const namespace of new Set(asked.map((binding) => binding.namespace))) {
    if (!holdsRole(held, 'admin', namespace)) throw roleRefusal('admin', namespace);
  }
}

/** Whether `caller` administers `token` (may list, read and delete it): admin on every namespace it reaches. */
export function administersToken(caller: Authentication | null, token: Authentication): boolean {
  if (caller === null) return true;
  const held = effectiveRoles(caller);
  return namespacesOfToken(token).every((namespace) => holdsRole(held, 'admin', namespace));
}

/** Throws 403 unless `caller` administers `token`. */
export function checkAdministers(caller: Authentication | null, token: Authentication): void {
  if (administersToken(caller, token)) return;
  const held = effectiveRoles(caller as Authentication);
  const namespace = namespacesOfToken(token).find((key) => !holdsRole(held, 'admin', key)) ?? ALL_NAMESPACES;
  throw roleRefusal('admin', namespace);
}
