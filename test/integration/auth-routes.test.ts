// Route coverage of authentication: walks EVERY route the app registers (read from Fastify's route
// tree, so routes registered anywhere are seen) and checks that each matches exactly one rule of
// src/auth/route-policy.ts, that with `authentication.required: true` and no credential each protected
// route answers 401 and each open route does not, and that the exclude switches open exactly their
// groups. A route added later without a decision in route-policy.ts fails here.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthGroup, classifyRoute, matchingRules } from '../../src/auth/route-policy.js';
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

  it('has exactly one decision for every registered route', () => {
    const problems = routes
      .map((r) => ({ route: `${r.method} ${r.url}`, rules: matchingRules(r.url).map((m) => m.rule) }))
      .filter((p) => p.rules.length !== 1);
    expect(
      problems,
      'add each route to OPEN_ROUTES / OPEN_PREFIXES / PROTECTED_PREFIXES in src/auth/route-policy.ts',
    ).toEqual([]);
  });

  it('answers 401 on every protected route without a token, and never on an open route', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const access = classifyRoute(route.url);
      const res = await unauthenticatedStatus(t, route);
      const label = `${route.method} ${route.url} → ${res.status}`;
      if (access.open && res.status === 401) wrong.push(`${label} (open route)`);
      if (!access.open) {
        if (res.status !== 401) wrong.push(`${label} (protected route)`);
        // OFREP answers in its own error format, without the header (as Flipt's OFREP handler).
        else if (
          !route.url.startsWith('/ofrep') &&
          res.headers['www-authenticate'] !== 'request was not authenticated'
        ) {
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
    expect(routes.filter((r) => classifyRoute(r.url).open).length).toBeGreaterThan(0);
    expect(routes.filter((r) => !classifyRoute(r.url).open).length).toBeGreaterThan(0);
  });

  it('leaves a route without a decision unclassified (so the coverage check above fails for it)', () => {
    for (const url of ['/debug/pprof', '/internal/v1/something-new', '/auth/v1/method/oidc/x/authorize', '/api']) {
      expect(matchingRules(url), url).toEqual([]);
      expect(classifyRoute(url), url).toEqual({ open: false, group: 'unclassified' });
    }
    expect(classifyRoute('/auth/v1/method')).toEqual({ open: true });
    expect(classifyRoute('/auth/v1/method/token')).toEqual({ open: false, group: 'auth' });
    expect(classifyRoute('/internal/v1/evaluation/snapshot/namespace/:key')).toEqual({
      open: false,
      group: 'evaluation',
    });
    expect(classifyRoute('/api/v1/evaluate')).toEqual({ open: false, group: 'management' });
    expect(classifyRoute('/meta/info')).toEqual({ open: false, group: 'meta' });
    expect(classifyRoute('/ofrep/v1/evaluate/flags')).toEqual({ open: false, group: 'ofrep' });
    expect(classifyRoute('/metrics')).toEqual({ open: true });
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
      const access = classifyRoute(route.url);
      const shouldAuthenticate = !access.open && !excluded.includes(access.group);
      const res = await unauthenticatedStatus(t, route);
      if (shouldAuthenticate !== (res.status === 401)) wrong.push(`${route.method} ${route.url} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });
});
