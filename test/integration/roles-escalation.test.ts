// Escalation attempts (issue 41), each refused with nothing created or changed: tokens made beyond the
// maker's own roles (a viewer making an admin token, an admin of team making tokens on other or on `*`,
// a client making any token), roles outside a token's namespaceKey and unknown roles (400), a legacy
// token scoped to a namespace (no roles) making token calls, an admin of team reaching the bootstrap
// token, importing with drop or into another namespace; and authorization decided before validation
// (a refused caller learns nothing from a bad body). Both transports, per backend.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import {
  type BootApi,
  bootApi,
  fingerprint,
  INSIDE,
  type Json,
  makeToken,
  OUTSIDE,
  seedNamespace,
} from '../helpers/roles-fixture.js';

const BOOT = 'roles-escalation-boot';
const PERMISSION_DENIED = 7;
const INVALID_ARGUMENT = 3;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describeEachBackend('role escalation is refused and creates nothing', (backend) => {
  let l: ListeningApp;
  let api: BootApi;
  const tokens: Record<string, string> = {};
  let bootId = '';

  beforeAll(async () => {
    l = await startListeningApp(backend, {
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    });
    api = bootApi(l.t.app, BOOT);
    await seedNamespace(api, INSIDE);
    await seedNamespace(api, OUTSIDE);
    for (const role of ['client', 'viewer', 'editor', 'admin'] as const) {
      tokens[role] = (await makeToken(api, [{ role, namespace: INSIDE }])).token;
    }
    const scoped = await api('POST', '/auth/v1/method/token', { name: 'legacy', namespaceKey: INSIDE });
    tokens.legacy = scoped.clientToken;
    bootId = (await api('GET', '/auth/v1/self')).id;
  }, 60_000);
  afterAll(async () => l?.t.close());

  /** Calls as `who` and expects `status` (403 naming `role` when given, or 400) with the database as before. */
  async function refused(who: string, method: Method, url: string, body: unknown, status: 400 | 403, role?: string) {
    const before = await fingerprint(l.t.app);
    const res = await call(l.t.app, method, url, body, bearer(tokens[who] as string));
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ code: status === 403 ? PERMISSION_DENIED : INVALID_ARGUMENT, details: [] });
    if (role !== undefined) expect(res.body.message).toContain(`role "${role}"`);
    expect(await fingerprint(l.t.app)).toBe(before);
    return res.body as Json;
  }

  /** The same over gRPC: the code, and the database as before. */
  async function refusedGrpc(
    who: string,
    service: string,
    method: string,
    message: unknown,
    code: number,
    role?: string,
  ) {
    const before = await fingerprint(l.t.app);
    const err = await l.grpc.error(service, method, message, { token: tokens[who] as string });
    expect(err.code, err.details).toBe(code);
    if (role !== undefined) expect(err.details).toContain(`role "${role}"`);
    expect(await fingerprint(l.t.app)).toBe(before);
  }

  const TOKEN = '/auth/v1/method/token';
  const CREATE_TOKEN = ['flipt.auth.AuthenticationMethodTokenService', 'CreateToken'] as const;

  describe('making tokens beyond one’s own roles', () => {
    it('a viewer making an admin token, or any token, is refused', async () => {
      await refused(
        'viewer',
        'POST',
        TOKEN,
        { name: 'up', roles: [{ role: 'admin', namespace: INSIDE }] },
        403,
        'admin',
      );
      await refused(
        'viewer',
        'POST',
        TOKEN,
        { name: 'same', roles: [{ role: 'viewer', namespace: INSIDE }] },
        403,
        'admin',
      );
      await refusedGrpc(
        'viewer',
        ...CREATE_TOKEN,
        { name: 'up', roles: [{ role: 'admin', namespace: INSIDE }] },
        PERMISSION_DENIED,
        'admin',
      );
    });

    it('a client making a client token is refused', async () => {
      await refused(
        'client',
        'POST',
        TOKEN,
        { name: 'c', roles: [{ role: 'client', namespace: INSIDE }] },
        403,
        'admin',
      );
      await refusedGrpc(
        'client',
        ...CREATE_TOKEN,
        { name: 'c', roles: [{ role: 'client', namespace: INSIDE }] },
        PERMISSION_DENIED,
      );
    });

    it('an admin of team making tokens on other, on *, unscoped or scoped to other is refused', async () => {
      await refused('admin', 'POST', TOKEN, { name: 'o', roles: [{ role: 'viewer', namespace: OUTSIDE }] }, 403);
      await refused('admin', 'POST', TOKEN, { name: 'all', roles: [{ role: 'client', namespace: '*' }] }, 403);
      await refused('admin', 'POST', TOKEN, { name: 'unscoped' }, 403, 'admin');
      await refused('admin', 'POST', TOKEN, { name: 'legacy-other', namespaceKey: OUTSIDE }, 403, 'admin');
      await refusedGrpc(
        'admin',
        ...CREATE_TOKEN,
        { name: 'all', roles: [{ role: 'admin', namespace: '*' }] },
        PERMISSION_DENIED,
      );
      await refusedGrpc('admin', ...CREATE_TOKEN, { name: 'unscoped' }, PERMISSION_DENIED, 'admin');
    });

    it('an admin of team may make a token within its roles (the refusals above are not blanket)', async () => {
      const made = await call(
        l.t.app,
        'POST',
        TOKEN,
        { name: 'ok', roles: [{ role: 'viewer', namespace: INSIDE }] },
        bearer(tokens.admin as string),
      );
      expect(made.status).toBe(200);
      expect(made.body.authentication.roles).toEqual([{ role: 'viewer', namespace: INSIDE }]);
    });
  });

  describe('bad roles are 400', () => {
    it('roles outside the token’s namespaceKey', async () => {
      const outside = { name: 'x', namespaceKey: INSIDE, roles: [{ role: 'viewer', namespace: OUTSIDE }] };
      await refused('admin', 'POST', TOKEN, outside, 400);
      const byBoot = await call(l.t.app, 'POST', TOKEN, outside, bearer(BOOT));
      expect(byBoot.status).toBe(400);
      await refusedGrpc('admin', ...CREATE_TOKEN, outside, INVALID_ARGUMENT);
    });

    it('an unknown role name, and a namespace that is neither a key nor *', async () => {
      await refused('admin', 'POST', TOKEN, { name: 'x', roles: [{ role: 'owner', namespace: INSIDE }] }, 400);
      await refused('admin', 'POST', TOKEN, { name: 'x', roles: [{ role: 'viewer', namespace: 'a b' }] }, 400);
      await refusedGrpc(
        'admin',
        ...CREATE_TOKEN,
        { name: 'x', roles: [{ role: 'owner', namespace: INSIDE }] },
        INVALID_ARGUMENT,
      );
    });
  });

  describe('a legacy token scoped to team (no roles) makes no token calls', () => {
    it('creating, listing, deleting and expiring itself are refused; reading itself and its namespace are not', async () => {
      await refused('legacy', 'POST', TOKEN, { name: 'x', roles: [{ role: 'client', namespace: INSIDE }] }, 403);
      await refused('legacy', 'POST', TOKEN, { name: 'x', namespaceKey: INSIDE }, 403);
      await refused('legacy', 'GET', '/auth/v1/tokens', undefined, 403);
      await refused('legacy', 'DELETE', `/auth/v1/tokens/${bootId}`, undefined, 403);
      await refused('legacy', 'PUT', '/auth/v1/self/expire', {}, 403);
      await refusedGrpc('legacy', ...CREATE_TOKEN, { name: 'x' }, PERMISSION_DENIED);
      await refusedGrpc('legacy', 'flipt.auth.AuthenticationService', 'ListAuthentications', {}, PERMISSION_DENIED);
      await refusedGrpc(
        'legacy',
        'flipt.auth.AuthenticationService',
        'ExpireAuthenticationSelf',
        {},
        PERMISSION_DENIED,
      );
      await refused('legacy', 'GET', `/api/v1/namespaces/${OUTSIDE}/flags`, undefined, 403);
      const own = bearer(tokens.legacy as string);
      expect((await call(l.t.app, 'GET', '/auth/v1/self', undefined, own)).status).toBe(200);
      expect((await call(l.t.app, 'GET', `/api/v1/namespaces/${INSIDE}/flags`, undefined, own)).status).toBe(200);
    });
  });

  describe('an admin of team reaching beyond it', () => {
    it('cannot read or delete the bootstrap token (it reaches every namespace)', async () => {
      await refused('admin', 'GET', `/auth/v1/tokens/${bootId}`, undefined, 403, 'admin');
      await refused('admin', 'DELETE', `/auth/v1/tokens/${bootId}`, undefined, 403, 'admin');
      const auth = 'flipt.auth.AuthenticationService';
      await refusedGrpc('admin', auth, 'GetAuthentication', { id: bootId }, PERMISSION_DENIED, 'admin');
      await refusedGrpc('admin', auth, 'DeleteAuthentication', { id: bootId }, PERMISSION_DENIED, 'admin');
    });

    it('cannot import with drop (admin on * needed), nor import a document of other', async () => {
      const doc = (ns: string) => ({
        version: '1.4',
        namespace: { key: ns },
        flags: [{ key: 'new', name: 'new', type: 'BOOLEAN_FLAG_TYPE' }],
      });
      await refused('admin', 'POST', `/api/v1/import?namespace_key=${INSIDE}&drop=true`, doc(INSIDE), 403, 'admin');
      await refused('editor', 'POST', `/api/v1/import?namespace_key=${INSIDE}`, doc(OUTSIDE), 403, 'editor');
    });

    it('cannot create or delete namespaces (admin on * needed)', async () => {
      await refused('admin', 'POST', '/api/v1/namespaces', { key: 'mine', name: 'mine' }, 403, 'admin');
      await refused('admin', 'DELETE', `/api/v1/namespaces/${INSIDE}`, undefined, 403, 'admin');
      await refusedGrpc('admin', 'flipt.Flipt', 'DeleteNamespace', { key: INSIDE }, PERMISSION_DENIED, 'admin');
    });
  });

  describe('authorization comes before validation', () => {
    it('a viewer sending a bad body is refused, not told what is wrong with it', async () => {
      await refused('viewer', 'POST', `/api/v1/namespaces/${INSIDE}/flags`, { key: '' }, 403, 'editor');
      await refused(
        'viewer',
        'POST',
        TOKEN,
        { name: 'x', roles: [{ role: 'owner', namespace: INSIDE }] },
        403,
        'admin',
      );
      await refusedGrpc('viewer', 'flipt.Flipt', 'CreateFlag', { namespaceKey: INSIDE }, PERMISSION_DENIED, 'editor');
    });
  });
});
