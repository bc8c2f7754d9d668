// What each route is, declared once on the route (`config: { kind }`), and everything that follows from
// it: who may call it (authentication), which tier serves it, how its requests are logged, and whether
// it writes its own answer (then it also compresses that answer and reads a missing body as empty
// itself). The authentication hook, the tiers, HTTP telemetry, compression and body handling all read
// this table instead of matching URL prefixes, so a new route is one declaration, and a route that
// declares nothing is refused by authentication (fail closed) and flagged by the route coverage test.
// Beside its kind a route declares its access (`config: { access }`, auth/access.ts), which
// authorization (auth/authorize.ts), the tiers' revision header and the empty-namespace rule read.

import type { RouteOptions } from 'fastify';
import type { Access } from '../../auth/access.js';
import { KIND_POLICIES, type KindPolicy, type RouteKind, UNDECLARED_POLICY } from '../kinds.js';

export {
  KIND_POLICIES,
  type KindPolicy,
  type LogClass,
  type RouteAccess,
  type RouteKind,
  type TierClass,
  UNDECLARED_POLICY,
} from '../kinds.js';

/**
 * Where the dashboard's hashed files are served from (routes/ui.ts). @fastify/static registers those
 * routes itself and takes no route config, so they are the one kind read from a URL.
 */
export const UI_ASSETS_PREFIX = '/assets/';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route is (route-kinds.ts): every route of the API declares it. */
    kind?: RouteKind;
    /** What the route does, for authorization (auth/access.ts): every route of the API declares it. */
    access?: Access;
  }
}

/** A route's options, or a request's view of them (request.routeOptions). */
interface RouteLike {
  config?: unknown;
  url?: string | undefined;
}

/** The kind a route declared, if any. */
export function kindOf(route: RouteLike): RouteKind | undefined {
  const declared = (route.config as { kind?: RouteKind } | undefined)?.kind;
  if (declared !== undefined) return declared;
  return route.url?.startsWith(UI_ASSETS_PREFIX) ? 'ui' : undefined;
}

/** The dashboard's hashed files: served to anyone, like the page itself. */
const UI_ASSETS_ACCESS: Access = { resource: 'service', action: 'read', namespace: 'none' };

/** The access a route declared (auth/access.ts), if any. */
export function accessOf(route: RouteLike): Access | undefined {
  const declared = (route.config as { access?: Access } | undefined)?.access;
  if (declared !== undefined) return declared;
  return route.url?.startsWith(UI_ASSETS_PREFIX) ? UI_ASSETS_ACCESS : undefined;
}

/** The policy of a route, by its kind (UNDECLARED_POLICY when it declared none). */
export function policyOf(route: RouteLike): KindPolicy {
  const kind = kindOf(route);
  return kind === undefined ? UNDECLARED_POLICY : KIND_POLICIES[kind];
}

export interface DeclaredRoute {
  method: string;
  url: string;
  kind: RouteKind | undefined;
  access: Access | undefined;
}

const tables = new WeakMap<object, DeclaredRoute[]>();

/**
 * Records every route registered from now on with its kind and access: the table the route coverage
 * tests walk. Both are read when the table is, not when the route is registered: a later onRoute hook
 * may still declare them (cors.ts: the preflight route).
 */
export function recordRouteKinds(app: {
  addHook(name: 'onRoute', hook: (route: RouteOptions) => void): unknown;
}): void {
  const table: DeclaredRoute[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.push({
        method: method.toUpperCase(),
        url: route.url,
        get kind() {
          return kindOf(route);
        },
        get access() {
          return accessOf(route);
        },
      });
    }
  });
}

/** Every route registered since recordRouteKinds, with the kind and access it declared. */
export function declaredRoutes(app: object): readonly DeclaredRoute[] {
  return tables.get(app) ?? [];
}
