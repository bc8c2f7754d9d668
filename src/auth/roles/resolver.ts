// The roles of a signed-in person (ADR 46): the `authorization.roles` rules of the config and the
// bindings admins store through the API (features/role-bindings), matched against the person's
// authentication (identity-rules.ts); the stored bindings add to what the config gives, never replace
// it. A token's roles are stored with it and need no resolving; a token without roles keeps today's
// meaning, as does everyone while `authorization.roles` is not configured.
//
// Resolving happens where an authentication is found (services/auth.ts), once per authentication object
// and generation of the stored bindings: the token cache keeps the object, so a request pays one WeakMap
// read, and a change to the stored bindings (a new generation) is seen by the next request.

import type { Authentication } from '../../domain/authentication.js';
import type { RoleBinding } from '../../domain/roles.js';
import { matchesIdentity, type RoleRule, type RoleRules, rolesByRule } from './identity-rules.js';

/** The stored bindings, as rules, and a number that changes whenever they do. */
export interface StoredRoleRules {
  rules(): readonly RoleRule[];
  readonly generation: number;
}

const NO_STORED_RULES: StoredRoleRules = { rules: () => [], generation: 0 };

export class RoleResolver {
  readonly #configured: RoleRules | undefined;
  #stored: StoredRoleRules = NO_STORED_RULES;
  readonly #resolved = new WeakMap<Authentication, { generation: number; resolved: Authentication }>();

  /** `configured` undefined: `authorization.roles` is not set, so people keep today's meaning. */
  constructor(configured: RoleRules | undefined) {
    this.#configured = configured;
  }

  /** Whether people's roles are decided by rule (`authorization.roles` is configured). */
  get enabled(): boolean {
    return this.#configured !== undefined;
  }

  /** Where the bindings stored through the API come from (set once the feature is wired). */
  useStored(stored: StoredRoleRules): void {
    this.#stored = stored;
  }

  /**
   * An identity's roles: the config's rules (their default when none of them matches), and besides
   * every stored binding that matches. Stored bindings only add: one made by an admin of a namespace
   * must not take the config's default away from everyone it matches on every other namespace.
   */
  #rolesOf(authentication: Authentication, configured: RoleRules): RoleBinding[] {
    const roles = rolesByRule(authentication, configured);
    for (const rule of this.#stored.rules()) {
      if (matchesIdentity(authentication, rule.match)) roles.push({ role: rule.role, namespace: rule.namespace });
    }
    return roles;
  }

  /**
   * The authentication with its roles: as it is when it carries its own (a token made with roles), when
   * it is a token (without roles: today's meaning), or when people's roles are not configured; else a
   * copy with the roles its identity gets by rule (none at all: an empty list, so every check refuses).
   */
  resolve(authentication: Authentication): Authentication {
    if (authentication.roles !== undefined || authentication.method === 'METHOD_TOKEN') return authentication;
    if (this.#configured === undefined) return authentication;
    const generation = this.#stored.generation;
    const known = this.#resolved.get(authentication);
    if (known !== undefined && known.generation === generation) return known.resolved;
    const resolved: Authentication = { ...authentication, roles: this.#rolesOf(authentication, this.#configured) };
    this.#resolved.set(authentication, { generation, resolved });
    return resolved;
  }
}
