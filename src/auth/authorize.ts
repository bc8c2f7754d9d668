// The one authorization decision of both transports: from an entry point's declaration (its Access,
// auth/access.ts, and the group its kind puts it in, auth/access-groups.ts), the call's input and the
// caller's authentication alone. Nothing here reads a URL, a method or a service name, so a new entry
// point is authorized by what it declares.
//
// A caller with roles (a token made with them, a person under `authorization.roles`: ADR 46) may make a
// call when its roles include the one the declaration needs (auth/roles/roles.ts) on every namespace the
// call addresses; a read across namespaces (`filtered`) is always allowed and its answer limited to what
// the caller may see; a call that addresses no namespace (`none`) needs that role somewhere, and its
// handler checks the object it acts on. Callers without roles keep
// the rules from before roles: an unscoped authentication may make every call it reached (authentication
// already decided that); a token scoped to one namespace (`io.flipt.auth.token.namespace`) may make a
// call only in a group that takes scoped tokens (management, evaluation) and only when every namespace
// the call addresses is its own. A read across namespaces (`filtered`) is allowed and its answer
// limited (namespacesVisibleTo); reading one's own authentication (`self`) is always allowed.

import { type Authentication, tokenNamespace } from '../domain/authentication.js';
import { PermissionDeniedError } from '../domain/errors.js';
import { namespaceKeyOrDefault } from '../domain/namespace-key.js';
import { ALL_NAMESPACES, type Role, type RoleBinding } from '../domain/roles.js';
import type { Access, NamespaceRule } from './access.js';
import type { AuthGroup } from './access-groups.js';
import {
  holdsRole,
  holdsRoleEverywhere,
  includesRole,
  namespacesWith,
  neededRole,
  type RoleNeed,
} from './roles/roles.js';

/** A call's input as one camelCase object (auth/access.ts says how each transport forms it). */
export type AccessInput = Readonly<Record<string, unknown>>;

/** What authorize reads of an entry point: its declaration and its kind's group. */
export interface DeclaredAccess {
  /** Undefined for an entry point that declared nothing: only unscoped callers pass (fail closed). */
  access: Access | undefined;
  group: AuthGroup | 'unclassified';
}

export const NO_INPUT: AccessInput = Object.freeze({});

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The namespaces a call addresses under its rule, an empty key meaning `default`
 * (domain/namespace-key.ts); undefined when the rule names none (`none`), every one (`all`), or leaves
 * the answer to filtering (`filtered`).
 */
export function addressedNamespaces(rule: NamespaceRule, input: AccessInput): readonly string[] | undefined {
  switch (rule) {
    case 'request':
      return [namespaceKeyOrDefault(input.namespaceKey)];
    case 'key':
      return [namespaceKeyOrDefault(input.key)];
    case 'items': {
      const keys = new Set<string>();
      const items = input.requests;
      if (Array.isArray(items)) for (const item of items) keys.add(namespaceKeyOrDefault(asObject(item)?.namespaceKey));
      // A top-level namespace counts when named; an empty batch addresses `default`.
      if (typeof input.namespaceKey === 'string' && input.namespaceKey !== '') keys.add(input.namespaceKey);
      return keys.size > 0 ? [...keys] : [namespaceKeyOrDefault(undefined)];
    }
    case 'binding':
      // `*` addresses every namespace: holdsRole then matches only bindings on `*` themselves.
      return [typeof input.namespace === 'string' && input.namespace !== '' ? input.namespace : ALL_NAMESPACES];
    default:
      return undefined;
  }
}

/** Whether the rule's namespaces come from the input (so a transport must form it before authorizing). */
export function readsInput(access: Access | undefined): boolean {
  const rule = access?.namespace;
  return rule === 'request' || rule === 'key' || rule === 'items' || rule === 'binding';
}

/** Groups whose entry points take namespace-scoped tokens; the others refuse them. */
function takesScopedTokens(group: DeclaredAccess['group']): boolean {
  return group === 'management' || group === 'evaluation';
}

/**
 * Allows the call (true) or throws PermissionDeniedError. `authentication` null: none was required (or
 * the group is excluded), so there is no one to refuse. `input` may be a function: it is then formed
 * only when the decision needs it (a scoped token on a rule that reads it), so unscoped callers pay
 * nothing. Without `input` (HTTP before the body is read) it decides what it can and answers false when
 * the decision waits for the input: call it again with the input then.
 */
export function authorize(
  declared: DeclaredAccess,
  authentication: Authentication | null,
  input?: AccessInput | (() => AccessInput),
): boolean {
  if (authentication === null) return true;
  const roles = authentication.roles;
  if (roles !== undefined) return authorizeRoles(declared.access, roles, input);
  const scope = tokenNamespace(authentication);
  if (scope === undefined) return true;
  const access = declared.access;
  if (access === undefined) throw new PermissionDeniedError();
  if (access.self === true) return true;
  if (!takesScopedTokens(declared.group)) throw new PermissionDeniedError();
  if (access.namespace === 'filtered') return true;
  if (input === undefined && readsInput(access)) return false;
  const addressed = addressedNamespaces(access.namespace, typeof input === 'function' ? input() : (input ?? NO_INPUT));
  if (addressed === undefined || !addressed.every((namespace) => namespace === scope)) {
    throw new PermissionDeniedError();
  }
  return true;
}

/** Each declaration's need, worked out once (declarations are made at start and kept). */
const needs = new WeakMap<Access, RoleNeed | null>();
function needOf(access: Access): RoleNeed | undefined {
  let need = needs.get(access);
  if (need === undefined) {
    need = neededRole(access) ?? null;
    needs.set(access, need);
  }
  return need ?? undefined;
}

/** The refusal naming what was missing, in Flipt's PERMISSION_DENIED body. */
export function roleRefusal(role: Role, namespace: string): PermissionDeniedError {
  const where = namespace === ALL_NAMESPACES ? 'on every namespace (*)' : `on namespace "${namespace}"`;
  return new PermissionDeniedError(`request was not authorized: role "${role}" ${where} is required`);
}

function authorizeRoles(
  access: Access | undefined,
  roles: readonly RoleBinding[],
  input: AccessInput | (() => AccessInput) | undefined,
): boolean {
  if (access === undefined) throw new PermissionDeniedError();
  if (access.self === true || access.selfExpire === true) return true;
  const need = needOf(access);
  if (need === undefined) return true;
  if (need.everywhere || access.namespace === 'all') {
    if (holdsRoleEverywhere(roles, need.role)) return true;
    throw roleRefusal(need.role, ALL_NAMESPACES);
  }
  // Lists across namespaces are filtered, never refused: one who may read nothing gets an empty list.
  if (access.namespace === 'filtered') return true;
  if (access.namespace === 'none') {
    // Calls on objects outside any namespace (tokens) are checked by their handlers against the object;
    // the role must be held somewhere.
    if (roles.some((binding) => includesRole(binding.role, need.role))) return true;
    throw roleRefusal(need.role, firstNamespace(roles));
  }
  // Held on every namespace: the input need not be read (the common case of a service token on `*`).
  if (holdsRoleEverywhere(roles, need.role)) return true;
  if (input === undefined && readsInput(access)) return false;
  const addressed = addressedNamespaces(access.namespace, typeof input === 'function' ? input() : (input ?? NO_INPUT));
  for (const namespace of addressed ?? []) {
    if (!holdsRole(roles, need.role, namespace)) throw roleRefusal(need.role, namespace);
  }
  return true;
}

/** A namespace to name in a refusal that addresses none: one the caller has some role on, else `*`. */
function firstNamespace(roles: readonly RoleBinding[]): string {
  return roles[0]?.namespace ?? ALL_NAMESPACES;
}

/**
 * The roles an authentication holds, as bindings: its own (ADR 46), else what today's meaning gives — a
 * token scoped to a namespace administers that namespace, anyone else every namespace. Handlers that
 * filter or check by role (token grants, filtered lists) read this; `authorize` keeps the scoped
 * token's group rule besides.
 */
export function effectiveRoles(authentication: Authentication): readonly RoleBinding[] {
  if (authentication.roles !== undefined) return authentication.roles;
  const scope = tokenNamespace(authentication);
  return [{ role: 'admin', namespace: scope ?? ALL_NAMESPACES }];
}

/**
 * The namespaces a `filtered` read may show the caller (`role`: viewer unless said): undefined for every
 * one (no authentication, an unscoped one without roles, roles on `*`), else the listed keys.
 */
export function namespacesVisibleTo(
  authentication: Authentication | null,
  role: Role = 'viewer',
): readonly string[] | undefined {
  if (authentication === null) return undefined;
  if (authentication.roles === undefined) {
    const scope = tokenNamespace(authentication);
    return scope === undefined ? undefined : [scope];
  }
  const visible = namespacesWith(authentication.roles, role);
  return visible.all ? undefined : [...visible.keys];
}
