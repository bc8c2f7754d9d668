// Every entry point declares its access (src/auth/access.ts): walks the HTTP router's recorded route
// table (route-kinds.ts declaredRoutes, every route whatever registered it) and every gRPC service
// table (the Flipt services and the change stream), and fails for any entry without `access`. Also
// checks the one thing a declaration must agree with: a route whose path names a namespace declares a
// rule that reads that parameter (else authorization would read `default` instead).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WATCH_ENTRY } from '../../src/api/grpc/change-service.js';
import { fliptServiceTables } from '../../src/api/grpc/flipt-services.js';
import { namespaceParamOf } from '../../src/api/http/namespace-default.js';
import { declaredRoutes } from '../../src/api/http/route-kinds.js';
import { createRoleBindings } from '../../src/features/role-bindings/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('access declared on every entry point', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Authentication on with the token method, and change streams on: the most routes registered.
    t = await startTestApp(
      { name: 'sqlite' },
      {
        authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: 'access-boot' } } } },
        ofrep: { event_streams: { enabled: true } },
      },
    );
  });
  afterAll(async () => t?.close());

  it('walks a route table that holds every kind of entry point', () => {
    const seen = new Set(declaredRoutes(t.app.http).map((r) => `${r.method} ${r.url}`));
    for (const expected of [
      'POST /evaluate/v1/batch',
      'POST /ofrep/v1/evaluate/flags',
      'GET /ofrep/v1/namespaces/:namespaceKey/events',
      'GET /internal/v1/evaluation/snapshot/namespace/:key/events',
      'POST /api/v1/import',
      'GET /api/v1/changes',
      'GET /auth/v1/self',
      'GET /openapi.json',
      'GET /metrics',
    ]) {
      expect(seen, expected).toContain(expected);
    }
  });

  it('has an access declaration on every HTTP route', () => {
    const missing = declaredRoutes(t.app.http)
      .filter((r) => r.access === undefined)
      .map((r) => `${r.method} ${r.url}`);
    expect(missing, "declare each route's access (config: { access }, src/auth/access.ts)").toEqual([]);
  });

  it('reads the namespace a route path names with the route’s rule', () => {
    const wrong = declaredRoutes(t.app.http)
      .filter((r) => /\/namespaces?\/:/.test(r.url) && namespaceParamOf(r.url, r.access) === undefined)
      .map((r) => `${r.method} ${r.url} (${r.access?.namespace})`);
    expect(wrong).toEqual([]);
  });

  it('has an access declaration on every gRPC method', () => {
    const tables = {
      ...fliptServiceTables(t.app.services, t.app.config),
      'vexil.changes.v1.ChangeService': [WATCH_ENTRY],
      ...createRoleBindings(t.app.db.kysely, t.app.services.recorded, undefined).grpcTables,
    };
    const missing = Object.entries(tables).flatMap(([service, rpcs]) =>
      rpcs.filter((rpc) => rpc.access === undefined).map((rpc) => `${service}/${rpc.method}`),
    );
    expect(Object.values(tables).flat().length).toBeGreaterThan(50);
    expect(missing, "declare each RPC's access (its table entry's `access`)").toEqual([]);
  });
});
