// The JWT method (`authentication.methods.jwt`, issue 40) over HTTP and gRPC on every backend: keys
// made here, a JWKS served on loopback (and, on SQLite, a public key file). Every accepted algorithm
// authenticates and maps its claims to Flipt's metadata keys; every bad token is 401 / UNAUTHENTICATED
// with the reason and stores nothing; a write made with a JWT names the person in the change log; an
// unknown `kid` fetches the key set again, at most once per cooldown; a Bearer token still works beside it.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAuthMethods } from '../../src/app/auth-methods.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type FliptGrpc, messageJson } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';

const BOOT = 'jwt-test-bootstrap-token';
const ISSUER = 'https://issuer.vexil.test';
const AUDIENCE = 'vexil';

type Alg = 'RS256' | 'RS512' | 'ES256' | 'ES512' | 'EdDSA';
interface Key {
  kid: string;
  alg: Alg;
  privateKey: CryptoKey;
  publicJwk: JWK;
  spki: string;
}

async function makeKey(kid: string, alg: Alg): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg };
  return { kid, alg, privateKey, publicJwk, spki: await exportSPKI(publicKey) };
}

const nowS = () => Math.floor(Date.now() / 1000);

/** A token signed by `key` with sensible claims, `claims` overriding them (undefined removes one). */
function sign(key: Key, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const payload: JWTPayload = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'ci-robot',
    iat: nowS(),
    exp: nowS() + 600,
    user: { email: 'ada@example.test', name: 'Ada', image: 'https://pics.test/ada.png', role: 'admin', sub: 'u-1' },
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

/** A JWKS endpoint on loopback that counts its fetches; `keys` may change between requests. */
async function serveJwks(keys: JWK[]): Promise<{ url: string; fetches: () => number; server: Server }> {
  let fetches = 0;
  const server = createServer((_req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/jwks.json`, fetches: () => fetches, server };
}

const keys: Record<string, Key> = {};
let jwks: Awaited<ReturnType<typeof serveJwks>>;
let jwksKeys: JWK[];
let keyDir: string;

beforeAll(async () => {
  for (const [kid, alg] of [
    ['rsa256', 'RS256'],
    ['rsa512', 'RS512'],
    ['ec256', 'ES256'],
    ['ec512', 'ES512'],
    ['ed', 'EdDSA'],
    ['rotated', 'ES256'],
    ['unlisted', 'RS256'],
  ] as const) {
    keys[kid] = await makeKey(kid, alg);
  }
  jwksKeys = ['rsa256', 'rsa512', 'ec256', 'ec512', 'ed'].map((kid) => keys[kid]?.publicJwk as JWK);
  jwks = await serveJwks(jwksKeys);
  keyDir = mkdtempSync(join(tmpdir(), 'vexil-jwt-'));
});
afterAll(() => jwks?.server.close());

const key = (kid: string): Key => keys[kid] as Key;

/** The bad tokens: each is refused with this reason, over both transports. */
const REFUSED: [string, () => Promise<string>, string][] = [
  ['expired', () => sign(key('rsa256'), { exp: nowS() - 120, iat: nowS() - 600 }), 'the JWT has expired'],
  ['not valid yet', () => sign(key('rsa256'), { nbf: nowS() + 3600 }), 'the JWT is not valid yet'],
  [
    'another issuer',
    () => sign(key('ec256'), { iss: 'https://elsewhere.test' }),
    'the JWT issuer is not the one expected',
  ],
  ['no issuer', () => sign(key('ec256'), { iss: undefined }), 'the JWT issuer is not the one expected'],
  ['another audience', () => sign(key('ed'), { aud: 'someone-else' }), 'the JWT audience is not one expected'],
  [
    'alg none',
    async () => new UnsecuredJWT({ iss: ISSUER, aud: AUDIENCE, exp: nowS() + 60 }).encode(),
    'the JWT algorithm is not accepted',
  ],
  [
    'HS256 signed with the public key',
    () =>
      new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: nowS() + 60 })
        .setProtectedHeader({ alg: 'HS256', kid: 'rsa256' })
        .sign(new TextEncoder().encode(key('rsa256').spki)),
    'the JWT algorithm is not accepted',
  ],
  ['unknown kid', () => sign(key('unlisted')), 'the JWT signing key is not known'],
  [
    'signed by another key under a known kid',
    () => sign(key('unlisted'), {}, { kid: 'rsa256' }),
    'the JWT signature is not valid',
  ],
  ['malformed', async () => 'not.a.jwt', 'the JWT is malformed'],
];

describeEachBackend('JWT authentication (JWKS URL)', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    ({ t, base, grpc } = await startListeningApp(backend, {
      authentication: {
        required: true,
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          jwt: { enabled: true, jwks_url: jwks.url, validate_claims: { issuer: ISSUER, audiences: [AUDIENCE] } },
        },
      },
    }));
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, authorization: string) => fetch(`${base}${path}`, { headers: { authorization } });

  it.each(['rsa256', 'rsa512', 'ec256', 'ec512', 'ed'])(
    'a token signed with %s authenticates (HTTP and gRPC)',
    async (kid) => {
      const token = await sign(key(kid), { 'io.flipt.auth.role': 'viewer', 'io.flipt.auth.groups': ['a', 'b'] });
      const res = await get('/auth/v1/self', `JWT ${token}`);
      expect(res.status).toBe(200);
      const self = await res.json();
      expect(self).toMatchObject({
        id: '',
        method: 'METHOD_JWT',
        metadata: {
          'io.flipt.auth.jwt.issuer': ISSUER,
          'io.flipt.auth.jwt.email': 'ada@example.test',
          'io.flipt.auth.jwt.name': 'Ada',
          'io.flipt.auth.jwt.picture': 'https://pics.test/ada.png',
          'io.flipt.auth.jwt.role': 'admin',
          'io.flipt.auth.jwt.sub': 'u-1',
          'io.flipt.auth.role': 'viewer',
          'io.flipt.auth.groups': '["a","b"]',
        },
      });
      expect(Object.keys(self.metadata)).toHaveLength(8);
      const viaGrpc = await grpc.call(
        'flipt.auth.AuthenticationService',
        'GetAuthenticationSelf',
        {},
        {
          metadata: { authorization: `JWT ${token}` },
        },
      );
      expect(messageJson(viaGrpc.response)).toEqual(self);
      expect((await get('/api/v1/namespaces', `jwt  ${token}`)).status).toBe(200);
    },
  );

  it.each(REFUSED)('%s: 401 with the reason over HTTP, UNAUTHENTICATED over gRPC', async (_name, make, reason) => {
    const token = await make();
    const res = await get('/api/v1/namespaces', `JWT ${token}`);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body).toEqual({ code: 16, message: expect.stringContaining(reason), details: [] });
    expect(body.message).not.toContain(token);
    const err = await grpc.error('flipt.Flipt', 'ListNamespaces', {}, { metadata: { authorization: `JWT ${token}` } });
    expect(err.code).toBe(16);
    expect(err.details).toBe(body.message);
    // Nothing is stored for a JWT, good or bad: only the bootstrap token exists.
    const tokens = await get('/auth/v1/tokens', `Bearer ${BOOT}`).then((r) => r.json());
    expect(tokens.authentications).toHaveLength(1);
  });

  it('a JWT cannot be expired (it is not stored): 400, and it still works', async () => {
    const token = await sign(key('ec512'));
    const res = await fetch(`${base}/auth/v1/self/expire`, {
      method: 'PUT',
      headers: { authorization: `JWT ${token}` },
    });
    expect(res.status).toBe(400);
    const err = await grpc.error(
      'flipt.auth.AuthenticationService',
      'ExpireAuthenticationSelf',
      {},
      {
        metadata: { authorization: `JWT ${token}` },
      },
    );
    expect(err.code).toBe(3);
    expect((await get('/auth/v1/self', `JWT ${token}`)).status).toBe(200);
  });

  it('a write made with a JWT names the person in the change log (HTTP and gRPC)', async () => {
    const token = await sign(key('rsa256'));
    const created = await fetch(`${base}/api/v1/namespaces`, {
      method: 'POST',
      headers: { authorization: `JWT ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: `jwt-http-${backend.name}`, name: 'by jwt' }),
    });
    expect(created.status).toBe(200);
    await grpc.call(
      'flipt.Flipt',
      'CreateNamespace',
      { key: `jwt-grpc-${backend.name}`, name: 'by jwt' },
      {
        metadata: { authorization: `JWT ${token}` },
      },
    );
    const changes = await get('/api/v1/changes?type=namespace', `Bearer ${BOOT}`).then((r) => r.json());
    for (const key of [`jwt-http-${backend.name}`, `jwt-grpc-${backend.name}`]) {
      const change = changes.changes.find((c: { resourceKey: string }) => c.resourceKey === key);
      expect(change.actor, key).toEqual({
        authentication: 'jwt',
        ip: expect.any(String),
        email: 'ada@example.test',
        name: 'Ada',
        picture: 'https://pics.test/ada.png',
      });
    }
  });

  it('Bearer tokens keep working beside it, and the method list says JWT is enabled', async () => {
    expect((await get('/api/v1/namespaces', `Bearer ${BOOT}`)).status).toBe(200);
    expect((await get('/api/v1/namespaces', `Bearer ${await sign(key('rsa256'))}`)).status).toBe(401);
    const methods = await fetch(`${base}/auth/v1/method`).then((r) => r.json());
    expect(methods.methods.find((m: { method: string }) => m.method === 'METHOD_JWT')).toEqual({
      method: 'METHOD_JWT',
      enabled: true,
      sessionCompatible: false,
    });
  });
});

describe('JWT key rotation: an unknown kid fetches the key set again, at most once per cooldown', () => {
  let t: TestApp;
  let base: string;
  let rotating: Awaited<ReturnType<typeof serveJwks>>;
  const served: JWK[] = [];

  beforeAll(async () => {
    served.push(key('rsa256').publicJwk);
    rotating = await serveJwks(served);
    t = await startTestApp(
      { name: 'sqlite' },
      {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        authentication: { required: true, methods: { jwt: { enabled: true, jwks_url: rotating.url } } },
      },
    );
    base = `http://127.0.0.1:${(await t.app.listen()).httpPort}`;
  });
  afterAll(async () => {
    vi.useRealTimers();
    rotating?.server.close();
    await t?.close();
  });

  const status = async (token: string) =>
    (await fetch(`${base}/api/v1/namespaces`, { headers: { authorization: `JWT ${token}` } })).status;

  it('fetches once, refuses a new kid within the cooldown without fetching, accepts it after', async () => {
    expect(await status(await sign(key('rsa256')))).toBe(200);
    expect(rotating.fetches()).toBe(1);
    // The issuer rotates: the new key is published.
    served.push(key('rotated').publicJwk);
    const rotatedToken = await sign(key('rotated'));
    expect(await status(rotatedToken)).toBe(401);
    expect(rotating.fetches()).toBe(1);
    // Past the cooldown (the clock moved, not waited for): the unknown kid fetches the set again.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect(await status(await sign(key('rotated')))).toBe(200);
    expect(rotating.fetches()).toBe(2);
    vi.useRealTimers();
  });
});

describe('JWT authentication (public key file)', () => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    const file = join(keyDir, 'ec256.pem');
    writeFileSync(file, key('ec256').spki);
    ({ t, base, grpc } = await startListeningApp(
      { name: 'sqlite' },
      {
        authentication: {
          required: true,
          methods: { jwt: { enabled: true, public_key_file: file, validate_claims: { subject: 'ci-robot' } } },
        },
      },
    ));
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['the key file’s key, expected subject', () => sign(key('ec256')), 200],
    ['no kid at all', () => sign(key('ec256'), {}, { kid: undefined }), 200],
    ['another subject', () => sign(key('ec256'), { sub: 'intruder' }), 401],
    ['another key', () => sign(key('rotated')), 401],
    ['an RSA key', () => sign(key('rsa256')), 401],
  ] as const)('%s → %i (HTTP and gRPC)', async (_name, make, expected) => {
    const token = await make();
    const res = await fetch(`${base}/api/v1/namespaces`, { headers: { authorization: `JWT ${token}` } });
    expect(res.status).toBe(expected);
    const call = grpc.call('flipt.Flipt', 'ListNamespaces', {}, { metadata: { authorization: `JWT ${token}` } });
    if (expected === 200) await expect(call).resolves.toBeDefined();
    else await expect(call).rejects.toMatchObject({ code: 16 });
  });
});

describe('JWT config', () => {
  it.each([
    [{ enabled: true }, 'authentication.methods.jwt: one of jwks_url or public_key_file is required'],
    [
      { enabled: true, jwks_url: 'http://127.0.0.1/jwks', public_key_file: '/x.pem' },
      'only one of jwks_url or public_key_file can be set',
    ],
    [
      { enabled: true, jwks_url: 'ftp://keys' },
      'authentication.methods.jwt.jwks_url: "ftp://keys" is not an http(s) URL',
    ],
  ])('%j is refused at load', (jwt, message) => {
    expect(() => loadConfig({ env: {}, overrides: { authentication: { methods: { jwt } } } })).toThrow(message);
  });

  it('an unreadable key file is refused at start, naming the key', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        authentication: { methods: { jwt: { enabled: true, public_key_file: join(keyDir, 'missing.pem') } } },
      },
    });
    expect(() => buildAuthMethods(config)).toThrow('authentication.methods.jwt.public_key_file');
  });

  it('audiences also read from one string (VEXIL_ env), and the other methods are still refused by name', () => {
    const config = loadConfig({
      env: {
        VEXIL_AUTHENTICATION_METHODS_JWT_ENABLED: 'true',
        VEXIL_AUTHENTICATION_METHODS_JWT_JWKS_URL: 'https://keys.test/jwks',
        VEXIL_AUTHENTICATION_METHODS_JWT_VALIDATE_CLAIMS_AUDIENCES: 'a,b',
      },
    });
    expect(config.authentication.methods.jwt.validate_claims.audiences).toEqual(['a', 'b']);
    expect(() =>
      loadConfig({ env: {}, overrides: { authentication: { methods: { cloud: { enabled: true } } } } }),
    ).toThrow('authentication.methods.cloud.enabled');
  });
});
