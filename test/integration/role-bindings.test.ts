// Role bindings stored through the API (issue 41, ADR 47) on every backend: made, listed, read and
// deleted over REST by admins; every bad body a 400 that stores nothing; every grant beyond the caller's
// own refused with 403 naming the role, and nothing changed; a person signed in by JWT gets the role a
// stored binding gives and loses it when the binding goes; the changes are in the history and reach the
// audit webhook; without `authorization.roles` a create is FAILED_PRECONDITION.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { Receiver, waitFor } from '../helpers/audit.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, timestampJson } from '../helpers/flipt-grpc.js';

const BOOT = 'role-bindings-bootstrap-token';
const BINDINGS = '/api/v1/roles/bindings';
const EMAIL = 'io.flipt.auth.email';

let keyDir: string;
let keyFile: string;
let privateKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  keyDir = mkdtempSync(join(tmpdir(), 'vexil-bindings-'));
  keyFile = join(keyDir, 'jwt.pem');
  writeFileSync(keyFile, await exportSPKI(pair.publicKey));
});
afterAll(() => rmSync(keyDir, { recursive: true, force: true }));

/** A JWT for a person whose `io.flipt.auth.role` claim says `team` (kept as that metadata key). */
async function personJwt(team: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'ci-robot', 'io.flipt.auth.role': team, iat: now, exp: now + 600 })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(privateKey);
}

const binding = (namespace: string, role = 'editor', pattern = '*@corp.test') => ({
  match: { metadata: EMAIL, pattern },
  role,
  namespace,
});

/** The config every backend's app here runs with; `roles: false` leaves `authorization.roles` out. */
function configFor(receiverUrl: string, roles = true) {
  return {
    server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
    authentication: {
      required: true,
      methods: {
        token: { enabled: true, bootstrap: { token: BOOT } },
        jwt: { enabled: true, public_key_file: keyFile, validate_claims: { subject: 'ci-robot' } },
      },
    },
    ...(roles ? { authorization: { roles: { default: 'none', rules: [] } } } : {}),
    audit: { sinks: { webhook: { enabled: true, url: receiverUrl, max_backoff_duration: '200ms' } } },
  };
}

describeEachBackend('role bindings over REST', (backend) => {
  let t: TestApp;
  let receiver: Receiver;
  let grpc: FliptGrpc;
  const tokens: Record<string, string> = {};
  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown) =>
    call(t.app, method, url, body, token.includes('.') ? { authorization: `JWT ${token}` } : bearer(token));
  /** Every stored binding, as the bootstrap token (admin of everything) lists them. */
  const stored = async () => (await api('GET', BINDINGS, BOOT)).body.bindings as { id: string; namespace: string }[];

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    t = await startTestApp(backend, configFor(receiver.url));
    grpc = new FliptGrpc((await t.app.listen()).grpcPort);
    for (const key of ['staging', 'production']) {
      expect((await api('POST', '/api/v1/namespaces', BOOT, { key, name: key })).status).toBe(200);
    }
    const made: [string, unknown][] = [
      ['adminStaging', [{ role: 'admin', namespace: 'staging' }]],
      ['adminAll', [{ role: 'admin', namespace: '*' }]],
      ['editorStaging', [{ role: 'editor', namespace: 'staging' }]],
      ['viewerStaging', [{ role: 'viewer', namespace: 'staging' }]],
    ];
    for (const [name, roles] of made) {
      const res = await api('POST', '/auth/v1/method/token', BOOT, { name, description: name, roles });
      expect(res.status).toBe(200);
      tokens[name] = res.body.clientToken;
    }
    const scoped = await api('POST', '/auth/v1/method/token', BOOT, {
      name: 's',
      description: 's',
      namespaceKey: 'staging',
    });
    tokens.legacyScoped = scoped.body.clientToken;
  }, 60_000);
  afterAll(async () => {
    grpc?.close();
    await t?.close();
    await receiver?.stop();
  });

  it('an admin of a namespace makes, lists, reads and deletes a binding there', async () => {
    const admin = tokens.adminStaging as string;
    const made = await api('POST', BINDINGS, admin, binding('staging'));
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ ...binding('staging'), id: expect.any(String), createdAt: expect.any(String) });
    const id = made.body.id as string;
    expect((await api('GET', BINDINGS, admin)).body.bindings.map((b: { id: string }) => b.id)).toContain(id);
    expect((await api('GET', `${BINDINGS}/${id}`, admin)).body).toEqual(made.body);
    expect((await api('DELETE', `${BINDINGS}/${id}`, admin)).status).toBe(200);
    const gone = await api('GET', `${BINDINGS}/${id}`, admin);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 5, message: `role binding "${id}" not found`, details: [] });
    expect((await api('DELETE', `${BINDINGS}/${id}`, admin)).status).toBe(404);
  });

  it('lists only the bindings the caller administers: * ones to admins on * alone', async () => {
    const all = tokens.adminAll as string;
    const ids: Record<string, string> = {};
    for (const ns of ['staging', 'production', '*']) {
      const res = await api('POST', BINDINGS, all, binding(ns, 'viewer', `list-${ns}@corp.test`));
      expect(res.status).toBe(200);
      ids[ns] = res.body.id;
    }
    const seenBy = async (token: string) =>
      (await api('GET', BINDINGS, token)).body.bindings.map((b: { id: string }) => b.id) as string[];
    expect(await seenBy(all)).toEqual(expect.arrayContaining(Object.values(ids)));
    const staging = await seenBy(tokens.adminStaging as string);
    expect(staging).toContain(ids.staging);
    expect(staging).not.toContain(ids.production);
    expect(staging).not.toContain(ids['*']);
    for (const id of Object.values(ids)) expect((await api('DELETE', `${BINDINGS}/${id}`, all)).status).toBe(200);
  });

  const BAD: [string, unknown, RegExp][] = [
    ['no match', { role: 'viewer', namespace: 'staging' }, /match/],
    ['no pattern', { match: { metadata: EMAIL }, role: 'viewer', namespace: 'staging' }, /pattern/],
    ['an empty pattern', { match: { metadata: EMAIL, pattern: '' }, role: 'viewer', namespace: 'staging' }, /pattern/],
    [
      'both metadata and claim',
      { match: { metadata: EMAIL, claim: 'groups', pattern: 'x' }, role: 'viewer', namespace: 'staging' },
      /match: name exactly one of metadata or claim/,
    ],
    [
      'neither metadata nor claim',
      { match: { pattern: 'x' }, role: 'viewer', namespace: 'staging' },
      /match: name exactly one of metadata or claim/,
    ],
    ['an unknown role', binding('staging', 'owner'), /role "owner" is not one of client, viewer, editor, admin/],
    ['a bad namespace key', binding('not a key'), /namespace: "not a key" is neither a namespace key nor \*/],
    [
      'an unknown method',
      { ...binding('staging'), match: { method: 'METHOD_LDAP', metadata: EMAIL, pattern: 'x' } },
      /match.method "METHOD_LDAP" is not one of/,
    ],
    [
      'the token method',
      { ...binding('staging'), match: { method: 'METHOD_TOKEN', metadata: EMAIL, pattern: 'x' } },
      /METHOD_TOKEN never applies: tokens carry their own roles/,
    ],
    ['a pattern too long', binding('staging', 'viewer', 'x'.repeat(256)), /match.pattern is longer than 255/],
  ];
  it.each(BAD)('refuses a body with %s: 400, nothing stored', async (_name, body, message) => {
    const before = await stored();
    const res = await api('POST', BINDINGS, tokens.adminAll as string, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 3, message: expect.stringMatching(message), details: [] });
    expect(await stored()).toEqual(before);
  });

  it('refuses an identical binding twice', async () => {
    const all = tokens.adminAll as string;
    const first = await api('POST', BINDINGS, all, binding('staging', 'client', 'twice@corp.test'));
    expect(first.status).toBe(200);
    const again = await api('POST', BINDINGS, all, binding('staging', 'client', 'twice@corp.test'));
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('an identical role binding exists');
    await api('DELETE', `${BINDINGS}/${first.body.id}`, all);
  });

  const ESCALATIONS: [string, string, () => { method: 'POST' | 'DELETE' | 'GET'; body?: unknown }, RegExp][] = [
    [
      'an admin of staging granting on production',
      'adminStaging',
      () => ({ method: 'POST', body: binding('production', 'viewer') }),
      /role "admin" on namespace "production" is required/,
    ],
    [
      'an admin of staging granting on *',
      'adminStaging',
      () => ({ method: 'POST', body: binding('*', 'client') }),
      /role "admin" on every namespace \(\*\) is required/,
    ],
    [
      'an admin of staging with a bad body granting on production',
      'adminStaging',
      () => ({ method: 'POST', body: { ...binding('production'), role: 'owner' } }),
      /role "admin" on namespace "production" is required/,
    ],
    [
      'an admin of staging naming staging as namespaceKey while granting on production',
      'adminStaging',
      () => ({ method: 'POST', body: { ...binding('production'), namespaceKey: 'staging' } }),
      /role "admin" on namespace "production" is required/,
    ],
    [
      'an editor creating a binding',
      'editorStaging',
      () => ({ method: 'POST', body: binding('staging', 'viewer') }),
      /"admin"/,
    ],
    [
      'a viewer creating a binding',
      'viewerStaging',
      () => ({ method: 'POST', body: binding('staging', 'client') }),
      /"admin"/,
    ],
    ['a viewer deleting a binding', 'viewerStaging', () => ({ method: 'DELETE' }), /"admin"/],
    ['an editor deleting a binding', 'editorStaging', () => ({ method: 'DELETE' }), /"admin"/],
    ['an admin of staging deleting a production binding', 'adminStaging', () => ({ method: 'DELETE' }), /"production"/],
    ['an admin of staging reading a production binding', 'adminStaging', () => ({ method: 'GET' }), /"production"/],
    [
      'a token scoped to staging without roles',
      'legacyScoped',
      () => ({ method: 'POST', body: binding('staging') }),
      /./,
    ],
  ];
  it.each(ESCALATIONS)('refuses %s: 403, nothing changed', async (_name, who, request, message) => {
    const target = await api(
      'POST',
      BINDINGS,
      tokens.adminAll as string,
      binding('production', 'viewer', 'target@corp.test'),
    );
    expect(target.status).toBe(200);
    const before = await stored();
    const { method, body } = request();
    const url = method === 'POST' ? BINDINGS : `${BINDINGS}/${target.body.id}`;
    const res = await api(method, url, tokens[who] as string, body);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 7, message: expect.stringMatching(message), details: [] });
    expect(await stored()).toEqual(before);
    await api('DELETE', `${BINDINGS}/${target.body.id}`, tokens.adminAll as string);
  });

  it('serves the same over gRPC (vexil.roles.v1.RoleBindingService), refusals included', async () => {
    const service = 'vexil.roles.v1.RoleBindingService';
    const as = (who: string) => ({ token: tokens[who] as string });
    const match = { metadata: EMAIL, pattern: 'grpc@corp.test' };
    const made = await grpc.call(
      service,
      'CreateRoleBinding',
      { match, role: 'viewer', namespace: 'staging' },
      as('adminStaging'),
    );
    const binding = made.response;
    expect(binding).toMatchObject({ match: { ...match, method: '', claim: '' }, role: 'viewer', namespace: 'staging' });
    expect(timestampJson(binding.createdAt)).toEqual(expect.any(String));
    const rest = (await api('GET', `${BINDINGS}/${binding.id}`, BOOT)).body;
    expect(rest).toMatchObject({ id: binding.id, match, role: 'viewer', namespace: 'staging' });
    const listed = (await grpc.call(service, 'ListRoleBindings', {}, as('adminStaging'))).response.bindings;
    expect(listed.map((b: { id: string }) => b.id)).toContain(binding.id);
    expect((await grpc.call(service, 'GetRoleBinding', { id: binding.id }, as('adminStaging'))).response.id).toBe(
      binding.id,
    );

    const before = await stored();
    const refused: [string, string, unknown, number, RegExp][] = [
      [
        'adminStaging',
        'CreateRoleBinding',
        { match, role: 'viewer', namespace: 'production' },
        7,
        /role "admin" on namespace "production"/,
      ],
      ['adminStaging', 'CreateRoleBinding', { match, role: 'client', namespace: '' }, 7, /every namespace \(\*\)/],
      ['editorStaging', 'CreateRoleBinding', { match, role: 'viewer', namespace: 'staging' }, 7, /"admin"/],
      ['viewerStaging', 'DeleteRoleBinding', { id: binding.id }, 7, /"admin"/],
      ['legacyScoped', 'CreateRoleBinding', { match, role: 'viewer', namespace: 'staging' }, 7, /./],
      [
        'adminAll',
        'CreateRoleBinding',
        { match: { metadata: EMAIL, claim: 'groups', pattern: 'x' }, role: 'viewer', namespace: 'staging' },
        3,
        /exactly one of metadata or claim/,
      ],
      ['adminAll', 'CreateRoleBinding', { match, role: 'owner', namespace: 'staging' }, 3, /role "owner"/],
      ['adminAll', 'GetRoleBinding', { id: 'nope' }, 5, /not found/],
    ];
    for (const [who, method, request, code, message] of refused) {
      const err = await grpc.error(service, method, request, as(who));
      expect([who, method, err.code]).toEqual([who, method, code]);
      expect(err.details).toMatch(message);
    }
    expect(await stored()).toEqual(before);
    await grpc.call(service, 'DeleteRoleBinding', { id: binding.id }, as('adminStaging'));
    expect((await api('GET', `${BINDINGS}/${binding.id}`, BOOT)).status).toBe(404);
  });

  it('gives a person signed in by JWT the role a stored binding gives, and takes it away with it', async () => {
    const person = await personJwt('flag-editors');
    const flag = (ns: string, key: string) =>
      api('POST', `/api/v1/namespaces/${ns}/flags`, person, { key, name: key, type: 'BOOLEAN_FLAG_TYPE' });
    const before = await flag('staging', 'jwt-before');
    expect(before.status).toBe(403);
    expect(before.body.message).toMatch(/role "editor" on namespace "staging" is required/);
    const made = await api('POST', BINDINGS, tokens.adminStaging as string, {
      match: { method: 'METHOD_JWT', metadata: 'io.flipt.auth.role', pattern: 'flag-*' },
      role: 'editor',
      namespace: 'staging',
    });
    expect(made.status).toBe(200);
    expect((await flag('staging', 'jwt-during')).status).toBe(200);
    expect((await flag('production', 'jwt-during')).status).toBe(403);
    expect((await api('GET', '/auth/v1/self', person)).body.roles).toEqual([{ role: 'editor', namespace: 'staging' }]);
    expect((await flag('staging', 'jwt-other')).status).toBe(200);
    expect(
      (
        await api('POST', `/api/v1/namespaces/staging/flags`, await personJwt('ops'), {
          key: 'x',
          name: 'x',
          type: 'BOOLEAN_FLAG_TYPE',
        })
      ).status,
    ).toBe(403);
    expect((await api('DELETE', `${BINDINGS}/${made.body.id}`, tokens.adminStaging as string)).status).toBe(200);
    const after = await flag('staging', 'jwt-after');
    expect(after.status).toBe(403);
  });

  it('records every create and delete in the history, and history cannot revert them', async () => {
    const all = tokens.adminAll as string;
    const onStaging = await api('POST', BINDINGS, all, binding('staging', 'viewer', 'history@corp.test'));
    const everywhere = await api('POST', BINDINGS, all, binding('*', 'client', 'history@corp.test'));
    await api('DELETE', `${BINDINGS}/${onStaging.body.id}`, all);
    const changes = (await api('GET', '/api/v1/changes?type=role_binding&limit=100', BOOT)).body.changes as {
      id: string;
      resourceKey: string;
      action: string;
      namespaceKey?: string;
      after?: unknown;
    }[];
    const of = (id: string) => changes.filter((c) => c.resourceKey === id).map((c) => [c.action, c.namespaceKey]);
    expect(of(onStaging.body.id)).toEqual([
      ['deleted', 'staging'],
      ['created', 'staging'],
    ]);
    expect(of(everywhere.body.id)).toEqual([['created', undefined]]);
    const inStaging = (await api('GET', '/api/v1/namespaces/staging/changes?type=role_binding&limit=100', BOOT)).body;
    expect(inStaging.changes.map((c: { resourceKey: string }) => c.resourceKey)).toContain(onStaging.body.id);
    // A viewer of staging sees staging's binding changes only (the history's namespace filter).
    const viewer = (await api('GET', '/api/v1/changes?type=role_binding&limit=100', tokens.viewerStaging as string))
      .body;
    expect(viewer.changes.every((c: { namespaceKey?: string }) => c.namespaceKey === 'staging')).toBe(true);
    // Reverting the delete would bring the binding back without the grant checks: refused.
    const deleted = changes.find((c) => c.resourceKey === onStaging.body.id && c.action === 'deleted');
    const before = await stored();
    const revert = await api('POST', `/api/v1/namespaces/staging/changes/${deleted?.id}/revert`, BOOT, {});
    expect(revert.status).toBe(400);
    expect(revert.body).toMatchObject({ code: 9, message: 'a role_binding change cannot be reverted' });
    expect(await stored()).toEqual(before);
    await api('DELETE', `${BINDINGS}/${everywhere.body.id}`, all);
  });

  it('sends the audit webhook an event for each create and delete', async () => {
    const made = await api(
      'POST',
      BINDINGS,
      tokens.adminAll as string,
      binding('staging', 'viewer', 'audit@corp.test'),
    );
    await api('DELETE', `${BINDINGS}/${made.body.id}`, tokens.adminAll as string);
    const events = () =>
      receiver.received.map((r) => r.json).filter((e) => e?.type === 'role_binding' && e.payload?.id === made.body.id);
    await waitFor('the role binding events', () => events().length === 2, 20_000);
    expect(events()).toMatchObject([
      {
        type: 'role_binding',
        action: 'created',
        metadata: { actor: { authentication: 'token' } },
        payload: {
          id: made.body.id,
          match: { metadata: EMAIL, pattern: 'audit@corp.test' },
          role: 'viewer',
          namespace_key: 'staging',
        },
      },
      { type: 'role_binding', action: 'deleted', payload: { id: made.body.id, namespace_key: 'staging' } },
    ]);
  });
});

describeEachBackend('role bindings without authorization.roles, management excluded', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    const config = configFor('http://127.0.0.1:9/', false);
    t = await startTestApp(backend, {
      ...config,
      authentication: { ...config.authentication, exclude: { management: true, evaluation: true, ofrep: true } },
    });
  });
  afterAll(async () => t?.close());

  it('answers a create with FAILED_PRECONDITION naming the setting; list works', async () => {
    const res = await call(t.app, 'POST', BINDINGS, binding('staging'), bearer(BOOT));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 9, message: expect.stringMatching(/authorization\.roles/), details: [] });
    const list = await call(t.app, 'GET', BINDINGS, undefined, bearer(BOOT));
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ bindings: [] });
  });

  it('still asks a credential of every call when authentication.exclude opens the management API', async () => {
    expect((await call(t.app, 'GET', '/api/v1/namespaces')).status).toBe(200);
    for (const [method, url] of [
      ['GET', BINDINGS],
      ['POST', BINDINGS],
      ['GET', `${BINDINGS}/x`],
      ['DELETE', `${BINDINGS}/x`],
    ] as const) {
      const res = await call(t.app, method, url, method === 'POST' ? binding('staging') : undefined);
      expect([method, url, res.status]).toEqual([method, url, 401]);
    }
  });
});
