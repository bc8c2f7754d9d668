// A role binding stored through the API (issue 41, ADR 47): a rule of the same shape as the config's
// `authorization.roles.rules` (auth/roles/identity-rules.ts), with an id and its times. Checked here
// as the config's rules are (domain/role-rules.ts), so what the API accepts the config would too.

import type { IdentityMatch, RoleRule } from '../../auth/roles/identity-rules.js';
import { AUTH_METHODS, type AuthMethod } from '../../domain/authentication.js';
import { InvalidArgumentError } from '../../domain/errors.js';
import { roleRuleProblem } from '../../domain/role-rules.js';
import { isRole, ROLES } from '../../domain/roles.js';

export interface StoredRoleBinding extends RoleRule {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The longest metadata key, claim, pattern or namespace key a binding keeps (the columns' size). */
export const MAX_BINDING_TEXT = 255;

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An optional text field: absent (undefined or null) or a non-empty string within the size. */
function text(field: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw new InvalidArgumentError(`${field} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a string`);
  if (value.length > MAX_BINDING_TEXT) {
    throw new InvalidArgumentError(`${field} is longer than ${MAX_BINDING_TEXT} characters`);
  }
  return value;
}

/**
 * A binding to store, from the request's `{match: {method?, metadata? | claim?, pattern}, role,
 * namespace}`; 400 naming the field for anything the config would refuse.
 */
export function bindingInput(raw: unknown): RoleRule {
  const body = object(raw) ?? {};
  const match = object(body.match);
  if (match === undefined) throw new InvalidArgumentError('match is required: {metadata or claim, pattern}');
  const method = match.method;
  if (method !== undefined && method !== null && method !== '' && !AUTH_METHODS.includes(method as AuthMethod)) {
    throw new InvalidArgumentError(`match.method ${JSON.stringify(method)} is not one of ${AUTH_METHODS.join(', ')}`);
  }
  if (method === 'METHOD_TOKEN' || method === 'METHOD_NONE') {
    // The resolver never matches tokens against bindings: a token carries its own roles.
    throw new InvalidArgumentError(`match.method ${method} never applies: tokens carry their own roles`);
  }
  const identity: IdentityMatch = { pattern: text('match.pattern', match.pattern, true) as string };
  if (typeof method === 'string' && method !== '') identity.method = method as AuthMethod;
  const metadata = text('match.metadata', match.metadata, false);
  const claim = text('match.claim', match.claim, false);
  if (metadata !== undefined) identity.metadata = metadata;
  if (claim !== undefined) identity.claim = claim;
  if (!isRole(body.role)) {
    throw new InvalidArgumentError(`role ${JSON.stringify(body.role ?? '')} is not one of ${ROLES.join(', ')}`);
  }
  const namespace = text('namespace', body.namespace, true) as string;
  const rule: RoleRule = { match: identity, role: body.role, namespace };
  const problem = roleRuleProblem(rule);
  if (problem !== undefined) throw new InvalidArgumentError(`${problem.field}: ${problem.detail}`);
  return rule;
}

/** The binding as the API shows it (and as the change log records it). */
export function bindingToWire(binding: StoredRoleBinding) {
  const { method, metadata, claim, pattern } = binding.match;
  return {
    id: binding.id,
    match: {
      ...(method !== undefined ? { method } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
      ...(claim !== undefined ? { claim } : {}),
      pattern,
    },
    role: binding.role,
    namespace: binding.namespace,
    createdAt: binding.createdAt.toISOString(),
    updatedAt: binding.updatedAt.toISOString(),
  };
}

/** Whether two bindings grant the same thing to the same identities. */
export function sameRule(a: RoleRule, b: RoleRule): boolean {
  return (
    a.role === b.role &&
    a.namespace === b.namespace &&
    a.match.method === b.match.method &&
    a.match.metadata === b.match.metadata &&
    a.match.claim === b.match.claim &&
    a.match.pattern === b.match.pattern
  );
}
