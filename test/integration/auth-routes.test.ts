// Route coverage of authentication: walks EVERY route the app registers (read from Fastify's route
// tree, so routes registered anywhere are seen) and checks that each declared a kind
// (src/api/http/route-kinds.ts, whose policy decides who may call it) and an access (src/auth/access.ts,
// which authorization reads), that with
// `authentication.required: true` and no credential each protected route answers 401 and each open
// route does not, and that the exclude switches open exactly their groups. A route added later without
// a kind fails here (and is protected meanwhile: fail closed).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutes, KIND_POLICIES, type RouteAccess, UNDECLARED_POLICY } from '../../src/api/http/route-kinds.js';
import type { App } from '../../src/app/build-app.js';
import type { AuthGroup } from '../../src/auth/access-groups.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';

interface RegisteredRoute {
  method: string;
  url: string;
}

/** Every (method, url) in the app's router, from printRoutes' tree (parameter names may be merged: `:a|:b`). */
function registeredRoutes(t: TestApp): RegisteredRoute[] {
  const tree = t.app.http.printRoutes({ commonPrefix: false });
  const paths: string[] = [];
  const routes: RegisteredRoute[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    const path = (depth === 0 ? '' : (paths[depth - 1] as string)) + (m[2] as string);
    paths[depth] = path;
    paths.length = depth + 1;
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      routes.push({ method, url: path });
  }
  return routes;
}

/** A concrete URL for a route pattern: parameters become `default`, wildcards `x`. */
function concrete(url: string): string {
  return url.replace(/:[^/]+/g, 'default').replace(/\*/g, 'x');
}

const BOOT = 'route-coverage-token';

function authConfig(exclude: Record<string, boolean>) {
  return {
    authentication: {
      required: true,
      exclude,
      methods: { token: { enabled: true, bootstrap: { token: BOOT } } },
    },
  };
}

/**
 * A route pattern with its parameters unnamed: the router's tree merges parameter names (`:key|:id`),
 * and prints a wildcard route under the root (`/assets/*` as `/*`).
 */
function shape(url: string): string {
  return url.replace(/:[^/]+/g, ':').replace(/^\/[^*]*\*$/, '/*');
}

/** The route as its module declared it (method, pattern and kind) for a route of the router's tree. */
function declaredRoute(app: App, method: string, url: string) {
  return declaredRoutes(app.http).find((r) => r.method === method && shape(r.url) === shape(url));
}

/** The access the kind of the route grants (UNDECLARED_POLICY's when it declared none). */
function accessOf(app: App, url: string, method = 'GET'): RouteAccess {
  const declared = declaredRoute(app, method, url) ?? declaredRoute(app, 'POST', url) ?? declaredRoute(app, 'PUT', url);
  return declared?.kind === undefined ? UNDECLARED_POLICY.access : KIND_POLICIES[declared.kind].access;
}

async function unauthenticatedStatus(t: TestApp, route: RegisteredRoute) {
  const withBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  return call(t.app, route.method as 'GET', concrete(route.url), withBody ? {} : undefined);
}

describe('route coverage of authentication', () => {
  let t: TestApp;
  let routes: RegisteredRoute[];
  beforeAll(async () => {
    t = await startTestApp({ name: 'sqlite' }, authConfig({ management: false, evaluation: false, ofrep: false }));
    routes = registeredRoutes(t);
  });
  afterAll(async () => t?.close());

  it('reads the route table (sanity of the walk)', () => {
    const seen = new Set(routes.map((r) => `${r.method} ${r.url}`));
    for (const expected of [
      'GET /health',
      'GET /openapi.json',
      'GET /api/v1/namespaces',
      'POST /api/v1/namespaces',
      'POST /auth/v1/method/token',
      'GET /auth/v1/method',
      'GET /auth/v1/self',
      'PUT /auth/v1/self/expire',
      'DELETE /auth/v1/tokens/:id',
    ]) {
      expect(seen, expected).toContain(expected);
    }
  });

  it('has a declared kind for every registered route', () => {
    const problems = routes
      .filter((r) => declaredRoute(t.app, r.method, r.url)?.kind === undefined)
      .map((r) => `${r.method} ${r.url}`);
    expect(problems, "declare each route's kind (config: { kind }, src/api/http/route-kinds.ts)").toEqual([]);
  });

  it('has a declared access for every registered route (test/integration/access-coverage.test.ts walks gRPC too)', () => {
    const problems = routes
      .filter((r) => declaredRoute(t.app, r.method, r.url)?.access === undefined)
      .map((r) => `${r.method} ${r.url}`);
    expect(problems, "declare each route's access (config: { access }, src/auth/access.ts)").toEqual([]);
  });

  it('answers 401 on every protected route without a token, and never on an open route', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const access = accessOf(t.app, route.url, route.method);
      const res = await unauthenticatedStatus(t, route);
      const label = `${route.method} ${route.url} → ${res.status}`;
      if (access.open && res.status === 401) wrong.push(`${label} (open route)`);
      if (!access.open) {
        if (res.status !== 401) wrong.push(`${label} (protected route)`);
        // Every 401, OFREP's included, names the scheme to answer with (RFC 9110 §11.6.1).
        else if (res.headers['www-authenticate'] !== 'Bearer') {
          wrong.push(`${label} (no WWW-Authenticate)`);
        } else if (
          route.method !== 'HEAD' &&
          !route.url.startsWith('/ofrep') &&
          JSON.stringify(res.body) !==
            JSON.stringify({ code: 16, message: 'request was not authenticated', details: [] })
        ) {
          wrong.push(`${label} (body ${JSON.stringify(res.body)})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(routes.filter((r) => accessOf(t.app, r.url, r.method).open).length).toBeGreaterThan(0);
    expect(routes.filter((r) => !accessOf(t.app, r.url, r.method).open).length).toBeGreaterThan(0);
  });

  it('protects a route that declared no kind in no excludable group, and gives each kind its group', () => {
    expect(UNDECLARED_POLICY.access).toEqual({ open: false, group: 'unclassified' });
    expect(accessOf(t.app, '/debug/pprof')).toEqual({ open: false, group: 'unclassified' });
    expect(accessOf(t.app, '/auth/v1/method')).toEqual({ open: true });
    expect(accessOf(t.app, '/auth/v1/method/token')).toEqual({ open: false, group: 'auth' });
    expect(accessOf(t.app, '/internal/v1/evaluation/snapshot/namespace/:key')).toEqual({
      open: false,
      group: 'evaluation',
    });
    expect(accessOf(t.app, '/api/v1/evaluate')).toEqual({ open: false, group: 'management' });
    expect(accessOf(t.app, '/meta/info')).toEqual({ open: false, group: 'meta' });
    expect(accessOf(t.app, '/ofrep/v1/evaluate/flags')).toEqual({ open: false, group: 'ofrep' });
    expect(accessOf(t.app, '/metrics')).toEqual({ open: true });
  });
});

describe('route coverage with every exclude switch on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ name: 'sqlite' }, authConfig({ management: true, evaluation: true, ofrep: true }));
  });
  afterAll(async () => t?.close());

  it('opens exactly the management, evaluation and OFREP groups', async () => {
    const excluded: (AuthGroup | 'unclassified')[] = ['management', 'evaluation', 'ofrep'];
    const wrong: string[] = [];
    for (const route of registeredRoutes(t)) {
      const access = accessOf(t.app, route.url, route.method);
      const shouldAuthenticate = !access.open && !excluded.includes(access.group);
      const res = await unauthenticatedStatus(t, route);
      if (shouldAuthenticate !== (res.status === 401)) wrong.push(`${route.method} ${route.url} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });
});
