// Roles per namespace in the dashboard (issue 41), in Debian's chromium against the real `vexil serve`
// and a real OpenID provider: four people sign in, their `groups` claim mapped to a role by
// `authorization.roles.rules` — a client, a viewer and an editor of namespace `prod`, and an admin of
// every namespace — and each sees what that role may do and no more. None of the first three may use
// `default`, so the dashboard must open in `prod` without it. What is hidden is also refused by the
// server: the test asks it directly with the same session.

import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { freePort, type RunningVexil, startVexil } from '../helpers/process.js';
import { opensslMissing, writeCaAndCertificate } from '../helpers/tls.js';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';

const skipReason = browserSkipReason() ?? (opensslMissing ? 'openssl is missing' : undefined);
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 60_000;
const BOOT = 'roles-e2e-bootstrap-token';

/** axe's findings on the page as it is (WCAG 2.0/2.1/2.2 A and AA, as dashboard-a11y.test.ts checks). */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return results.violations.flatMap((v) => v.nodes.map((n) => `${v.id} ${JSON.stringify(n.target)}: ${v.help}`));
}

/** The nav links of the sidebar, by name. */
async function navLinks(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
}

suite(title('dashboard: what each role may do'), () => {
  let dir: string;
  let vexil: RunningVexil;
  let base: string;
  let provider: TestProvider;
  let browser: Browser;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${BOOT}`, 'content-type': 'application/json', ...init.headers },
    });

  /** A fresh session for `account`: cookies cleared, signed in through the provider, on the start page. */
  async function signIn(account: string): Promise<Page> {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    provider.signInAs(account);
    await page.goto(base);
    await page.getByRole('button', { name: 'Sign in with corp' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  }

  /** The same session's answer to a call, from inside the page (its cookie, its origin). */
  const call = (page: Page, method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ({ method, path, body }) => {
        const res = await fetch(path, {
          method,
          headers: { 'content-type': 'application/json', origin: window.location.origin },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: await res.text() };
      },
      { method, path, body },
    );

  beforeAll(async () => {
    buildDashboard();
    dir = mkdtempSync(join(tmpdir(), 'vexil-roles-e2e-'));
    const tls = writeCaAndCertificate(dir);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const person = (name: string, group: string) => ({
      email: `${name.split(' ')[0]?.toLowerCase()}@corp.test`,
      email_verified: true,
      name,
      groups: [group, 'everyone'],
    });
    provider = await startOidcProvider({
      tls,
      clientId: 'corp',
      clientSecret: 'corp-secret',
      redirectUris: [`${base}/auth/v1/method/oidc/corp/callback`],
      accounts: {
        cleo: person('Cleo Client', 'flag-clients'),
        vic: person('Vic Viewer', 'flag-viewers'),
        eddie: person('Eddie Editor', 'flag-editors'),
        ada: person('Ada Admin', 'flag-admins'),
        nora: person('Nora Nobody', 'newcomers'),
      },
    });
    const rule = (group: string, role: string, namespace: string) =>
      `      - match: {claim: groups, pattern: ${group}}\n        role: ${role}\n        namespace: '${namespace}'`;
    const config = join(dir, 'vexil.yml');
    writeFileSync(
      config,
      [
        'authentication:',
        '  required: true',
        '  session:',
        '    domain: localhost',
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
        '          client_id: corp',
        '          client_secret: corp-secret',
        `          redirect_address: ${base}`,
        '          scopes: [email, profile]',
        'authorization:',
        '  roles:',
        '    default: none',
        '    rules:',
        rule('flag-clients', 'client', 'prod'),
        rule('flag-viewers', 'viewer', 'prod'),
        rule('flag-editors', 'editor', 'prod'),
        rule('flag-admins', 'admin', '*'),
      ].join('\n'),
    );
    vexil = await startVexil(
      { VEXIL_DB_URL: `file:${join(dir, 'vexil.db')}`, NODE_EXTRA_CA_CERTS: tls.caFile },
      ['serve', '--config', config],
      { httpPort: port },
    );
    expect(
      (await api('/api/v1/namespaces', { method: 'POST', body: '{"key":"prod","name":"Production"}' })).status,
    ).toBe(200);
    const flag = { key: 'checkout', name: 'Checkout', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
    expect((await api('/api/v1/namespaces/prod/flags', { method: 'POST', body: JSON.stringify(flag) })).status).toBe(
      200,
    );
    const spki = new X509Certificate(readFileSync(tls.certFile)).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await launchBrowser(undefined, { args: [`--ignore-certificate-errors-spki-list=${pin}`] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
    await provider?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a client opens in the console of prod, evaluates a flag it cannot list, and is told why flags are closed',
    async () => {
      const page = await signIn('cleo');
      await page.waitForURL(`${base}/namespaces/prod/console`);
      expect(await navLinks(page)).toEqual(['Console', 'My access']);
      await page.getByRole('form', { name: 'Evaluate a flag' }).getByRole('combobox').fill('checkout');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await page.getByTestId('evaluation-summary').waitFor();
      await screenshot(page, 'roles-client-console');

      await page.goto(`${base}/namespaces/prod/flags`);
      await page
        .getByText('Reading flags and segments needs the viewer role on namespace "prod"; your role there is client.')
        .waitFor();
      await page.getByRole('heading', { level: 1, name: 'Flags' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect((await call(page, 'GET', '/api/v1/namespaces/prod/flags')).status).toBe(403);
      expect(browser.problems).toEqual([]);
      await page.close();
    },
    STEP,
  );

  it(
    'a viewer without default opens in prod, reads flags and sees no way to change them',
    async () => {
      const page = await signIn('vic');
      await page.waitForURL(`${base}/namespaces/prod/flags`);
      await page.getByRole('link', { name: 'Checkout' }).waitFor();
      expect(await navLinks(page)).toEqual(['Flags', 'Segments', 'Console', 'Activity', 'Namespaces', 'My access']);
      expect(await page.getByRole('link', { name: 'New flag' }).count()).toBe(0);
      // The namespace switcher offers what the viewer may read: prod, not default.
      const options = await page.getByLabel('Namespace', { exact: true }).locator('option').allInnerTexts();
      expect(options).toEqual(['Production (prod)']);

      await page.getByRole('link', { name: 'Checkout' }).click();
      await page.getByRole('heading', { name: 'Checkout' }).waitFor();
      await page
        .getByText('Changing flags and segments needs the editor role on namespace "prod"; your role there is viewer.')
        .waitFor();
      expect(await page.getByRole('button', { name: 'Delete flag' }).count()).toBe(0);
      expect(await page.getByRole('switch').first().isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: /^Save/ }).first().isDisabled()).toBe(true);
      await screenshot(page, 'roles-viewer-flag');
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'My access' }).click();
      const row = page.getByRole('row', { name: /prod/ });
      await row.getByText('viewer', { exact: true }).waitFor();
      await row.getByText(/read flags, segments/).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(
        (await call(page, 'PUT', '/api/v1/namespaces/prod/flags/checkout', { name: 'x', enabled: false })).status,
      ).toBe(403);
      expect(browser.problems).toEqual([]);
      await page.close();
    },
    STEP,
  );

  it(
    'an editor creates a flag but is offered no namespace settings, tokens or role bindings',
    async () => {
      const page = await signIn('eddie');
      await page.waitForURL(`${base}/namespaces/prod/flags`);
      expect(await navLinks(page)).toEqual(['Flags', 'Segments', 'Console', 'Activity', 'Namespaces', 'My access']);
      await page.getByRole('link', { name: 'New flag' }).click();
      await page.getByRole('form', { name: 'New flag' }).getByRole('textbox', { name: 'Name' }).fill('Dark mode');
      await page.getByRole('button', { name: /^Create/ }).click();
      await page.getByRole('heading', { name: 'Dark mode' }).waitFor();
      await page.getByRole('button', { name: 'Delete flag' }).waitFor();

      await page.getByRole('link', { name: 'Namespaces', exact: true }).click();
      await page.getByRole('list', { name: 'Namespaces' }).getByText('Production').waitFor();
      expect(await page.getByRole('button', { name: 'New namespace' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Edit namespace prod' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete namespace prod' }).count()).toBe(0);
      await page
        .getByText('Creating namespaces needs the admin role on every namespace (*); you have no role there.')
        .waitFor();
      await page.goto(`${base}/settings/tokens`);
      await page
        .getByText('Managing tokens needs the admin role on at least one namespace; you have it on none.')
        .waitFor();
      await screenshot(page, 'roles-editor-no-tokens');
      // The server's list is filtered to the tokens one administers, never refused: none for an editor.
      const tokens = await call(page, 'GET', '/auth/v1/tokens');
      expect(tokens.status).toBe(200);
      expect(JSON.parse(tokens.body).authentications).toEqual([]);
      expect((await call(page, 'POST', '/auth/v1/method/token', { name: 'mine', namespaceKey: 'prod' })).status).toBe(
        403,
      );
      expect(browser.problems).toEqual([]);
      await page.close();
    },
    STEP,
  );

  it(
    'an admin of every namespace manages tokens with roles and role bindings',
    async () => {
      const page = await signIn('ada');
      await page.waitForURL(/\/namespaces\/[^/]+\/flags$/);
      expect(await navLinks(page)).toEqual([
        'Flags',
        'Segments',
        'Console',
        'Activity',
        'Namespaces',
        'API tokens',
        'Role bindings',
        'My access',
      ]);

      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByRole('button', { name: 'New token' }).click();
      await page.getByRole('form', { name: 'New token' }).getByRole('textbox', { name: 'Name' }).fill('prod reader');
      await page.getByRole('button', { name: 'Add role' }).click();
      await page.getByLabel('Role 1', { exact: true }).selectOption('viewer');
      await page.getByLabel('Namespace of role 1', { exact: true }).selectOption('prod');
      await page.getByText('This token may: viewer on prod').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = await page.getByTestId('token-secret').inputValue();
      await page
        .getByRole('row', { name: /prod reader/ })
        .getByText('viewer')
        .waitFor();
      await screenshot(page, 'roles-admin-tokens');
      const asToken = (path: string, init: RequestInit = {}) =>
        fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${secret}` } });
      expect((await asToken('/api/v1/namespaces/prod/flags')).status).toBe(200);
      expect((await asToken('/api/v1/namespaces/prod/flags/checkout', { method: 'DELETE' })).status).toBe(403);

      await page.getByRole('link', { name: 'Role bindings' }).click();
      await page.getByRole('heading', { name: 'Role bindings' }).waitFor();
      // The bindings API is built beside this dashboard; until it is there the page says what failed.
      const listed = await call(page, 'GET', '/api/v1/roles/bindings');
      if (listed.status === 404) {
        await page.locator('.error-note').waitFor();
      } else {
        expect(listed.status).toBe(200);
        await page.getByRole('button', { name: 'New binding' }).click();
        const form = page.getByRole('form', { name: 'New role binding' });
        await form.getByLabel('Pattern').fill('qa-*');
        await form.getByLabel('Namespace', { exact: true }).selectOption('prod');
        await form.getByLabel('Role', { exact: true }).selectOption('viewer');
        await page.getByRole('button', { name: 'Create binding' }).click();
        const row = page.getByRole('row', { name: /claim groups = qa-\*/ });
        await row.getByText('viewer').waitFor();
        await row.getByRole('button', { name: /Delete role binding/ }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
        await row.waitFor({ state: 'detached' });
      }
      await screenshot(page, 'roles-admin-bindings');
      expect(browser.problems).toEqual([]);
      await page.close();
    },
    STEP,
  );

  it(
    'someone no rule gives a role signs in to a clear page, not to errors',
    async () => {
      const page = await signIn('nora');
      await page.getByText('No namespace to work in yet').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await navLinks(page)).toEqual(['My access']);
      await page.getByRole('link', { name: 'See your access' }).click();
      await page.getByText('No roles', { exact: true }).waitFor();
      await screenshot(page, 'roles-nobody');
      expect(browser.problems).toEqual([]);
      await page.close();
    },
    STEP,
  );
});
