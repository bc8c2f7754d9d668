// The role an actor with roles acted in, for the record (history and audit events, ADR 48): every role
// includes the ones before it, so the highest one held where the change happened is the one that
// allowed it, whatever the call needed.

import { ALL_NAMESPACES, ROLES, type Role, type RoleBinding } from '../../domain/roles.js';

/**
 * The highest role `bindings` give on `namespace` (a binding on `*` counting everywhere), or for a
 * change outside any namespace (tokens: undefined) the highest held anywhere; undefined when none.
 */
export function highestRoleOn(bindings: readonly RoleBinding[], namespace: string | undefined): Role | undefined {
  let highest = -1;
  for (const binding of bindings) {
    if (namespace !== undefined && binding.namespace !== ALL_NAMESPACES && binding.namespace !== namespace) continue;
    highest = Math.max(highest, ROLES.indexOf(binding.role));
  }
  return highest < 0 ? undefined : ROLES[highest];
}
