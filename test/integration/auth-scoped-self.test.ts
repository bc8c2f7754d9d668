// A namespace-scoped token may read its own authentication (GET /auth/v1/self, where the dashboard
// learns the token's namespace) and nothing else of the auth service.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const BOOT = 'bootstrap-secret-token';

describeEachBackend('namespace-scoped token reading itself', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    });
  });
  afterAll(async () => t?.close());

  it('answers /auth/v1/self with the namespace, and still refuses the other token endpoints', async () => {
    await call(t.app, 'POST', '/api/v1/namespaces', { key: 'team-a', name: 'A' }, bearer(BOOT));
    const created = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'a-only', namespaceKey: 'team-a' },
      bearer(BOOT),
    );
    const h = bearer(created.body.clientToken);
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, h);
    expect(self.status).toBe(200);
    expect(self.body.metadata['io.flipt.auth.token.namespace']).toBe('team-a');
    expect((await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, h)).status).toBe(403);
    expect((await call(t.app, 'GET', '/auth/v1/tokens', undefined, h)).status).toBe(403);
    expect((await call(t.app, 'GET', `/auth/v1/tokens/${self.body.id}`, undefined, h)).status).toBe(403);
    expect((await call(t.app, 'GET', '/auth/v1/self', undefined, bearer('nope'))).status).toBe(401);
  });
});
