// What each route is, declared once on the route (`config: { kind }`), and everything that follows from
// it: who may call it (authentication), which tier serves it, how its requests are logged, and whether
// it writes its own answer (then it also compresses that answer and reads a missing body as empty
// itself). The authentication hook, the tiers, HTTP telemetry, compression and body handling all read
// this table instead of matching URL prefixes, so a new route is one declaration, and a route that
// declares nothing is refused by authentication (fail closed) and flagged by the route coverage test.

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

/** The policy of a route, by its kind (UNDECLARED_POLICY when it declared none). */
export function policyOf(route: RouteLike): KindPolicy {
  const kind = kindOf(route);
  return kind === undefined ? UNDECLARED_POLICY : KIND_POLICIES[kind];
}

export interface DeclaredRoute {
  method: string;
  url: string;
  kind: RouteKind | undefined;
}

const tables = new WeakMap<object, DeclaredRoute[]>();

/** Records every route registered from now on with its kind: the table the route coverage test walks. */
export function recordRouteKinds(app: {
  addHook(name: 'onRoute', hook: (route: RouteOptions) => void): unknown;
}): void {
  const table: DeclaredRoute[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    const kind = kindOf(route);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.push({ method: method.toUpperCase(), url: route.url, kind });
    }
  });
}

/** Every route registered since recordRouteKinds, with the kind it declared. */
export function declaredRoutes(app: object): readonly DeclaredRoute[] {
  return tables.get(app) ?? [];
}
