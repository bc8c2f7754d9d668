// Which HTTP routes need a credential when `authentication.required` is true. Every registered route
// must match exactly ONE rule below: an open route, or a protected prefix with its group. The route
// coverage test (test/integration/auth-routes.test.ts) walks every registered route and fails on a
// route that matches none (a new route without a decision) or several. At run time a route matching
// no rule is treated as protected (fail closed).
//
// Groups follow Flipt's services: `exclude.management` exempts /api/v1/** (legacy /api/v1/evaluate
// too), `exclude.evaluation` exempts /evaluate/v1/** and the client snapshot, `exclude.ofrep`
// exempts /ofrep/**; /meta/*, analytics and the token endpoints under /auth/v1 are always protected.

import type { Config } from '../config/schema.js';

export type AuthGroup = 'management' | 'evaluation' | 'ofrep' | 'auth' | 'meta' | 'analytics';

export interface ProtectedPrefix {
  /** A path prefix that matches itself and everything below it (`/meta` matches `/meta/info`). */
  prefix: string;
  group: AuthGroup;
}

/** Routes that never need a credential (matched exactly against the registered route URL). */
export const OPEN_ROUTES: readonly string[] = [
  '/health',
  '/metrics',
  '/openapi.json',
  // Flipt's public authentication service: lists the methods so a login page can offer them.
  '/auth/v1/method',
  // The dashboard's static files (Flipt's UI is outside the gRPC stack and never authenticated).
  '/',
  '/*',
  '/index.html',
  '/favicon.ico',
  '/favicon.svg',
  '/robots.txt',
];

/** Open prefixes: the dashboard's asset folders. */
export const OPEN_PREFIXES: readonly string[] = ['/assets', '/ui'];

export const PROTECTED_PREFIXES: readonly ProtectedPrefix[] = [
  { prefix: '/api/v1', group: 'management' },
  { prefix: '/evaluate/v1', group: 'evaluation' },
  { prefix: '/internal/v1/evaluation', group: 'evaluation' },
  { prefix: '/internal/v1/analytics', group: 'analytics' },
  { prefix: '/ofrep', group: 'ofrep' },
  { prefix: '/meta', group: 'meta' },
  { prefix: '/auth/v1/self', group: 'auth' },
  { prefix: '/auth/v1/tokens', group: 'auth' },
  { prefix: '/auth/v1/method/token', group: 'auth' },
];

export type RouteRule = { kind: 'open'; rule: string } | { kind: 'protected'; rule: string; group: AuthGroup };

function underPrefix(url: string, prefix: string): boolean {
  return url === prefix || url.startsWith(`${prefix}/`);
}

/** Every rule the route URL matches; a well-formed table gives exactly one for each route. */
export function matchingRules(url: string): RouteRule[] {
  const rules: RouteRule[] = [];
  for (const open of OPEN_ROUTES) if (url === open) rules.push({ kind: 'open', rule: open });
  for (const prefix of OPEN_PREFIXES) if (underPrefix(url, prefix)) rules.push({ kind: 'open', rule: `${prefix}/**` });
  for (const p of PROTECTED_PREFIXES) {
    if (underPrefix(url, p.prefix)) rules.push({ kind: 'protected', rule: `${p.prefix}/**`, group: p.group });
  }
  return rules;
}

/** What a route needs: nothing (open), or a credential of a group. Unknown routes are protected. */
export type RouteAccess = { open: true } | { open: false; group: AuthGroup | 'unclassified' };

export function classifyRoute(url: string): RouteAccess {
  const rules = matchingRules(url);
  if (rules.length === 1 && rules[0]?.kind === 'open') return { open: true };
  const prot = rules.find((r) => r.kind === 'protected');
  return { open: false, group: prot?.kind === 'protected' ? prot.group : 'unclassified' };
}

/** Whether the config exempts a protected group from authentication. */
export function isExcluded(group: AuthGroup | 'unclassified', exclude: Config['authentication']['exclude']): boolean {
  switch (group) {
    case 'management':
      return exclude.management;
    case 'evaluation':
      return exclude.evaluation;
    case 'ofrep':
      return exclude.ofrep;
    default:
      // /meta, analytics and the token endpoints: always authenticated (exclude.metadata never worked in Flipt).
      return false;
  }
}

/** Groups where a namespace-scoped token is checked against the request's namespace; elsewhere it is refused. */
export function allowsNamespaceScopedTokens(group: AuthGroup | 'unclassified'): boolean {
  return group === 'management' || group === 'evaluation';
}
