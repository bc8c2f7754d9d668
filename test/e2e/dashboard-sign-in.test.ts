// The dashboard's sign-in (issue 40) in Debian's chromium against the real `vexil serve` and two real
// OpenID providers (`oidc-provider`) over HTTPS with a CA made here: the program trusts it through
// NODE_EXTRA_CA_CERTS, chromium through the provider certificate's key pin. The sign-in page offers
// each provider and the token; signing in shows the person and a write names them in history; sign
// out ends the session; a refused email and a sign-in that outlived session.state_lifetime (a second
// server whose states last a second) come back to a page that says so.

import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort, type RunningVexil, startVexil } from '../helpers/process.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';

const skipReason = browserSkipReason() ?? (opensslMissing ? 'openssl is missing' : undefined);
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;
const BOOT = 'sign-in-e2e-bootstrap-token';

suite(title('dashboard: sign-in with OIDC'), () => {
  let dir: string;
  let vexil: RunningVexil;
  let base: string;
  /** The same server with session.state_lifetime: 1s, for the expired sign-in. */
  let hasty: RunningVexil;
  let hastyBase: string;
  let providers: Record<'corp' | 'partner', TestProvider>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    buildDashboard();
    dir = mkdtempSync(join(tmpdir(), 'vexil-sign-in-e2e-'));
    const tls = writeCaAndCertificate(dir);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const hastyPort = await freePort();
    hastyBase = `http://127.0.0.1:${hastyPort}`;
    const accounts = {
      ada: { email: 'ada@corp.test', email_verified: true, name: 'Ada Lovelace' },
      mallory: { email: 'mallory@elsewhere.test', email_verified: true, name: 'Mallory' },
    };
    const start = (name: string) =>
      startOidcProvider({
        tls,
        clientId: name,
        clientSecret: `${name}-secret`,
        redirectUris: [base, hastyBase].map((b) => `${b}/auth/v1/method/oidc/${name}/callback`),
        accounts,
      });
    providers = { corp: await start('corp'), partner: await start('partner') };
    const provider = (name: 'corp' | 'partner', address: string) =>
      `        ${name}:\n          issuer_url: ${providers[name].issuer}\n          client_id: ${name}\n` +
      `          client_secret: ${name}-secret\n          redirect_address: ${address}\n          scopes: [email, profile]`;
    const serve = (name: string, address: string, httpPort: number, stateLifetime: string) => {
      const config = join(dir, `${name}.yml`);
      writeFileSync(
        config,
        [
          'authentication:',
          '  required: true',
          '  session:',
          '    domain: localhost',
          `    state_lifetime: ${stateLifetime}`,
          '  methods:',
          '    token:',
          '      enabled: true',
          '      bootstrap:',
          `        token: ${BOOT}`,
          '    oidc:',
          '      enabled: true',
          "      email_matches: ['@corp\\.test$']",
          '      providers:',
          provider('corp', address),
          provider('partner', address),
        ].join('\n'),
      );
      return startVexil(
        { VEXIL_DB_URL: `file:${join(dir, `${name}.db`)}`, NODE_EXTRA_CA_CERTS: tls.caFile },
        ['serve', '--config', config],
        { httpPort },
      );
    };
    [vexil, hasty] = await Promise.all([serve('vexil', base, port, '10m'), serve('hasty', hastyBase, hastyPort, '1s')]);
    // Chromium trusts the providers' certificate by its key, as a pinned test certificate.
    const spki = new X509Certificate(readFileSync(tls.certFile)).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await launchBrowser(undefined, { args: [`--ignore-certificate-errors-spki-list=${pin}`] });
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
    await hasty?.stop();
    await Promise.all(Object.values(providers ?? {}).map((p) => p.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'offers both providers and the token; signing in with one shows the person, sign out ends it',
    async () => {
      await page.goto(base);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      // The providers come from /auth/v1/method, after the heading: wait for them to show (isVisible()
      // would look once, and sometimes before they arrived).
      await page.getByRole('button', { name: 'Sign in with corp' }).waitFor();
      await page.getByRole('button', { name: 'Sign in with partner' }).waitFor();
      await page.getByLabel(/API token/).waitFor();
      await screenshot(page, 'sign-in-page');

      providers.partner.signInAs('ada');
      await page.getByRole('button', { name: 'Sign in with partner' }).click();
      await page.getByText('Ada Lovelace').waitFor();
      expect(new URL(page.url()).origin).toBe(base);
      const cookies = await browser.context.cookies(base);
      const session = cookies.find((c) => c.name === 'flipt_client_token');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(cookies.find((c) => c.name === 'flipt_client_state')).toBeUndefined();
      await screenshot(page, 'sign-in-signed-in');

      // A write from the dashboard's session names the person in history.
      const created = await page.evaluate(async () => {
        const res = await fetch('/api/v1/namespaces', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: window.location.origin },
          body: JSON.stringify({ key: 'by-ada', name: 'By Ada' }),
        });
        return res.status;
      });
      expect(created).toBe(200);
      const changes = await fetch(`${base}/api/v1/changes?type=namespace`, {
        headers: { authorization: `Bearer ${BOOT}` },
      }).then((r) => r.json());
      expect(changes.changes[0].actor).toMatchObject({
        authentication: 'oidc',
        name: 'Ada Lovelace',
        email: 'ada@corp.test',
      });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const self = await fetch(`${base}/auth/v1/self`, { headers: { cookie: `flipt_client_token=${session?.value}` } });
      expect(self.status).toBe(401);
      expect(browser.problems).toEqual([]);
    },
    STEP,
  );

  it(
    'an email outside email_matches comes back to the sign-in page saying it was refused',
    async () => {
      providers.corp.signInAs('mallory');
      // A fresh tab for each sign-in that leaves the dashboard.
      page = await browser.context.newPage();
      await page.goto(base);
      await page.getByRole('button', { name: 'Sign in with corp' }).click();
      await page.getByText('The sign-in was refused.').waitFor();
      expect((await browser.context.cookies(base)).find((c) => c.name === 'flipt_client_token')).toBeUndefined();
      await screenshot(page, 'sign-in-refused');
    },
    STEP,
  );

  it(
    'a sign-in that took longer than state_lifetime comes back saying it took too long',
    async () => {
      providers.corp.signInAs('ada');
      page = await browser.context.newPage();
      await page.goto(hastyBase);
      // The person lingers at the provider: its authorize request goes out only once the state the
      // server stored (a second's lifetime) is past its time.
      const issuer = new URL(providers.corp.issuer);
      await page.route(
        (url) => url.origin === issuer.origin && url.pathname === '/auth',
        async (route) => {
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          await route.continue();
        },
      );
      await page.getByRole('button', { name: 'Sign in with corp' }).click();
      await page.getByText('The sign-in took too long or was already used.').waitFor();
      expect((await browser.context.cookies(hastyBase)).find((c) => c.name === 'flipt_client_token')).toBeUndefined();
      await screenshot(page, 'sign-in-expired');
    },
    STEP,
  );
});
