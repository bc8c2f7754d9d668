// People's roles by rule (issue 41, ADR 46) on every backend, over REST and gRPC: a person signed in
// by JWT gets the roles `authorization.roles.rules` give its claims (Flipt's `io.flipt.auth.role`
// claim, a `user` claim, a pattern), or the default when none matches; without `authorization.roles`
// a person keeps full access, as before. Token metadata is not a person's: a token's own roles decide.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import type { FliptGrpc } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';

const BOOT = 'roles-people-bootstrap';
let privateKey: CryptoKey;
let keyFile: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  keyFile = join(mkdtempSync(join(tmpdir(), 'vexil-roles-')), 'key.pem');
  writeFileSync(keyFile, await exportSPKI(pair.publicKey));
});

const now = () => Math.floor(Date.now() / 1000);
const person = (claims: JWTPayload) =>
  new SignJWT({ sub: 'someone', iat: now(), exp: now() + 600, ...claims })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(privateKey);

const RULES = [
  // Flipt's own claim for a user's role, as its example policies read it.
  { match: { metadata: 'io.flipt.auth.role', pattern: 'admin' }, role: 'admin', namespace: '*' },
  { match: { metadata: 'io.flipt.auth.role', pattern: 'editor' }, role: 'editor', namespace: 'team' },
  // An email domain, from the `user` claim the JWT method maps.
  {
    match: { method: 'METHOD_JWT', metadata: 'io.flipt.auth.jwt.email', pattern: '*@viewers.test' },
    role: 'viewer',
    namespace: 'team',
  },
];

async function start(backend: Parameters<typeof startListeningApp>[0], roles?: object) {
  return startListeningApp(backend, {
    authentication: {
      required: true,
      methods: {
        token: { enabled: true, bootstrap: { token: BOOT } },
        jwt: { enabled: true, public_key_file: keyFile },
      },
    },
    ...(roles ? { authorization: { roles } } : {}),
  });
}

describeEachBackend('people get roles by rule', (backend) => {
  let t: TestApp;
  let grpc: FliptGrpc;
  const jwt = (token: string) => ({ authorization: `JWT ${token}` });

  beforeAll(async () => {
    ({ t, grpc } = await start(backend, { rules: RULES }));
    for (const key of ['team', 'other']) {
      await call(t.app, 'POST', '/api/v1/namespaces', { key, name: key }, bearer(BOOT));
      await call(
        t.app,
        'POST',
        `/api/v1/namespaces/${key}/flags`,
        { key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE' },
        bearer(BOOT),
      );
    }
  });
  afterAll(async () => t?.close());

  it('gives each person the roles its claims match, shown on self', async () => {
    const editor = await person({ 'io.flipt.auth.role': 'editor' });
    const self = await call(t.app, 'GET', '/auth/v1/self', undefined, jwt(editor));
    expect(self.status).toBe(200);
    expect(self.body.roles).toEqual([{ role: 'editor', namespace: 'team' }]);
    expect((await call(t.app, 'PUT', '/api/v1/namespaces/team/flags/f', { name: 'g' }, jwt(editor))).status).toBe(200);
    const elsewhere = await call(t.app, 'PUT', '/api/v1/namespaces/other/flags/f', { name: 'g' }, jwt(editor));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toBe('request was not authorized: role "editor" on namespace "other" is required');
    const overGrpc = await grpc.error(
      'flipt.Flipt',
      'UpdateFlag',
      { namespaceKey: 'other', key: 'f', name: 'g' },
      { metadata: jwt(editor) },
    );
    expect(overGrpc.code).toBe(7);
    // Editors do not change namespace settings.
    expect((await call(t.app, 'PUT', '/api/v1/namespaces/team', { name: 'T' }, jwt(editor))).status).toBe(403);

    const viewer = await person({ user: { email: 'vi@viewers.test' } });
    expect((await call(t.app, 'GET', '/auth/v1/self', undefined, jwt(viewer))).body.roles).toEqual([
      { role: 'viewer', namespace: 'team' },
    ]);
    expect((await call(t.app, 'GET', '/api/v1/namespaces/team/flags', undefined, jwt(viewer))).status).toBe(200);
    const listed = await call(t.app, 'GET', '/api/v1/namespaces', undefined, jwt(viewer));
    expect(listed.body.namespaces.map((n: { key: string }) => n.key)).toEqual(['team']);

    const admin = await person({ 'io.flipt.auth.role': 'admin' });
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: 'made', name: 'm' }, jwt(admin))).status).toBe(200);
  });

  it('gives a person no rule matches the default: none, so only oneself and sign-in', async () => {
    const nobody = await person({ 'io.flipt.auth.role': 'intern', user: { email: 'x@elsewhere.test' } });
    expect((await call(t.app, 'GET', '/auth/v1/self', undefined, jwt(nobody))).body.roles).toEqual([]);
    const evaluated = await call(
      t.app,
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'team', flagKey: 'f', entityId: 'e' },
      jwt(nobody),
    );
    expect(evaluated.status).toBe(403);
    expect(evaluated.body.message).toBe('request was not authorized: role "client" on namespace "team" is required');
    expect(
      (
        await grpc.error(
          'flipt.evaluation.EvaluationService',
          'Boolean',
          { namespaceKey: 'team', flagKey: 'f', entityId: 'e' },
          { metadata: jwt(nobody) },
        )
      ).code,
    ).toBe(7);
    expect((await call(t.app, 'GET', '/auth/v1/method', undefined, jwt(nobody))).status).toBe(200);
  });
});

describe('people roles: default and off', () => {
  it('gives the default role on every namespace to a person no rule matches', async () => {
    const { t } = await start({ name: 'sqlite' }, { default: 'viewer', rules: RULES });
    try {
      const nobody = await person({});
      expect(
        (await call(t.app, 'GET', '/auth/v1/self', undefined, { authorization: `JWT ${nobody}` })).body.roles,
      ).toEqual([{ role: 'viewer', namespace: '*' }]);
      expect(
        (await call(t.app, 'GET', '/api/v1/namespaces/default/flags', undefined, { authorization: `JWT ${nobody}` }))
          .status,
      ).toBe(200);
      expect(
        (
          await call(
            t.app,
            'POST',
            '/api/v1/namespaces/default/flags',
            { key: 'k', name: 'k', type: 'BOOLEAN_FLAG_TYPE' },
            { authorization: `JWT ${nobody}` },
          )
        ).status,
      ).toBe(403);
    } finally {
      await t.close();
    }
  });

  it('leaves people their full access while authorization.roles is not configured', async () => {
    const { t } = await start({ name: 'sqlite' });
    try {
      const nobody = await person({});
      const self = await call(t.app, 'GET', '/auth/v1/self', undefined, { authorization: `JWT ${nobody}` });
      expect(self.body).not.toHaveProperty('roles');
      expect(
        (await call(t.app, 'POST', '/api/v1/namespaces', { key: 'n', name: 'n' }, { authorization: `JWT ${nobody}` }))
          .status,
      ).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses a rule that matches on nothing or on two attributes, naming it', async () => {
    const { loadConfig } = await import('../../src/config/load.js');
    expect(() =>
      loadConfig({ overrides: { authorization: { roles: { rules: [{ match: { pattern: 'x' }, role: 'viewer' }] } } } }),
    ).toThrow('invalid config at authorization.roles.rules[0].match: name exactly one of metadata or claim');
    expect(() =>
      loadConfig({
        overrides: { authorization: { roles: { rules: [{ match: { metadata: 'a', pattern: 'x' }, role: 'owner' }] } } },
      }),
    ).toThrow(/authorization\.roles/);
    expect(() =>
      loadConfig({
        overrides: {
          authorization: {
            roles: { rules: [{ match: { claim: 'groups', pattern: 'x' }, role: 'viewer', namespace: 'a b' }] },
          },
        },
      }),
    ).toThrow('invalid config at authorization.roles.rules[0].namespace: "a b" is neither a namespace key nor *');
  });
});
