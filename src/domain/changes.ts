// A recorded change (issue 28): what the history API answers, what revert restores and what the audit
// sinks deliver. Resource types and actions use Flipt's audit names.

export const CHANGE_RESOURCE_TYPES = [
  'namespace',
  'flag',
  'variant',
  'segment',
  'constraint',
  'rule',
  'distribution',
  'rollout',
  'token',
  /** A role binding stored through the API (issue 41): in its namespace, or outside any for one on `*`. */
  'role_binding',
] as const;
export type ChangeResourceType = (typeof CHANGE_RESOURCE_TYPES)[number];

export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** Who made a change: Flipt's audit actor fields, plus the token's id when a token made it and its role. */
export interface ChangeActor {
  /** The method (`token`, `jwt`, `oidc`, `github`, `kubernetes`), `none` when authentication is off, `bootstrap` or `cli`. */
  authentication: string;
  ip?: string;
  tokenId?: string;
  name?: string;
  email?: string;
  picture?: string;
  /**
   * For an actor with roles (issue 41), the role it acted in: the highest it held on the change's
   * namespace or on `*` (auth/roles/highest-role.ts). Absent for actors without roles.
   */
  role?: string;
}

export interface Change {
  id: string;
  createdAt: string;
  batch?: string;
  namespaceKey?: string;
  resourceType: ChangeResourceType;
  resourceKey: string;
  parentKey?: string;
  action: ChangeAction;
  actor: ChangeActor;
  /** The resource as the API shows it, before (absent when created) and after (absent when deleted). */
  before?: unknown;
  after?: unknown;
  reverts?: string;
}

/** How an actor is named to people: the token's name, else its id, else how it authenticated. */
export function actorLabel(actor: ChangeActor): string {
  return actor.name ?? actor.email ?? actor.tokenId ?? actor.authentication;
}
