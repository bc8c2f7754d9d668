// Issue 42's smaller dashboard items, end to end in Debian's chromium against the real `vexil serve`
// (token authentication on), one row per item, each failing before its fix: the page says when it has
// lost the server and disables its controls until it is back (3); deleting a segment in use names the
// flags and rules in the dialog (4); the namespaces page counts flags and segments, and "Copy" keeps
// the row it copies in view (8); the copy form's names have no "*" (9); the token form says what a
// token may do (10). Screenshot: test-results/e2e/issue42-offline.png.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { callApi, requireTokens } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;
const TOKEN = 'issue42-bootstrap-token-0123456789abcdef';
const NS = '/api/v1/namespaces/team';

suite(title('dashboard: issue 42, items 3, 4, 8, 9, 10'), () => {
  let dir: string;
  let env: Record<string, string>;
  let vexil: RunningVexil;
  let browser: Browser;
  let page: Page;
  const api = (method: string, path: string, body?: unknown) => callApi(vexil.baseUrl, method, path, body, TOKEN);

  beforeAll(async () => {
    buildDashboard();
    dir = mkdtempSync(join(tmpdir(), 'vexil-e2e-issue42-'));
    env = { VEXIL_DB_URL: `file:${join(dir, 'vexil.db')}`, ...requireTokens(TOKEN) };
    vexil = await startVexil(env);
    await api('POST', '/api/v1/namespaces', { key: 'team', name: 'Team' });
    await api('POST', `${NS}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' });
    await api('POST', `${NS}/flags`, { key: 'colour', name: 'Colour', type: 'VARIANT_FLAG_TYPE', enabled: true });
    await api('POST', `${NS}/flags/colour/rules`, { segmentKey: 'beta', rank: 1 });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${vexil.baseUrl}/namespaces/team/flags`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
  }, STEP);

  afterAll(async () => {
    await browser?.close();
    await vexil?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    '3: a lost server is said, the controls are off until it is back',
    async () => {
      await page.goto(`${vexil.baseUrl}/namespaces/team/segments`);
      const create = page
        .getByRole('link', { name: 'New segment' })
        .or(page.getByRole('button', { name: 'New segment' }));
      await create.first().waitFor();
      const port = vexil.httpPort;
      await vexil.stop();
      // The next read fails: a move to another page of the dashboard.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click();
      const banner = page.getByRole('status').filter({ hasText: 'Offline: the server cannot be reached.' });
      await banner.waitFor({ timeout: 15_000 });
      const controls = page.locator('main fieldset.page-fieldset').locator('input, button, select, textarea');
      await controls.first().waitFor();
      expect(await controls.first().isDisabled()).toBe(true);
      await screenshot(page, 'issue42-offline', { streaming: true });
      vexil = await startVexil(env, ['serve'], { httpPort: port });
      await banner.waitFor({ state: 'detached', timeout: 15_000 });
      expect(await controls.first().isDisabled()).toBe(false);
      await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
      await page.getByText('colour').first().waitFor();
    },
    STEP,
  );

  it(
    '4: deleting a segment in use names its flags and rules before anything is tried',
    async () => {
      let deletes = 0;
      page.on('request', (r) => {
        if (r.method() === 'DELETE') deletes++;
      });
      await page.goto(`${vexil.baseUrl}/namespaces/team/segments/beta`);
      await page.getByRole('button', { name: 'Delete segment' }).click();
      const dialog = page.getByRole('dialog');
      const used = dialog.getByRole('list', { name: 'Flags using this segment' });
      await used.waitFor();
      expect(await used.getByRole('listitem').allTextContents()).toEqual(['flag colour: rule 1']);
      expect(deletes).toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    },
    STEP,
  );

  it(
    '8, 9: namespaces show their counts; Copy keeps its row in view; the copy form names have no "*"',
    async () => {
      await page.goto(`${vexil.baseUrl}/settings/namespaces`);
      const row = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Team' }) });
      await row.getByText('1 flag, 1 segment').waitFor();
      await row.getByRole('button', { name: 'Copy namespace team' }).click();
      const form = page.getByRole('form', { name: 'Copy namespace team' });
      await form.waitFor();
      expect(await row.getByRole('link', { name: 'Team' }).isVisible()).toBe(true);
      expect(await form.getByRole('textbox', { name: 'New key', exact: true }).inputValue()).toBe('team-copy');
      expect(await form.getByRole('textbox', { name: 'New name', exact: true }).count()).toBe(1);
    },
    STEP,
  );

  it(
    '6: at phone width the navigation folds behind Menu, tab rows scroll with a hint, no "Ctrl K" on touch',
    async () => {
      const phone = await launchBrowser({ width: 320, height: 720 }, { touch: true });
      try {
        const p = phone.page;
        await p.goto(`${vexil.baseUrl}/namespaces/team/flags/colour`);
        await p.getByLabel('API token').fill(TOKEN);
        await p.getByRole('button', { name: 'Sign in' }).click();
        await p.getByRole('heading', { name: 'Colour', level: 1 }).waitFor();
        const menu = p.getByRole('button', { name: 'Menu' });
        const nav = p.getByRole('navigation', { name: 'Main' });
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await nav.isVisible()).toBe(false);
        expect(await p.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
        const tabs = p.getByRole('navigation', { name: 'Flag sections' });
        const overflowing = await tabs.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
        expect(overflowing).toBe(true);
        await p.getByText('More tabs: scroll sideways').waitFor();
        await screenshot(p, 'issue42-phone');
        await menu.click();
        expect(await nav.isVisible()).toBe(true);
        expect(await p.getByText('Ctrl K').isVisible()).toBe(false);
        expect(await p.getByRole('button', { name: 'Search…', exact: true }).count()).toBe(1);
        await nav.getByRole('link', { name: 'Segments' }).click();
        await p.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
        expect(await nav.isVisible()).toBe(false);
        expect(phone.problems).toEqual([]);
      } finally {
        await phone.close();
      }
    },
    STEP,
  );

  it(
    '7: Activity entries are compact, their diffs folded; one import is one entry that unfolds into its changes',
    async () => {
      const res = await fetch(`${vexil.baseUrl}/api/v1/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({
          version: '1.4',
          namespace: 'team',
          flags: [
            { key: 'imported-a', name: 'Imported A', type: 'BOOLEAN_FLAG_TYPE' },
            { key: 'imported-b', name: 'Imported B', type: 'BOOLEAN_FLAG_TYPE' },
          ],
        }),
      });
      expect(res.status).toBe(200);
      await api('PUT', `${NS}/flags/colour`, { name: 'Colour', description: 'Compact', enabled: true });
      await page.goto(`${vexil.baseUrl}/namespaces/team/activity`);
      const items = page.getByRole('list', { name: 'Changes, newest first' }).locator(':scope > li');
      const single = items.first();
      await single.locator('summary', { hasText: 'What changed' }).waitFor();
      const diff = single.getByRole('row', { name: /^Description/ });
      expect(await diff.isVisible()).toBe(false);
      await single.locator('summary', { hasText: 'What changed' }).click();
      expect(await diff.isVisible()).toBe(true);
      const group = items.nth(1);
      await group.getByText(/^One action .*: 2 changes/).click();
      const inner = group.getByRole('list', { name: 'Changes of this action' }).getByRole('listitem');
      expect(await inner.count()).toBe(2);
      expect(await inner.allTextContents()).toEqual([
        expect.stringContaining('imported-b'),
        expect.stringContaining('imported-a'),
      ]);
    },
    STEP,
  );

  it(
    '10: the token form says what the token may do',
    async () => {
      await page.goto(`${vexil.baseUrl}/settings/tokens`);
      await page.getByRole('button', { name: 'New token' }).click();
      const form = page.getByRole('form', { name: 'New token' });
      await form.getByText('This token may: full access to every namespace').waitFor();
      await form.getByLabel('Namespace').selectOption('team');
      await form.getByText('This token may: full access to namespace team').waitFor();
      expect(browser.problems).toEqual([]);
    },
    STEP,
  );
});
