// The roles a signed-in identity gets by rule (the `authorization.roles` section, and bindings managed
// through the API): a rule names an attribute of the authentication — a metadata key (the email, a
// GitHub organisation, a Kubernetes service account, a JWT claim such as Flipt users'
// `io.flipt.auth.role`) or an OIDC claim (`groups`) — and a pattern; an identity that matches gets the
// rule's role on the rule's namespace. An identity that matches no rule gets the default (none unless set).

import type { Authentication, AuthMethod } from '../../domain/authentication.js';
import { ALL_NAMESPACES, type Role, type RoleBinding } from './roles.js';

/** Where the OIDC method keeps the ID token's claims (JSON): auth/methods/oidc.ts. */
const CLAIMS_METADATA = 'io.flipt.auth.claims';

export interface IdentityMatch {
  /** Only authentications of this method (`METHOD_OIDC`, …); any when absent. */
  method?: AuthMethod;
  /** A metadata key of the authentication, e.g. `io.flipt.auth.email`. */
  metadata?: string;
  /** A top-level claim of the OIDC ID token, e.g. `groups`. */
  claim?: string;
  /** The value to match; `*` stands for any run of characters. */
  pattern: string;
}

export interface RoleRule {
  match: IdentityMatch;
  role: Role;
  /** A namespace key or `*`. */
  namespace: string;
}

export interface RoleRules {
  rules: readonly RoleRule[];
  /** The role on every namespace of an identity no rule matches; `none`: no role at all. */
  default: Role | 'none';
}

const expressions = new Map<string, RegExp>();

/** A pattern as an anchored expression: `*` is any run of characters, everything else literal. */
export function patternExpression(pattern: string): RegExp {
  let expression = expressions.get(pattern);
  if (expression === undefined) {
    const literal = pattern.split('*').map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, '\\$&'));
    expression = new RegExp(`^${literal.join('.*')}$`, 's');
    // The patterns are the config's and the stored bindings': few, so kept (bounded all the same).
    if (expressions.size >= 10_000) expressions.clear();
    expressions.set(pattern, expression);
  }
  return expression;
}

/**
 * The values an attribute holds. Metadata is string → string, so lists are stored as JSON: a list gives
 * each of its strings, an object of lists (GitHub's teams by organisation) gives each `key/value`.
 */
export function attributeValues(raw: unknown): string[] {
  if (typeof raw === 'string') {
    const first = raw[0];
    if (first !== '[' && first !== '{') return [raw];
    try {
      const values = attributeValues(JSON.parse(raw));
      return values.length > 0 ? values : [raw];
    } catch {
      return [raw];
    }
  }
  if (typeof raw === 'number' || typeof raw === 'boolean') return [String(raw)];
  if (Array.isArray(raw)) return raw.flatMap((item) => (typeof item === 'object' ? [] : attributeValues(item)));
  if (typeof raw === 'object' && raw !== null) {
    return Object.entries(raw).flatMap(([key, value]) =>
      Array.isArray(value) ? value.filter((v) => typeof v === 'string').map((v) => `${key}/${v}`) : [],
    );
  }
  return [];
}

function claimsOf(authentication: Authentication): Record<string, unknown> {
  const text = authentication.metadata[CLAIMS_METADATA];
  if (text === undefined) return {};
  try {
    const claims = JSON.parse(text) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Whether an authentication matches a rule's `match`. */
export function matchesIdentity(authentication: Authentication, match: IdentityMatch): boolean {
  if (match.method !== undefined && authentication.method !== match.method) return false;
  let raw: unknown;
  if (match.metadata !== undefined) raw = authentication.metadata[match.metadata];
  else if (match.claim !== undefined) raw = claimsOf(authentication)[match.claim];
  else return false;
  if (raw === undefined) return false;
  const expression = patternExpression(match.pattern);
  return attributeValues(raw).some((value) => expression.test(value));
}

/** The bindings an identity gets from the rules (the default when none matches). */
export function rolesByRule(authentication: Authentication, rules: RoleRules): RoleBinding[] {
  const bindings: RoleBinding[] = [];
  for (const rule of rules.rules) {
    if (matchesIdentity(authentication, rule.match)) bindings.push({ role: rule.role, namespace: rule.namespace });
  }
  if (bindings.length === 0 && rules.default !== 'none') {
    bindings.push({ role: rules.default, namespace: ALL_NAMESPACES });
  }
  return bindings;
}
