// The roles of a signed-in person (ADR 46): the `authorization.roles` rules of the config and the
// bindings admins store through the API (features/role-bindings), matched against the person's
// authentication (identity-rules.ts). A token's roles are stored with it and need no resolving; a token
// without roles keeps today's meaning, as does everyone while `authorization.roles` is not configured.
//
// Resolving happens where an authentication is found (services/auth.ts), once per authentication object
// and generation of the stored bindings: the token cache keeps the object, so a request pays one WeakMap
// read, and a change to the stored bindings (a new generation) is seen by the next request.

import type { Authentication } from '../../domain/authentication.js';
import { type RoleRule, type RoleRules, rolesByRule } from './identity-rules.js';

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

  /** The rules that apply now: the config's, then the stored ones. */
  rules(): RoleRules | undefined {
    const configured = this.#configured;
    if (configured === undefined) return undefined;
    const stored = this.#stored.rules();
    return stored.length === 0 ? configured : { rules: [...configured.rules, ...stored], default: configured.default };
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
    const rules = this.rules() as RoleRules;
    const resolved: Authentication = { ...authentication, roles: rolesByRule(authentication, rules) };
    this.#resolved.set(authentication, { generation, resolved });
    return resolved;
  }
}
