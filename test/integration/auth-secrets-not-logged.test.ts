// Secrets and tokens never reach the log (issue 40), on every backend: the real program at the most
// talkative levels (log and gRPC at trace, the audit log sink writing into the log) goes through an
// OIDC sign-in, a refused one, a replayed callback, calls with the session cookie, a JWT call and a
// refused JWT; none of the client secret, the authorization codes, the states, the PKCE verifiers,
// the session token, the JWTs or the bootstrap token appears anywhere in its stdout or stderr.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { Browserless, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort, type RunningVexil, startVexil } from '../helpers/process.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';

const ISSUER = 'https://issuer.vexil.test';
const AUDIENCE = 'vexil';
const CALLBACK = '/auth/v1/method/oidc/corp/callback';

describeEachBackend('secrets and tokens never reach the log', (backend) => {
  const boot = `boot-${randomBytes(16).toString('hex')}`;
  const clientSecret = `client-secret-${randomBytes(16).toString('hex')}`;
  let dir: string;
  let ca: Buffer;
  let database: TestDatabase;
  let provider: TestProvider;
  let jwks: Server;
  let privateKey: CryptoKey;
  let vexil: RunningVexil;
  let base: string;

  beforeAll(async () => {
    if (opensslMissing) throw new Error('openssl is needed to make the test CA');
    dir = mkdtempSync(join(tmpdir(), 'vexil-secrets-'));
    const tls = writeCaAndCertificate(dir);
    ca = readFileSync(tls.caFile);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({
      tls,
      clientId: 'corp',
      clientSecret,
      redirectUris: [base + CALLBACK],
      accounts: {
        ada: { email: 'ada@corp.test', email_verified: true, name: 'Ada' },
        mallory: { email: 'mallory@elsewhere.test', email_verified: true, name: 'Mallory' },
      },
    });
    const keys = await generateKeyPair('ES256', { extractable: true });
    privateKey = keys.privateKey;
    const publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
    jwks = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const address = jwks.address();
    const jwksUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/jwks.json`;
    database = await createTestDatabase(backend);
    const configFile = join(dir, 'config.yml');
    writeFileSync(
      configFile,
      [
        'log:',
        '  level: trace',
        '  grpc_level: trace',
        '  evaluation_level: trace',
        'audit:',
        '  sinks:',
        '    log:',
        '      enabled: true',
        'authentication:',
        '  required: true',
        '  session:',
        '    domain: 127.0.0.1',
        '  methods:',
        '    token:',
        '      enabled: true',
        '      bootstrap:',
        `        token: ${boot}`,
        '    jwt:',
        '      enabled: true',
        `      jwks_url: ${jwksUrl}`,
        '      validate_claims:',
        `        issuer: ${ISSUER}`,
        `        audiences: [${AUDIENCE}]`,
        '    oidc:',
        '      enabled: true',
        "      email_matches: ['@corp\\.test$']",
        '      providers:',
        '        corp:',
        `          issuer_url: ${provider.issuer}`,
        '          client_id: corp',
        `          client_secret: ${clientSecret}`,
        `          redirect_address: ${base}`,
        '          scopes: [email, profile]',
      ].join('\n'),
    );
    vexil = await startVexil(
      // The helper's VEXIL_LOG_LEVEL=warn would override the file's level.
      { VEXIL_DB_URL: database.url, NODE_EXTRA_CA_CERTS: tls.caFile, VEXIL_LOG_LEVEL: 'trace' },
      ['serve', '--config', configFile],
      { httpPort: port },
    );
  });
  afterAll(async () => {
    await vexil?.stop();
    await provider?.close();
    await new Promise((resolve) => jwks?.close(resolve));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Authorize and the provider's redirects as `account`; what the callback will carry, and the stored verifier. */
  async function untilCallback(account: string) {
    const browser = new Browserless(ca);
    provider.signInAs(account);
    const authorize = await browser.get(`${base}/auth/v1/method/oidc/corp/authorize`);
    expect(authorize.status).toBe(200);
    const { stoppedAt } = await browser.follow(JSON.parse(authorize.body).authorizeUrl, (u) => u.pathname === CALLBACK);
    if (!stoppedAt) throw new Error('the provider did not redirect to the callback');
    const db = openDb({ url: database.url });
    let verifiers: string[];
    try {
      verifiers = (await db.kysely.selectFrom('login_states').select('code_verifier').execute()).map(
        (r) => r.code_verifier,
      );
    } finally {
      await db.close();
    }
    expect(verifiers).toHaveLength(1);
    return {
      browser,
      callbackUrl: stoppedAt,
      code: stoppedAt.searchParams.get('code') ?? '',
      state: stoppedAt.searchParams.get('state') ?? '',
      verifier: verifiers[0] ?? '',
    };
  }

  const jwt = (claims: Record<string, unknown>) =>
    new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'ci-robot', email: 'robot@corp.test', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(privateKey);

  it('a sign-in, a refused sign-in, a replayed callback, session calls and JWT calls log none of their secrets', async () => {
    const secrets: Record<string, string> = { 'the client secret': clientSecret, 'the bootstrap token': boot };

    const good = await untilCallback('ada');
    Object.assign(secrets, { 'the code': good.code, 'the state': good.state, 'the PKCE verifier': good.verifier });
    const signedIn = await good.browser.get(good.callbackUrl.href);
    expect(signedIn.status).toBe(302);
    const session = good.browser.cookie(new URL(base).host, 'flipt_client_token') as string;
    expect(session).toMatch(/.{16}/);
    secrets['the session token'] = session;
    const self = await fetch(`${base}/auth/v1/self`, { headers: { cookie: `flipt_client_token=${session}` } });
    expect(self.status).toBe(200);
    const write = await fetch(`${base}/api/v1/namespaces`, {
      method: 'POST',
      headers: { cookie: `flipt_client_token=${session}`, origin: base, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'by-session', name: 'By session' }),
    });
    expect(write.status).toBe(200);

    // The same callback again: the code and state in a refused request's URL.
    const replayed = await good.browser.get(good.callbackUrl.href);
    expect(replayed.status).toBe(401);

    const refused = await untilCallback('mallory');
    Object.assign(secrets, {
      'the refused code': refused.code,
      'the refused state': refused.state,
      'the refused PKCE verifier': refused.verifier,
    });
    const refusal = await refused.browser.get(refused.callbackUrl.href);
    expect(refusal.status).toBe(401);
    expect(refusal.body).toMatch(/email address is not allowed/);

    const token = await jwt({ exp: Math.floor(Date.now() / 1000) + 600 });
    secrets['the JWT'] = token;
    const byJwt = await fetch(`${base}/api/v1/namespaces`, {
      method: 'POST',
      headers: { authorization: `JWT ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'by-jwt', name: 'By JWT' }),
    });
    expect(byJwt.status).toBe(200);
    const expired = await jwt({ exp: Math.floor(Date.now() / 1000) - 600 });
    secrets['the expired JWT'] = expired;
    const refusedJwt = await fetch(`${base}/api/v1/namespaces`, { headers: { authorization: `JWT ${expired}` } });
    expect(refusedJwt.status).toBe(401);
    const bearer = await fetch(`${base}/api/v1/namespaces`, { headers: { authorization: `Bearer ${boot}` } });
    expect(bearer.status).toBe(200);

    // Stopping flushes the log; everything the program said is in `output`.
    await vexil.stop();
    const output = vexil.output();
    // The log did record these requests and changes (else it proves nothing).
    expect(output).toContain(CALLBACK);
    expect(output).toContain('by-jwt');
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThanOrEqual(16);
      expect(output.includes(value), `${name} is in the log`).toBe(false);
    }
    // The JWT's signed part (header.payload) alone is no better: it is the token without its signature.
    for (const t of [token, expired]) expect(output).not.toContain(t.split('.').slice(0, 2).join('.'));
  }, 60_000);
});
