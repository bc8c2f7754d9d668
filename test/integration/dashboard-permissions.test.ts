// The dashboard's permissions (ui/src/lib/permissions.ts) mirror the server's rule (auth/roles/roles.ts)
// so that it offers exactly what the server allows. The dashboard may not import the server, so this
// test holds the two together: for each dashboard action, the routes the dashboard calls for it (from
// the HTTP route table as registered, with their declared access) need the role, and the "on every
// namespace" condition, the dashboard says they need.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutes } from '../../src/api/http/route-kinds.js';
import type { Access } from '../../src/auth/access.js';
import { neededRole } from '../../src/auth/roles/roles.js';
import { type Action, NEEDS } from '../../ui/src/lib/permissions.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const NS = '/api/v1/namespaces/:namespaceKey';

/** The routes behind each dashboard action (ui/src/api/api.ts), as `METHOD url`. */
const CALLS: Record<Exclude<Action, 'role-bindings' | 'import-drop'>, string[]> = {
  evaluate: ['POST /evaluate/v1/boolean', 'POST /evaluate/v1/variant'],
  read: [
    `GET ${NS}/flags`,
    `GET ${NS}/flags/:key`,
    `GET ${NS}/segments`,
    `GET ${NS}/flags/:flagKey/rules`,
    `GET ${NS}/flags/:flagKey/rollouts`,
    `GET ${NS}/changes`,
    `GET ${NS}/export`,
  ],
  edit: [
    `POST ${NS}/flags`,
    `PUT ${NS}/flags/:key`,
    `DELETE ${NS}/flags/:key`,
    `POST ${NS}/flags/:flagKey/variants`,
    `POST ${NS}/flags/:flagKey/rules`,
    `PUT ${NS}/flags/:flagKey/rules/order`,
    `POST ${NS}/flags/:flagKey/rules/:ruleId/distributions`,
    `POST ${NS}/flags/:flagKey/rollouts`,
    `POST ${NS}/segments`,
    `DELETE ${NS}/segments/:key`,
    `POST ${NS}/segments/:segmentKey/constraints`,
  ],
  revert: [`POST ${NS}/changes/:id/revert`],
  import: ['POST /api/v1/import'],
  settings: ['PUT /api/v1/namespaces/:key'],
  // Listing tokens is filtered to the ones the caller administers, not refused: not among these.
  tokens: ['POST /auth/v1/method/token', 'DELETE /auth/v1/tokens/:id'],
  'create-namespace': ['POST /api/v1/namespaces'],
  'delete-namespace': ['DELETE /api/v1/namespaces/:key'],
};

describe("the dashboard's permissions mirror the server's roles", () => {
  let t: TestApp;
  let routes: Map<string, Access | undefined>;
  beforeAll(async () => {
    t = await startTestApp(
      { name: 'sqlite' },
      {
        authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: 'mirror-boot' } } } },
      },
    );
    routes = new Map(declaredRoutes(t.app.http).map((r) => [`${r.method} ${r.url}`, r.access]));
  });
  afterAll(async () => t?.close());

  it.each(Object.entries(CALLS))('%s', (action, calls) => {
    const { role, everywhere } = NEEDS[action as Action];
    for (const call of calls) {
      expect(routes.has(call), `${call} is a route`).toBe(true);
      const access = routes.get(call);
      expect(access, `${call} declares its access`).toBeDefined();
      expect(neededRole(access as Access), call).toEqual({ role, everywhere });
    }
  });

  it('import-drop: an import that drops everything needs its role on every namespace', () => {
    const { role, everywhere } = NEEDS['import-drop'];
    // The import route decides this once the documents are read (api/http/routes/import-export.ts).
    expect(neededRole({ resource: 'document', action: 'import', namespace: 'all' })).toEqual({ role, everywhere });
  });

  it('role-bindings: managed by admins', () => {
    const { role, everywhere } = NEEDS['role-bindings'];
    expect(neededRole({ resource: 'role-binding', action: 'create', namespace: 'none' })).toEqual({
      role,
      everywhere,
    });
  });
});
