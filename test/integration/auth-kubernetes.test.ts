// The Kubernetes method (`authentication.methods.kubernetes`, issue 40) on every backend, over HTTP and
// gRPC. There is no cluster here: a loopback stand-in of the API server serves its OIDC discovery
// document and keys over TLS with its own CA (made here), and answers only when Vexil presents its own
// service-account token (read from `service_account_token_path`). Tokens are signed here as the
// cluster would sign them. A good token becomes a client token expiring with it, with Flipt's
// metadata; a bad one is 401 / UNAUTHENTICATED with the reason and stores nothing.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type FliptGrpc, messageJson } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';

const BOOT = 'k8s-bootstrap-token';
const VEXIL_SA_TOKEN = 'vexil-own-service-account-token';
const SERVICE = 'flipt.auth.AuthenticationMethodKubernetesService';

type Key = Awaited<ReturnType<typeof generateKeyPair>>;
let dir: string;
let cluster: Server;
let issuer: string;
let clusterKey: Key;
let otherClusterKey: Key;
let keyFetches = 0;
let refusedFetches = 0;

const nowS = () => Math.floor(Date.now() / 1000);
const IDENTITY = {
  namespace: 'payments',
  pod: { name: 'checkout-7d9f', uid: 'pod-uid-1' },
  serviceaccount: { name: 'checkout', uid: 'sa-uid-1' },
};

function saToken(key: Key, claims: JWTPayload = {}, kid = 'cluster-key'): Promise<string> {
  return new SignJWT({
    iss: issuer,
    aud: ['https://kubernetes.default.svc'],
    sub: 'system:serviceaccount:payments:checkout',
    iat: nowS(),
    exp: nowS() + 3600,
    'kubernetes.io': IDENTITY,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid })
    .sign(key.privateKey);
}

beforeAll(async () => {
  if (opensslMissing) throw new Error('openssl is needed to make the stand-in cluster CA');
  dir = mkdtempSync(join(tmpdir(), 'vexil-k8s-'));
  const tls = writeCaAndCertificate(dir);
  writeFileSync(join(dir, 'token'), `${VEXIL_SA_TOKEN}\n`);
  clusterKey = await generateKeyPair('RS256', { extractable: true });
  otherClusterKey = await generateKeyPair('RS256', { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(clusterKey.publicKey)), kid: 'cluster-key', alg: 'RS256', use: 'sig' }] };
  cluster = createServer({ key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) }, (req, res) => {
    if (req.headers.authorization !== `Bearer ${VEXIL_SA_TOKEN}`) {
      refusedFetches++;
      res.statusCode = 401;
      res.end('{"kind":"Status","code":401}');
      return;
    }
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/openid/v1/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    } else if (req.url === '/openid/v1/jwks') {
      keyFetches++;
      res.end(JSON.stringify(jwks));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => cluster.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(cluster.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => cluster?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const REFUSED: [string, () => Promise<string>, RegExp][] = [
  ['expired', () => saToken(clusterKey, { exp: nowS() - 60, iat: nowS() - 3600 }), /has expired/],
  ['from another cluster (its key)', () => saToken(otherClusterKey, {}, 'other-key'), /key this cluster does not have/],
  ['from another cluster (its issuer)', () => saToken(clusterKey, { iss: 'https://other.cluster' }), /another cluster/],
  ['signed by another key under this kid', () => saToken(otherClusterKey), /signature is not valid/],
  ['alg none', async () => new UnsecuredJWT({ iss: issuer, exp: nowS() + 60 }).encode(), /algorithm is not accepted/],
  ['without exp', () => saToken(clusterKey, { exp: undefined }), /exp claim is not valid|malformed/],
  ['not a token', async () => 'not-a-token', /malformed/],
  ['empty', async () => '', /empty/],
];

describeEachBackend('Kubernetes service-account authentication', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    ({ t, base, grpc } = await startListeningApp(backend, {
      authentication: {
        required: true,
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          kubernetes: {
            enabled: true,
            discovery_url: issuer,
            ca_path: join(dir, 'ca.pem'),
            service_account_token_path: join(dir, 'token'),
          },
        },
      },
    }));
  });
  afterAll(async () => {
    await t?.close();
  });

  const exchange = (serviceAccountToken: string) =>
    fetch(`${base}/auth/v1/method/kubernetes/serviceaccount`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceAccountToken }),
    });
  const stored = async () => (await t.app.services.auth.list({ method: 'METHOD_KUBERNETES', limit: 100 })).items.length;

  it('a token of this cluster becomes a client token expiring with it (HTTP and gRPC)', async () => {
    const exp = nowS() + 1800;
    const token = await saToken(clusterKey, { exp });
    const res = await exchange(token);
    expect(res.status).toBe(200);
    const created = await res.json();
    expect(created.authentication).toMatchObject({
      method: 'METHOD_KUBERNETES',
      expiresAt: new Date(exp * 1000).toISOString(),
      metadata: {
        'io.flipt.auth.k8s.namespace': 'payments',
        'io.flipt.auth.k8s.pod.name': 'checkout-7d9f',
        'io.flipt.auth.k8s.pod.uid': 'pod-uid-1',
        'io.flipt.auth.k8s.serviceaccount.name': 'checkout',
        'io.flipt.auth.k8s.serviceaccount.uid': 'sa-uid-1',
      },
    });
    const self = await fetch(`${base}/auth/v1/self`, { headers: { authorization: `Bearer ${created.clientToken}` } });
    expect(await self.json()).toEqual(created.authentication);

    const viaGrpc = messageJson(
      (await grpc.call(SERVICE, 'VerifyServiceAccount', { serviceAccountToken: token })).response,
    );
    expect(viaGrpc.authentication.metadata).toEqual(created.authentication.metadata);
    expect(viaGrpc.clientToken).not.toBe(created.clientToken);
    const list = await grpc.call('flipt.Flipt', 'ListNamespaces', {}, { token: viaGrpc.clientToken });
    expect(list.response).toBeDefined();
    expect(refusedFetches).toBe(0);
  });

  it.each(REFUSED)('%s: 401 / UNAUTHENTICATED with the reason, nothing stored', async (_name, make, reason) => {
    const before = await stored();
    const token = await make();
    const res = await exchange(token);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body).toEqual({ code: 16, message: expect.stringMatching(reason), details: [] });
    const err = await grpc.error(SERVICE, 'VerifyServiceAccount', { serviceAccountToken: token });
    expect(err.code).toBe(16);
    expect(err.details).toBe(body.message);
    expect(await stored()).toBe(before);
  });

  it('is listed as enabled; the keys were fetched with Vexil’s own token, and not once per request', async () => {
    const methods = await fetch(`${base}/auth/v1/method`).then((r) => r.json());
    expect(methods.methods.find((m: { method: string }) => m.method === 'METHOD_KUBERNETES')).toEqual({
      method: 'METHOD_KUBERNETES',
      enabled: true,
      sessionCompatible: false,
    });
    expect(refusedFetches).toBe(0);
    // Fetched on first use and again for the unknown kid of the other cluster (once per cooldown), no more.
    expect(keyFetches).toBeGreaterThan(0);
    expect(keyFetches).toBeLessThanOrEqual(2 * 3);
  });
});

it('a missing ca_path stops start-up naming it (Flipt’s defaults are the in-cluster paths)', async () => {
  const { loadConfig } = await import('../../src/config/load.js');
  const { buildAuthMethods } = await import('../../src/app/auth-methods.js');
  const config = loadConfig({ env: {}, overrides: { authentication: { methods: { kubernetes: { enabled: true } } } } });
  expect(config.authentication.methods.kubernetes.ca_path).toBe('/var/run/secrets/kubernetes.io/serviceaccount/ca.crt');
  expect(() => buildAuthMethods(config)).toThrow('invalid config at authentication.methods.kubernetes.ca_path');
});
