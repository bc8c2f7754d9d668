// What the signed-in caller may do in the dashboard, worked out from GET /auth/v1/self alone, so every
// page can hide or disable what the server would refuse and say why. The server decides (issue 41);
// this mirrors its rules only to avoid offering what would end in a 403.
//
// Where the roles come from: an authentication with `roles` holds exactly those; one without keeps the
// meaning from before roles — a token scoped to a namespace administers that namespace but may not manage
// tokens, anyone else may do everything. No authentication at all (the server does not require one):
// everything.

import type { Authentication } from '../api/types.js';

/** Lowest first: each role includes every role before it (the server's order). */
export const ROLES = ['client', 'viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The namespace key a binding names for every namespace. */
export const ALL_NAMESPACES = '*';

export interface RoleBinding {
  role: Role;
  namespace: string;
}

/** What the dashboard offers, each needing one role. */
export type Action =
  /** The console's evaluation. */
  | 'evaluate'
  /** Flags, segments, rules, rollouts, history, export. */
  | 'read'
  /** Create, change or delete flags, variants, segments, constraints, rules, distributions, rollouts. */
  | 'edit'
  | 'revert'
  /** Import a document into a namespace (without dropping anything). */
  | 'import'
  /** Change the namespace's own settings (name, description). */
  | 'settings'
  | 'tokens'
  | 'role-bindings'
  /** Needs the role on every namespace: create and delete namespaces, import with drop. */
  | 'create-namespace'
  | 'delete-namespace'
  | 'import-drop';

interface Need {
  role: Role;
  /** The role must be held on `*`. */
  everywhere: boolean;
  /** How the action reads in a sentence: "<doing> needs …". */
  doing: string;
}

export const NEEDS: Readonly<Record<Action, Need>> = {
  evaluate: { role: 'client', everywhere: false, doing: 'Evaluating flags' },
  read: { role: 'viewer', everywhere: false, doing: 'Reading flags and segments' },
  edit: { role: 'editor', everywhere: false, doing: 'Changing flags and segments' },
  revert: { role: 'editor', everywhere: false, doing: 'Reverting changes' },
  import: { role: 'editor', everywhere: false, doing: 'Importing' },
  settings: { role: 'admin', everywhere: false, doing: "Changing the namespace's settings" },
  tokens: { role: 'admin', everywhere: false, doing: 'Managing tokens' },
  'role-bindings': { role: 'admin', everywhere: false, doing: 'Managing role bindings' },
  'create-namespace': { role: 'admin', everywhere: true, doing: 'Creating namespaces' },
  'delete-namespace': { role: 'admin', everywhere: true, doing: 'Deleting namespaces' },
  'import-drop': { role: 'admin', everywhere: true, doing: 'Importing with "replace everything"' },
};

/** What each role adds to the one before it, for the "My access" view. */
export const ROLE_ABILITIES: Readonly<Record<Role, string>> = {
  client: 'evaluate flags (console, SDKs, OFREP) and follow changes',
  viewer: 'read flags, segments, rules, rollouts, history and exports',
  editor: 'create, change and delete flags, variants, segments, constraints, rules and rollouts; revert; import',
  admin: "change the namespace's settings, manage its tokens and role bindings",
};

/** Everything a role allows: its own abilities and those of every role below it. */
export function abilitiesOf(role: Role): string[] {
  return ROLES.slice(0, ROLES.indexOf(role) + 1).map((r) => ROLE_ABILITIES[r]);
}

export interface Access {
  /** Where the roles come from, for saying so. */
  source: 'roles' | 'scoped-token' | 'unrestricted';
  roles: readonly RoleBinding[];
  /** A token made without roles and scoped to a namespace may not manage tokens, whatever it administers. */
  tokenCalls: boolean;
}

export const FULL_ACCESS: Access = {
  source: 'unrestricted',
  roles: [{ role: 'admin', namespace: ALL_NAMESPACES }],
  tokenCalls: true,
};

const SCOPE_METADATA = 'io.flipt.auth.token.namespace';

function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The caller's access from its authentication (null: none needed or none known: everything). */
export function accessOf(self: Authentication | null | undefined): Access {
  if (!self) return FULL_ACCESS;
  if (self.roles !== undefined) {
    // A role this dashboard does not know grants nothing here (the server may know it; it decides).
    const roles = self.roles.flatMap((b) => (isRole(b.role) ? [{ role: b.role, namespace: b.namespace }] : []));
    return { source: 'roles', roles, tokenCalls: true };
  }
  const scope = self.metadata?.[SCOPE_METADATA];
  if (scope) return { source: 'scoped-token', roles: [{ role: 'admin', namespace: scope }], tokenCalls: false };
  return FULL_ACCESS;
}

export function includesRole(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/** The highest role held on `namespace` (a binding on `*` counts everywhere), or undefined. */
export function roleOn(access: Access, namespace: string): Role | undefined {
  let best: Role | undefined;
  for (const b of access.roles) {
    if (b.namespace !== ALL_NAMESPACES && b.namespace !== namespace) continue;
    if (best === undefined || includesRole(b.role, best)) best = b.role;
  }
  return best;
}

function roleEverywhere(access: Access): Role | undefined {
  return roleOn({ ...access, roles: access.roles.filter((b) => b.namespace === ALL_NAMESPACES) }, ALL_NAMESPACES);
}

function allowedOn(access: Access, need: Need, namespace: string): boolean {
  const held = need.everywhere ? roleEverywhere(access) : roleOn(access, namespace);
  return held !== undefined && includesRole(held, need.role);
}

/** Whether `action` is allowed on `namespace` (ignored for the actions that need a role on `*`). */
export function can(access: Access, action: Action, namespace: string): boolean {
  if (action === 'tokens' && !access.tokenCalls) return false;
  return allowedOn(access, NEEDS[action], namespace);
}

/** Whether `action` is allowed on some namespace (pages that span namespaces: tokens, role bindings). */
export function canSomewhere(access: Access, action: Action): boolean {
  if (action === 'tokens' && !access.tokenCalls) return false;
  const need = NEEDS[action];
  return access.roles.some(
    (b) => includesRole(b.role, need.role) && (!need.everywhere || b.namespace === ALL_NAMESPACES),
  );
}

/** Why `action` is not allowed on `namespace`, in a sentence; undefined when it is allowed. */
export function reason(access: Access, action: Action, namespace: string): string | undefined {
  if (can(access, action, namespace)) return undefined;
  const need = NEEDS[action];
  if (action === 'tokens' && !access.tokenCalls) {
    return `${need.doing} is not possible with a token limited to one namespace.`;
  }
  const where = need.everywhere ? 'on every namespace (*)' : `on namespace "${namespace}"`;
  const held = need.everywhere ? roleEverywhere(access) : roleOn(access, namespace);
  const have = held ? `your role there is ${held}` : 'you have no role there';
  return `${need.doing} needs the ${need.role} role ${where}; ${have}.`;
}

/** Why `action` is allowed nowhere, in a sentence; undefined when it is allowed somewhere. */
export function reasonEverywhere(access: Access, action: Action): string | undefined {
  if (canSomewhere(access, action)) return undefined;
  const need = NEEDS[action];
  if (need.everywhere || (action === 'tokens' && !access.tokenCalls)) return reason(access, action, ALL_NAMESPACES);
  return `${need.doing} needs the ${need.role} role on at least one namespace; you have it on none.`;
}

/**
 * The namespaces the caller has any role on by name (its bindings' keys, `*` left out), in order: with
 * the readable namespaces the server lists, what the namespace switcher offers.
 */
export function namedNamespaces(access: Access): string[] {
  return [...new Set(access.roles.map((b) => b.namespace).filter((ns) => ns !== ALL_NAMESPACES))];
}

/** Whether the caller holds some role on every namespace (then any namespace may be worked in). */
export function reachesEveryNamespace(access: Access): boolean {
  return roleEverywhere(access) !== undefined;
}

/**
 * The namespace to start in: `preferred` when it is listed (readable) or named by a role, else the first
 * of those; with neither, `preferred` when every namespace is reachable (a client on `*` cannot list
 * namespaces), else undefined: there is nowhere to go.
 */
export function startNamespace(access: Access, listed: readonly string[], preferred: string): string | undefined {
  const available = [...new Set([...listed, ...namedNamespaces(access)])];
  if (available.includes(preferred)) return preferred;
  if (available.length > 0) return available[0];
  return reachesEveryNamespace(access) ? preferred : undefined;
}

/** The first page worth opening in `namespace`: flags when readable, else the console, else none. */
export function startSection(access: Access, namespace: string): 'flags' | 'console' | undefined {
  if (can(access, 'read', namespace)) return 'flags';
  if (can(access, 'evaluate', namespace)) return 'console';
  return undefined;
}
