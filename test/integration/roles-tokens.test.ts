// Tokens with roles (issue 41) over REST and gRPC on every backend: made with roles, shown with them,
// held to them; the roles asked for are checked (400) and stay within the creator's (403, nothing
// made); lists are filtered by role, never refused; anyone with roles may sign out. The full
// role × entry point matrix is roles-matrix.test.ts; this file holds the token rules and the rows a
// matrix cannot show (what a filtered list holds, what stays stored).

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RoleBinding } from '../../src/domain/roles.js';
import { bearer, call, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import type { FliptGrpc } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';

const BOOT = 'roles-bootstrap-token';
const TOKENS = 'flipt.auth.AuthenticationMethodTokenService';
const AUTH = 'flipt.auth.AuthenticationService';

describeEachBackend('tokens with roles', (backend) => {
  let t: TestApp;
  let grpc: FliptGrpc;
  const token: Record<string, string> = {};

  const make = async (roles: RoleBinding[] | undefined, by = BOOT, extra: object = {}) =>
    call(t.app, 'POST', '/auth/v1/method/token', { name: 'r', ...(roles ? { roles } : {}), ...extra }, bearer(by));
  const tokenCount = async () =>
    Number(
      (
        await t.app.db.kysely
          .selectFrom('authentications')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    ({ t, grpc } = await startListeningApp(backend, {
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    }));
    for (const key of ['team', 'other']) {
      await call(t.app, 'POST', '/api/v1/namespaces', { key, name: key }, bearer(BOOT));
      await call(
        t.app,
        'POST',
        `/api/v1/namespaces/${key}/flags`,
        { key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE', enabled: true },
        bearer(BOOT),
      );
    }
    for (const role of ['client', 'viewer', 'editor', 'admin'] as const) {
      const made = await make([{ role, namespace: 'team' }]);
      expect(made.status).toBe(200);
      token[role] = made.body.clientToken;
    }
    token.adminEverywhere = (await make([{ role: 'admin', namespace: '*' }])).body.clientToken;
  });
  afterAll(async () => t?.close());

  it('shows a token its roles, over REST and gRPC, and stores them with it', async () => {
    const made = await make([
      { role: 'viewer', namespace: 'team' },
      { role: 'client', namespace: 'other' },
    ]);
    expect(made.body.authentication.roles).toEqual([
      { role: 'viewer', namespace: 'team' },
      { role: 'client', namespace: 'other' },
    ]);
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(made.body.clientToken));
    expect(self.body).toEqual(made.body.authentication);
    const overGrpc = await grpc.call(AUTH, 'GetAuthenticationSelf', {}, { token: made.body.clientToken });
    expect((overGrpc.response as { roles: RoleBinding[] }).roles).toEqual(made.body.authentication.roles);
    const viaGrpc = await grpc.call(
      TOKENS,
      'CreateToken',
      { name: 'g', roles: [{ role: 'editor', namespace: 'team' }] },
      { token: BOOT },
    );
    const created = viaGrpc.response as { authentication: { id: string; roles: RoleBinding[] } };
    expect(created.authentication.roles).toEqual([{ role: 'editor', namespace: 'team' }]);
    const read = await call(t.app, 'GET', `/auth/v1/tokens/${created.authentication.id}`, undefined, bearer(BOOT));
    expect(read.body.roles).toEqual([{ role: 'editor', namespace: 'team' }]);
    // A token without roles shows none: Flipt's answer, unchanged.
    expect((await make(undefined)).body.authentication).not.toHaveProperty('roles');
  });

  it('holds a token to its roles: a viewer reads, and its write is refused naming the role', async () => {
    expect(
      (await call(t.app, 'GET', '/api/v1/namespaces/team/flags/f', undefined, bearer(token.viewer as string))).status,
    ).toBe(200);
    const write = await call(
      t.app,
      'PUT',
      '/api/v1/namespaces/team/flags/f',
      { name: 'changed', enabled: false },
      bearer(token.viewer as string),
    );
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      code: 7,
      message: 'request was not authorized: role "editor" on namespace "team" is required',
      details: [],
    });
    const flag = await call(t.app, 'GET', '/api/v1/namespaces/team/flags/f', undefined, bearer(BOOT));
    expect(flag.body.name).toBe('f');
    // Decided before validation: a bad body from a viewer is still 403.
    expect(
      (await call(t.app, 'POST', '/api/v1/namespaces/team/flags', { key: '' }, bearer(token.viewer as string))).status,
    ).toBe(403);
    const overGrpc = await grpc.error(
      'flipt.Flipt',
      'UpdateFlag',
      { namespaceKey: 'team', key: 'f', name: 'x' },
      { token: token.viewer as string },
    );
    expect(overGrpc.code).toBe(7);
    expect(overGrpc.details).toBe('request was not authorized: role "editor" on namespace "team" is required');
    // A client evaluates but does not read.
    const evaluated = await call(
      t.app,
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'team', flagKey: 'f', entityId: 'e' },
      bearer(token.client as string),
    );
    expect(evaluated.status).toBe(200);
    expect(evaluated.body.enabled).toBe(true);
    expect(
      (
        await call(
          t.app,
          'POST',
          '/evaluate/v1/boolean',
          { namespaceKey: 'other', flagKey: 'f', entityId: 'e' },
          bearer(token.client as string),
        )
      ).status,
    ).toBe(403);
    expect(
      (await call(t.app, 'GET', '/api/v1/namespaces/team/flags', undefined, bearer(token.client as string))).status,
    ).toBe(403);
  });

  it('checks the roles asked for (400) and stores nothing', async () => {
    const before = await tokenCount();
    const rows: [object, string][] = [
      [{ roles: [{ role: 'Admin', namespace: 'team' }] }, 'invalid role "Admin": one of client, viewer, editor, admin'],
      [
        { roles: [{ role: 'viewer', namespace: 'no such key!' }] },
        'invalid role namespace "no such key!": a namespace key or *',
      ],
      [
        { namespaceKey: 'team', roles: [{ role: 'viewer', namespace: 'other' }] },
        'role namespace "other" is outside the token\'s namespace "team"',
      ],
      [
        { namespaceKey: 'team', roles: [{ role: 'viewer', namespace: '*' }] },
        'role namespace "*" is outside the token\'s namespace "team"',
      ],
    ];
    for (const [body, message] of rows) {
      const answer = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'bad', ...body }, bearer(BOOT));
      expect({ body, status: answer.status, message: answer.body.message }).toEqual({ body, status: 400, message });
      const overGrpc = await grpc.error(TOKENS, 'CreateToken', { name: 'bad', ...body }, { token: BOOT });
      expect({ body, code: overGrpc.code, details: overGrpc.details }).toEqual({ body, code: 3, details: message });
    }
    expect(await tokenCount()).toBe(before);
  });

  it('refuses escalation (403) and makes nothing', async () => {
    const before = await tokenCount();
    const rows: [string, string, object, string][] = [
      [
        'a viewer makes an admin token',
        'viewer',
        { roles: [{ role: 'admin', namespace: 'team' }] },
        'role "admin" on namespace "team"',
      ],
      [
        'a client makes a client token',
        'client',
        { roles: [{ role: 'client', namespace: 'team' }] },
        'role "admin" on namespace "team"',
      ],
      [
        'an editor makes a client token',
        'editor',
        { roles: [{ role: 'client', namespace: 'team' }] },
        'role "admin" on namespace "team"',
      ],
      [
        'an admin of team reaches other',
        'admin',
        { roles: [{ role: 'client', namespace: 'other' }] },
        'role "client" on namespace "other"',
      ],
      [
        'an admin of team grants on *',
        'admin',
        { roles: [{ role: 'viewer', namespace: '*' }] },
        'role "viewer" on every namespace (*)',
      ],
      ['an admin of team makes an unscoped token without roles', 'admin', {}, 'role "admin" on every namespace (*)'],
      [
        'an admin of team makes an other-scoped token without roles',
        'admin',
        { namespaceKey: 'other' },
        'role "admin" on namespace "other"',
      ],
    ];
    for (const [name, who, body, needed] of rows) {
      const answer = await call(
        t.app,
        'POST',
        '/auth/v1/method/token',
        { name, ...body },
        bearer(token[who] as string),
      );
      expect({ name, status: answer.status, message: answer.body.message }).toEqual({
        name,
        status: 403,
        message: `request was not authorized: ${needed} is required`,
      });
      const overGrpc = await grpc.error(TOKENS, 'CreateToken', { name, ...body }, { token: token[who] as string });
      expect({ name, code: overGrpc.code }).toEqual({ name, code: 7 });
    }
    expect(await tokenCount()).toBe(before);
    // What is within: an admin of team makes a client token for team, and a team-scoped token without roles.
    const client = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'ok', roles: [{ role: 'client', namespace: 'team' }] },
      bearer(token.admin as string),
    );
    expect(client.status).toBe(200);
    const scoped = await call(
      t.app,
      'POST',
      '/auth/v1/method/token',
      { name: 'ok', namespaceKey: 'team' },
      bearer(token.admin as string),
    );
    expect(scoped.status).toBe(200);
    // Token metadata grants nothing: a scoped key in metadata does not widen or narrow the roles.
    const withMetadata = await make([{ role: 'client', namespace: 'team' }], BOOT, {
      metadata: { 'io.flipt.auth.role': 'admin' },
    });
    expect(
      (await call(t.app, 'GET', '/api/v1/namespaces/team/flags', undefined, bearer(withMetadata.body.clientToken)))
        .status,
    ).toBe(403);
  });

  it('filters lists by role, never refuses them', async () => {
    const keys = async (who: string) =>
      (await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(who))).body.namespaces.map(
        (n: { key: string }) => n.key,
      );
    expect(await keys(token.viewer as string)).toEqual(['team']);
    expect((await keys(token.adminEverywhere as string)).sort()).toEqual(['default', 'other', 'team']);
    const overGrpc = await grpc.call('flipt.Flipt', 'ListNamespaces', {}, { token: token.editor as string });
    expect((overGrpc.response as { namespaces: { key: string }[] }).namespaces.map((n) => n.key)).toEqual(['team']);
    // Tokens: an admin of team sees the tokens that reach team only, never the bootstrap token.
    const listed = await call(t.app, 'GET', '/auth/v1/tokens?limit=100', undefined, bearer(token.admin as string));
    expect(listed.status).toBe(200);
    const reaches = listed.body.authentications.map(
      (a: { roles?: RoleBinding[]; metadata: Record<string, string> }) =>
        a.metadata['io.flipt.auth.token.namespace'] ?? a.roles?.map((r) => r.namespace).join(','),
    );
    expect(reaches.length).toBeGreaterThan(3);
    expect(new Set(reaches)).toEqual(new Set(['team']));
    // Reading or deleting a token one does not administer is refused; nothing deleted.
    const boot = (await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(BOOT))).body.id;
    expect((await call(t.app, 'GET', `/auth/v1/tokens/${boot}`, undefined, bearer(token.admin as string))).status).toBe(
      403,
    );
    expect(
      (await call(t.app, 'DELETE', `/auth/v1/tokens/${boot}`, undefined, bearer(token.admin as string))).status,
    ).toBe(403);
    expect((await grpc.error(AUTH, 'DeleteAuthentication', { id: boot }, { token: token.admin as string })).code).toBe(
      7,
    );
    expect((await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(BOOT))).status).toBe(200);
    // A client may read no namespace: its list is empty, not refused.
    const none = await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(token.client as string));
    expect({ status: none.status, keys: none.body.namespaces, total: none.body.totalCount }).toEqual({
      status: 200,
      keys: [],
      total: 0,
    });
  });

  it('asks admin on every namespace of an import or a revert that makes or unmakes a namespace', async () => {
    const editorEverywhere = (await make([{ role: 'editor', namespace: '*' }])).body.clientToken;
    const importAs = (who: string, namespace: string) =>
      t.app.http.inject({
        method: 'POST',
        url: `/api/v1/import?namespace_key=${namespace}`,
        headers: { ...bearer(who), 'content-type': 'application/x-yaml' },
        payload: `version: "1.4"\nnamespace: ${namespace}\nflags:\n  - key: imported\n    name: imported\n    type: BOOLEAN_FLAG_TYPE\n`,
      });
    const refused = await importAs(editorEverywhere, 'brand-new');
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).message).toBe(
      'request was not authorized: role "admin" on every namespace (*) is required',
    );
    expect((await call(t.app, 'GET', '/api/v1/namespaces/brand-new', undefined, bearer(BOOT))).status).toBe(404);
    expect((await importAs(editorEverywhere, 'team')).statusCode).toBe(200);

    // A namespace deleted, then its deletion reverted: making a namespace again.
    await call(t.app, 'POST', '/api/v1/namespaces', { key: 'gone', name: 'gone' }, bearer(BOOT));
    await call(t.app, 'DELETE', '/api/v1/namespaces/gone', undefined, bearer(BOOT));
    const changes = await call(t.app, 'GET', '/api/v1/namespaces/gone/changes', undefined, bearer(BOOT));
    const deletion = changes.body.changes.find(
      (c: { resourceType: string; action: string }) => c.resourceType === 'namespace' && c.action === 'deleted',
    );
    const revert = (who: string) =>
      call(t.app, 'POST', `/api/v1/namespaces/gone/changes/${deletion.id}/revert`, {}, bearer(who));
    const notAllowed = await revert(editorEverywhere);
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body.message).toContain('role "admin" on every namespace (*)');
    expect((await call(t.app, 'GET', '/api/v1/namespaces/gone', undefined, bearer(BOOT))).status).toBe(404);
    expect((await revert(token.adminEverywhere as string)).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/namespaces/gone', undefined, bearer(BOOT))).status).toBe(200);
  });

  it('lets anyone with roles sign out, and no one but admins everywhere drop everything', async () => {
    const viewer = (await make([{ role: 'viewer', namespace: 'team' }])).body.clientToken;
    expect((await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, bearer(viewer))).status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(viewer))).status).toBe(401);
    const drop = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/import?namespace_key=team&drop=true',
      headers: { ...bearer(token.admin as string), 'content-type': 'application/x-yaml' },
      payload: 'version: "1.4"\nnamespace: team\nflags: []\n',
    });
    expect(drop.statusCode).toBe(403);
    expect(JSON.parse(drop.body).message).toContain('role "admin" on every namespace (*)');
    expect((await call(t.app, 'GET', '/api/v1/namespaces/other/flags/f', undefined, bearer(BOOT))).status).toBe(200);
  });

  it('binds a namespace whose key holds a comma (Flipt allows them) and holds the token to it', async () => {
    const key = 'team,comma';
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key, name: key }, bearer(BOOT))).status).toBe(200);
    const flag = { key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
    expect((await call(t.app, 'POST', `/api/v1/namespaces/${key}/flags`, flag, bearer(BOOT))).status).toBe(200);
    const made = await make([{ role: 'editor', namespace: key }]);
    expect(made.status).toBe(200);
    expect(made.body.authentication.roles).toEqual([{ role: 'editor', namespace: key }]);
    const editor = made.body.clientToken as string;
    const edit = { name: 'renamed', enabled: true };
    expect((await call(t.app, 'PUT', `/api/v1/namespaces/${key}/flags/f`, edit, bearer(editor))).status).toBe(200);
    expect((await call(t.app, 'PUT', '/api/v1/namespaces/team/flags/f', edit, bearer(editor))).status).toBe(403);
    const overGrpc = await grpc.call(
      TOKENS,
      'CreateToken',
      { name: 'g', roles: [{ role: 'viewer', namespace: key }] },
      { token: BOOT },
    );
    expect((overGrpc.response as { authentication: { roles: RoleBinding[] } }).authentication.roles).toEqual([
      { role: 'viewer', namespace: key },
    ]);
  });
});
