// OIDC sign-in (`authentication.methods.oidc`, issue 40) against two real OpenID providers
// (`oidc-provider`) on loopback over HTTPS with a CA made here, which the program trusts through
// NODE_EXTRA_CA_CERTS as an operator's would. The real program runs on every backend; a sign-in is
// the browser's chain of redirects followed by a small cookie-keeping client (the dashboard's sign-in
// in Chromium is test/e2e). HTTP: cookies, the redirect, the session as cookie and as bearer, Flipt's
// metadata; gRPC: AuthorizeURL and Callback. Every bad callback is 401 / UNAUTHENTICATED and makes no
// session: a missing, forged, other browser's, replayed or expired state, an unverified email, an
// email outside `email_matches`.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { FliptGrpc, messageJson } from '../helpers/flipt-grpc.js';
import { type Answer, Browserless, startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort, type RunningVexil, startVexil } from '../helpers/process.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';

const BOOT = 'oidc-test-bootstrap-token';
const ACCOUNTS = {
  ada: { email: 'ada@allowed.test', email_verified: true, name: 'Ada', picture: 'https://pics.test/ada.png' },
  grace: { email: 'grace@allowed.test', email_verified: true, name: 'Grace' },
  eve: { email: 'eve@allowed.test', email_verified: false, name: 'Eve' },
  mallory: { email: 'mallory@elsewhere.test', email_verified: true, name: 'Mallory' },
};

describeEachBackend('OIDC sign-in', (backend) => {
  let dir: string;
  let ca: Buffer;
  let database: TestDatabase;
  let vexil: RunningVexil;
  let base: string;
  let providers: Record<'one' | 'two', TestProvider>;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    if (opensslMissing) throw new Error('openssl is needed to make the test CA');
    dir = mkdtempSync(join(tmpdir(), 'vexil-oidc-'));
    const tls = writeCaAndCertificate(dir);
    ca = readFileSync(tls.caFile);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const start = (name: string) =>
      startOidcProvider({
        tls,
        clientId: `vexil-${name}`,
        clientSecret: `secret-${name}`,
        redirectUris: [`${base}/auth/v1/method/oidc/${name}/callback`],
        accounts: ACCOUNTS,
      });
    providers = { one: await start('one'), two: await start('two') };
    database = await createTestDatabase(backend);
    const configFile = join(dir, 'config.yml');
    const provider = (name: 'one' | 'two') =>
      [
        `        ${name}:`,
        `          issuer_url: ${providers[name].issuer}`,
        `          client_id: vexil-${name}`,
        `          client_secret: secret-${name}`,
        `          redirect_address: ${base}`,
        '          scopes: [email, profile]',
        '          nonce: fixed-in-flipt',
        '          use_pkce: false',
      ].join('\n');
    writeFileSync(
      configFile,
      [
        'authentication:',
        '  required: true',
        '  session:',
        '    domain: http://127.0.0.1:1234',
        '  methods:',
        '    token:',
        '      enabled: true',
        '      bootstrap:',
        `        token: ${BOOT}`,
        '    oidc:',
        '      enabled: true',
        "      email_matches: ['^[a-z]+@allowed\\.test$']",
        '      providers:',
        provider('one'),
        provider('two'),
      ].join('\n'),
    );
    vexil = await startVexil(
      { VEXIL_DB_URL: database.url, NODE_EXTRA_CA_CERTS: tls.caFile },
      ['serve', '--config', configFile],
      { httpPort: port },
    );
    grpc = new FliptGrpc(vexil.grpcPort);
  });
  afterAll(async () => {
    grpc?.close();
    await vexil?.stop();
    await Promise.all(Object.values(providers ?? {}).map((p) => p.close()));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const api = async (path: string, headers: Record<string, string> = { authorization: `Bearer ${BOOT}` }) => {
    const res = await fetch(base + path, { headers });
    return { status: res.status, body: await res.json() };
  };
  const sessions = async () =>
    (await api('/auth/v1/tokens?method=METHOD_OIDC&limit=100')).body.authentications as { id: string }[];
  const isCallback = (name: string) => (url: URL) => url.pathname === `/auth/v1/method/oidc/${name}/callback`;

  /** Authorize through Vexil, then the provider's redirects, stopping before the callback. */
  async function untilCallback(name: 'one' | 'two', account: string, browser = new Browserless(ca)) {
    providers[name].signInAs(account);
    const authorize = await browser.get(`${base}/auth/v1/method/oidc/${name}/authorize`);
    expect(authorize.status).toBe(200);
    const { authorizeUrl } = JSON.parse(authorize.body);
    const { stoppedAt } = await browser.follow(authorizeUrl, isCallback(name));
    if (!stoppedAt) throw new Error('the provider did not redirect to the callback');
    return { browser, callbackUrl: stoppedAt, authorize };
  }

  it('lists OIDC with its providers', async () => {
    const { body } = await api('/auth/v1/method', {});
    expect(body.methods.find((m: { method: string }) => m.method === 'METHOD_OIDC')).toEqual({
      method: 'METHOD_OIDC',
      enabled: true,
      sessionCompatible: true,
      metadata: {
        providers: {
          one: {
            authorize_url: '/auth/v1/method/oidc/one/authorize',
            callback_url: '/auth/v1/method/oidc/one/callback',
          },
          two: {
            authorize_url: '/auth/v1/method/oidc/two/authorize',
            callback_url: '/auth/v1/method/oidc/two/callback',
          },
        },
      },
    });
    const viaGrpc = await grpc.call('flipt.auth.PublicAuthenticationService', 'ListAuthenticationMethods', {});
    expect(messageJson(viaGrpc.response)).toEqual(body);
  });

  it.each(['one', 'two'] as const)(
    'signs in through provider %s over HTTP: cookies, redirect, session',
    async (name) => {
      const before = (await sessions()).length;
      const { browser, callbackUrl, authorize } = await untilCallback(name, 'ada');
      const stateCookie = String(authorize.headers['set-cookie']);
      expect(stateCookie).toMatch(
        new RegExp(
          `^flipt_client_state=[^;]{20,}; Path=/auth/v1/method/oidc/${name}/callback; Domain=127\\.0\\.0\\.1; Max-Age=600; HttpOnly; SameSite=Lax$`,
        ),
      );
      const authorizeUrl = new URL(JSON.parse(authorize.body).authorizeUrl);
      expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizeUrl.searchParams.get('nonce')).not.toBe('fixed-in-flipt');
      expect(authorizeUrl.searchParams.get('scope')).toBe('openid email profile');

      const callback = await browser.get(callbackUrl.href);
      expect(callback.status).toBe(302);
      expect(callback.headers.location).toBe('/');
      const cookies = callback.headers['set-cookie'] as string[];
      expect(cookies[0]).toMatch(/^flipt_client_state=; Path=\/auth\/v1\/method\/oidc\/\w+\/callback; .*Max-Age=0/);
      expect(cookies[1]).toMatch(
        /^flipt_client_token=[A-Za-z0-9_-]{43}=; Path=\/; Domain=127\.0\.0\.1; Max-Age=(86399|86400); HttpOnly; SameSite=Strict$/,
      );
      const token = browser.cookie(new URL(base).host, 'flipt_client_token') as string;
      const self = await api('/auth/v1/self', { cookie: `flipt_client_token=${token}` });
      expect(self.status).toBe(200);
      expect(self.body.method).toBe('METHOD_OIDC');
      expect(self.body.metadata).toMatchObject({
        'io.flipt.auth.oidc.provider': name,
        'io.flipt.auth.oidc.email': 'ada@allowed.test',
        'io.flipt.auth.oidc.email_verified': 'true',
        'io.flipt.auth.oidc.name': 'Ada',
        'io.flipt.auth.oidc.picture': 'https://pics.test/ada.png',
        'io.flipt.auth.oidc.sub': 'ada',
        'io.flipt.auth.email': 'ada@allowed.test',
        'io.flipt.auth.name': 'Ada',
        'io.flipt.auth.picture': 'https://pics.test/ada.png',
      });
      expect(JSON.parse(self.body.metadata['io.flipt.auth.claims'])).toMatchObject({
        iss: providers[name].issuer,
        aud: `vexil-${name}`,
        email: 'ada@allowed.test',
      });
      // The session is also a bearer token, and it signs out.
      expect((await api('/api/v1/namespaces', { authorization: `Bearer ${token}` })).status).toBe(200);
      expect(await sessions()).toHaveLength(before + 1);
      const out = await fetch(`${base}/auth/v1/self/expire`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(out.status).toBe(200);
      expect((await api('/auth/v1/self', { authorization: `Bearer ${token}` })).status).toBe(401);
    },
  );

  it('every sign-in makes a new session, also in the same browser', async () => {
    const first = await untilCallback('one', 'grace');
    await first.browser.get(first.callbackUrl.href);
    const host = new URL(base).host;
    const a = first.browser.cookie(host, 'flipt_client_token');
    const second = await untilCallback('one', 'grace', first.browser);
    await second.browser.get(second.callbackUrl.href);
    const b = second.browser.cookie(host, 'flipt_client_token');
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
  });

  const REFUSED: [string, (c: { browser: Browserless; callbackUrl: URL }) => Promise<Answer>, RegExp][] = [
    [
      'a callback without state',
      ({ browser, callbackUrl }) => {
        callbackUrl.searchParams.delete('state');
        return browser.get(callbackUrl.href);
      },
      /state is missing/,
    ],
    [
      'a forged state (matching cookie, never issued)',
      ({ callbackUrl }) => {
        callbackUrl.searchParams.set('state', 'forged-state-forged-state-forged');
        return new Browserless(ca).get(callbackUrl.href, {
          cookie: 'flipt_client_state=forged-state-forged-state-forged',
        });
      },
      /state is unknown or was already used/,
    ],
    [
      "another browser's callback (no state cookie)",
      ({ callbackUrl }) => new Browserless(ca).get(callbackUrl.href),
      /not the one this browser started/,
    ],
    [
      'a replayed callback (state and code used once already)',
      async ({ browser, callbackUrl }) => {
        const stateCookie = browser.cookie(new URL(base).host, 'flipt_client_state') as string;
        expect((await browser.get(callbackUrl.href)).status).toBe(302);
        return new Browserless(ca).get(callbackUrl.href, { cookie: `flipt_client_state=${stateCookie}` });
      },
      /state is unknown or was already used/,
    ],
    [
      'an expired state',
      async ({ browser, callbackUrl }) => {
        const db = openDb({ url: database.url });
        try {
          await db.kysely
            .updateTable('login_states')
            .set({ expires_at: new Date(Date.now() - 1000) })
            .execute();
        } finally {
          await db.close();
        }
        return browser.get(callbackUrl.href);
      },
      /took too long/,
    ],
  ];

  it.each(REFUSED)('%s: 401 with the reason, no session', async (name, act, reason) => {
    const flow = await untilCallback('one', 'ada');
    const before = (await sessions()).length;
    const answer = await act(flow);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ code: 16, message: expect.stringMatching(reason), details: [] });
    expect(String(answer.headers['set-cookie'])).toMatch(
      /^flipt_client_state=; Path=\/auth\/v1\/method\/oidc\/one\/callback; .*Max-Age=0/,
    );
    // (The replay's first, good callback made one.)
    expect((await sessions()).length).toBe(before + (name.includes('replayed') ? 1 : 0));
  });

  it.each([
    ['an expired state', 'ada', true, '/?signin=expired'],
    ['an email outside email_matches', 'mallory', false, '/?signin=refused'],
  ])(
    'a browser navigation refused for %s is sent back to the dashboard (%s)',
    async (_n, account, expire, location) => {
      const before = (await sessions()).length;
      const { browser, callbackUrl } = await untilCallback('one', account);
      if (expire) {
        const db = openDb({ url: database.url });
        try {
          await db.kysely
            .updateTable('login_states')
            .set({ expires_at: new Date(Date.now() - 1000) })
            .execute();
        } finally {
          await db.close();
        }
      }
      const answer = await browser.get(callbackUrl.href, { accept: 'text/html,application/xhtml+xml' });
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe(location);
      expect(String(answer.headers['set-cookie'])).toMatch(/^flipt_client_state=; .*Max-Age=0/);
      expect((await sessions()).length).toBe(before);
    },
  );

  it.each([
    ['eve', /email address is not verified/],
    ['mallory', /email address is not allowed here/],
  ])('%s is refused at the callback: 401, no session', async (account, reason) => {
    const before = (await sessions()).length;
    const { browser, callbackUrl } = await untilCallback('two', account);
    const answer = await browser.get(callbackUrl.href);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).message).toMatch(reason);
    expect(browser.cookie(new URL(base).host, 'flipt_client_token')).toBeUndefined();
    expect((await sessions()).length).toBe(before);
  });

  it('over gRPC: AuthorizeURL, then Callback with the code answers the session; replay and no state are refused', async () => {
    const services = 'flipt.auth.AuthenticationMethodOIDCService';
    const authorize = messageJson((await grpc.call(services, 'AuthorizeURL', { provider: 'two' })).response);
    providers.two.signInAs('grace');
    const browser = new Browserless(ca);
    const { stoppedAt } = await browser.follow(authorize.authorizeUrl, isCallback('two'));
    const code = stoppedAt?.searchParams.get('code') as string;
    const state = stoppedAt?.searchParams.get('state') as string;
    expect(state).toBe(new URL(authorize.authorizeUrl).searchParams.get('state'));

    const missing = await grpc.error(services, 'Callback', { provider: 'two', code });
    expect(missing.code).toBe(16);
    const created = messageJson((await grpc.call(services, 'Callback', { provider: 'two', code, state })).response);
    expect(created.authentication.method).toBe('METHOD_OIDC');
    expect(created.authentication.metadata['io.flipt.auth.oidc.email']).toBe('grace@allowed.test');
    const self = await api('/auth/v1/self', { authorization: `Bearer ${created.clientToken}` });
    expect(self.body).toEqual(created.authentication);
    const replay = await grpc.error(services, 'Callback', { provider: 'two', code, state });
    expect(replay.code).toBe(16);
    expect(replay.details).toMatch(/state is unknown or was already used/);
    const unknown = await grpc.error(services, 'AuthorizeURL', { provider: 'three' });
    expect(unknown.code).toBe(5);
  });

  it('a write made in a session names the person in the change log', async () => {
    const { browser, callbackUrl } = await untilCallback('one', 'ada');
    await browser.get(callbackUrl.href);
    const token = browser.cookie(new URL(base).host, 'flipt_client_token') as string;
    const key = `oidc-${backend.name}`;
    const res = await fetch(`${base}/api/v1/namespaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key, name: 'by ada' }),
    });
    expect(res.status).toBe(200);
    const changes = (await api('/api/v1/changes?type=namespace')).body.changes;
    const change = changes.find((c: { resourceKey: string }) => c.resourceKey === key);
    expect(change.actor).toMatchObject({
      authentication: 'oidc',
      email: 'ada@allowed.test',
      name: 'Ada',
      picture: 'https://pics.test/ada.png',
    });
  });
});
