// OIDC sign-in across instances (issue 40's multi-instance row): two real Vexil processes on one
// PostgreSQL or MariaDB database behind one address, as behind a load balancer, against a real OpenID
// provider over HTTPS. A sign-in begun on one instance completes on the other (its state is in the
// database, ADR 0037); the session then works on both; a callback is used once across all instances,
// also when the same callback reaches both at once: exactly one session is made.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';
import { Browserless, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort, type RunningVexil, startVexil } from '../helpers/process.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';

const BOOT = 'oidc-instances-bootstrap-token';
const ACCOUNTS = { ada: { email: 'ada@allowed.test', email_verified: true, name: 'Ada' } };
const shared = testBackends().filter((b) => b.name !== 'sqlite');

describe.each(shared)('OIDC sign-in across two instances [$name]', (backend: Backend) => {
  let dir: string;
  let ca: Buffer;
  let database: TestDatabase;
  let provider: TestProvider;
  let a: RunningVexil;
  let b: RunningVexil;

  beforeAll(async () => {
    if (backend.skipReason) return;
    if (opensslMissing) throw new Error('openssl is needed to make the test CA');
    dir = mkdtempSync(join(tmpdir(), 'vexil-oidc-instances-'));
    const tls = writeCaAndCertificate(dir);
    ca = readFileSync(tls.caFile);
    const [portA, portB] = [await freePort(), await freePort()];
    // The provider redirects to instance A's address; the tests deliver the callback to either.
    const address = `http://127.0.0.1:${portA}`;
    provider = await startOidcProvider({
      tls,
      clientId: 'vexil',
      clientSecret: 'secret',
      redirectUris: [`${address}/auth/v1/method/oidc/corp/callback`],
      accounts: ACCOUNTS,
    });
    database = await createTestDatabase(backend);
    const configFile = join(dir, 'config.yml');
    writeFileSync(
      configFile,
      [
        'authentication:',
        '  required: true',
        '  session:',
        '    domain: http://127.0.0.1',
        '  methods:',
        '    token:',
        '      enabled: true',
        '      bootstrap:',
        `        token: ${BOOT}`,
        '    oidc:',
        '      enabled: true',
        '      providers:',
        '        corp:',
        `          issuer_url: ${provider.issuer}`,
        '          client_id: vexil',
        '          client_secret: secret',
        `          redirect_address: ${address}`,
        '          scopes: [email, profile]',
      ].join('\n'),
    );
    const env = { VEXIL_DB_URL: database.url, NODE_EXTRA_CA_CERTS: tls.caFile };
    const args = ['serve', '--config', configFile];
    [a, b] = await Promise.all([
      startVexil(env, args, { httpPort: portA }),
      startVexil(env, args, { httpPort: portB }),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await provider?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sessions = async (): Promise<number> => {
    const res = await fetch(`${a.baseUrl}/auth/v1/tokens?method=METHOD_OIDC&limit=100`, {
      headers: { authorization: `Bearer ${BOOT}` },
    });
    return ((await res.json()) as { authentications: unknown[] }).authentications.length;
  };

  /** Authorize on instance A, then the provider's redirects: the callback URL and the state cookie. */
  async function signInStartedOnA(): Promise<{ callback: URL; cookie: string }> {
    provider.signInAs('ada');
    const browser = new Browserless(ca);
    const authorize = await browser.get(`${a.baseUrl}/auth/v1/method/oidc/corp/authorize`);
    expect(authorize.status).toBe(200);
    const { stoppedAt } = await browser.follow(
      JSON.parse(authorize.body).authorizeUrl,
      (url) => url.pathname === '/auth/v1/method/oidc/corp/callback',
    );
    if (!stoppedAt) throw new Error('the provider did not redirect to the callback');
    const state = browser.cookie(new URL(a.baseUrl).host, 'flipt_client_state') as string;
    return { callback: stoppedAt, cookie: `flipt_client_state=${state}` };
  }

  /** The callback delivered to one instance, as a load balancer would send it there. */
  const deliver = (instance: RunningVexil, callback: URL, cookie: string) => {
    const target = new URL(callback.pathname + callback.search, instance.baseUrl);
    return new Browserless(ca).get(target.href, { cookie });
  };

  const sessionToken = (setCookie: string | string[] | undefined): string => {
    const line = [setCookie ?? []].flat().find((c) => c.startsWith('flipt_client_token='));
    return (line ?? '').split(';')[0]?.slice('flipt_client_token='.length) ?? '';
  };

  it.skipIf(backend.skipReason)(
    `begun on A, completed on B: the session works on both (${backend.skipReason ?? 'runs'})`,
    async () => {
      const before = await sessions();
      const { callback, cookie } = await signInStartedOnA();
      const done = await deliver(b, callback, cookie);
      expect(done.status).toBe(302);
      const token = sessionToken(done.headers['set-cookie']);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}=$/);
      for (const instance of [a, b]) {
        const self = await fetch(`${instance.baseUrl}/auth/v1/self`, { headers: { authorization: `Bearer ${token}` } });
        expect(self.status).toBe(200);
        expect(((await self.json()) as { method: string }).method).toBe('METHOD_OIDC');
      }
      expect(await sessions()).toBe(before + 1);
      // Used once across instances: the same callback replayed on A is refused.
      const replay = await deliver(a, callback, cookie);
      expect(replay.status).toBe(401);
      expect(JSON.parse(replay.body).message).toMatch(/state is unknown or was already used/);
      expect(await sessions()).toBe(before + 1);
    },
  );

  it.skipIf(backend.skipReason)('the same callback reaching both instances at once makes one session', async () => {
    for (let round = 0; round < 3; round++) {
      const before = await sessions();
      const { callback, cookie } = await signInStartedOnA();
      const answers = await Promise.all([deliver(a, callback, cookie), deliver(b, callback, cookie)]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([302, 401]);
      expect(await sessions()).toBe(before + 1);
    }
  });
});
