// The caller's permissions as pages use them: `can(action, namespace)` and the reason when not, from the
// authentication the server reported (auth-context.tsx, lib/permissions.ts).

import { useMemo } from 'react';
import {
  type Access,
  type Action,
  can,
  canSomewhere,
  FULL_ACCESS,
  reason,
  reasonEverywhere,
} from '../../lib/permissions.js';
import { useAuth } from './auth-context.js';

export interface Permissions {
  access: Access;
  can(action: Action, namespace: string): boolean;
  /** Why not, in a sentence; undefined when allowed. */
  reason(action: Action, namespace: string): string | undefined;
  /** For pages across namespaces (tokens, role bindings). */
  canSomewhere(action: Action): boolean;
  reasonEverywhere(action: Action): string | undefined;
}

export function permissionsOf(access: Access): Permissions {
  return {
    access,
    can: (action, namespace) => can(access, action, namespace),
    reason: (action, namespace) => reason(access, action, namespace),
    canSomewhere: (action) => canSomewhere(access, action),
    reasonEverywhere: (action) => reasonEverywhere(access, action),
  };
}

export function usePermissions(): Permissions {
  // Until the server has said who the caller is, the app shows its loading state (app.tsx); a page that
  // renders before then offers what it always did, and the server still decides.
  const access = useAuth().access ?? FULL_ACCESS;
  return useMemo(() => permissionsOf(access), [access]);
}
