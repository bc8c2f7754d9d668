// Issue 42, item 2, end to end in Debian's chromium against the real `vexil serve`: every save of a
// dashboard form is one entry in the change log, shown on the flag's (segment's) History tab, and one
// Revert there puts the namespace back exactly as it was (every flag, variant, rule, distribution,
// rollout, segment and constraint, compared whole through the API). A rule's new split shows on the
// History tab by variant key. Before the fix a rule's 50/50 → 70/30 was three entries, the one on
// the History tab said nothing changed, and its revert left the split at 70/30.

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser } from './browser.js';
import { callApi, type E2eServer, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;
const NS = '/api/v1/namespaces/shop';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any;

const field = (scope: Locator, name: string) => scope.getByLabel(new RegExp(`^${name}( \\*)?$`));

interface Row {
  name: string;
  page: string;
  history: string;
  /** Does the action through the dashboard. */
  act: (page: Page) => Promise<void>;
  /** What the History tab's newest entry shows. */
  shows: RegExp;
}

const saveIn = async (page: Page, form: string, label: string, value: string, save: string) => {
  const f = page.getByRole('form', { name: form });
  await field(f, label).fill(value);
  await f.getByRole('button', { name: save }).click();
  await f
    .getByRole('button', { name: save })
    .waitFor({ state: 'detached' })
    .catch(() => {});
};

const rows: Row[] = [
  {
    name: 'flag details',
    page: '/namespaces/shop/flags/colour',
    history: '/namespaces/shop/flags/colour/history',
    act: (page) => saveIn(page, 'Details', 'Description', 'Changed in the dashboard', 'Save details'),
    shows: /Changed in the dashboard/,
  },
  {
    name: 'variant',
    page: '/namespaces/shop/flags/colour',
    history: '/namespaces/shop/flags/colour/history',
    act: async (page) => {
      await page.getByRole('button', { name: 'Edit variant blue' }).click();
      await saveIn(page, 'Edit variant blue', 'Name', 'Deep blue', 'Save variant');
    },
    shows: /Deep blue/,
  },
  {
    name: 'rule split 50/50 → 70/30',
    page: '/namespaces/shop/flags/colour/rules',
    history: '/namespaces/shop/flags/colour/history',
    act: async (page) => {
      await page.getByRole('button', { name: 'Edit rule 1' }).click();
      const form = page.getByRole('form', { name: 'Edit rule 1' });
      await form.getByLabel('Percentage for blue').fill('70');
      await form.getByLabel('Percentage for green').fill('30');
      await form.getByRole('button', { name: 'Save rule' }).click();
    },
    shows: /Distribution to "blue".*50.*70/s,
  },
  {
    name: 'rollout',
    page: '/namespaces/shop/flags/switch/rollouts',
    history: '/namespaces/shop/flags/switch/history',
    act: async (page) => {
      await page.getByRole('button', { name: 'Edit rollout 1' }).click();
      await saveIn(page, 'Edit rollout', 'Percentage', '80', 'Save rollout');
    },
    shows: /80/,
  },
  {
    name: 'segment details',
    page: '/namespaces/shop/segments/beta',
    history: '/namespaces/shop/segments/beta/history',
    act: (page) => saveIn(page, 'Segment details', 'Description', 'Beta testers', 'Save details'),
    shows: /Beta testers/,
  },
  {
    name: 'constraint',
    page: '/namespaces/shop/segments/beta',
    history: '/namespaces/shop/segments/beta/history',
    act: async (page) => {
      await page.getByRole('button', { name: 'Edit constraint on plan' }).click();
      await saveIn(page, 'Edit constraint', 'Value', 'enterprise', 'Save constraint');
    },
    shows: /enterprise/,
  },
];

suite(title('dashboard: one action, one entry, one revert'), () => {
  let server: E2eServer | undefined;
  let browser: Browser;
  let page: Page;
  let base: string;
  const api = <T = Json>(method: string, path: string, body?: unknown) => callApi<T>(base, method, path, body);

  /** Everything the namespace holds, as the API reads it. */
  const everything = async () => {
    const flags = (await api('GET', `${NS}/flags?limit=1000`)).flags as Json[];
    const rules = await Promise.all(flags.map((f) => api('GET', `${NS}/flags/${f.key}/rules?limit=1000`)));
    const rollouts = await Promise.all(flags.map((f) => api('GET', `${NS}/flags/${f.key}/rollouts?limit=1000`)));
    return { flags, rules, rollouts, segments: await api('GET', `${NS}/segments?limit=1000`) };
  };
  const changes = async () => (await api('GET', `${NS}/changes?limit=50`)).changes as Json[];

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('one-entry');
    base = server.base;
    await api('POST', '/api/v1/namespaces', { key: 'shop', name: 'Shop' });
    await api('POST', `${NS}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' });
    await api('POST', `${NS}/segments/beta/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    await api('POST', `${NS}/flags`, { key: 'colour', name: 'Colour', type: 'VARIANT_FLAG_TYPE', enabled: true });
    const blue = await api('POST', `${NS}/flags/colour/variants`, { key: 'blue' });
    const green = await api('POST', `${NS}/flags/colour/variants`, { key: 'green' });
    const rule = await api('POST', `${NS}/flags/colour/rules`, { segmentKey: 'beta', rank: 1 });
    for (const v of [blue, green])
      await api('POST', `${NS}/flags/colour/rules/${rule.id}/distributions`, { variantId: v.id, rollout: 50 });
    await api('POST', `${NS}/flags`, { key: 'switch', name: 'Switch', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    await api('POST', `${NS}/flags/switch/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } });
    browser = await launchBrowser();
    page = browser.page;
  }, STEP);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it.each(rows)(
    '$name: one entry on the History tab, and its Revert puts the namespace back whole',
    async (row) => {
      const before = await everything();
      const known = (await changes()).length;
      await page.goto(base + row.page);
      await row.act(page);
      await expect.poll(async () => (await changes()).length, { timeout: 15_000 }).toBeGreaterThan(known);
      // Let a save of several requests (the old dashboard) finish before counting.
      await page.waitForLoadState('networkidle');
      expect((await changes()).length - known).toBe(1);
      expect(await everything()).not.toEqual(before);

      await page.goto(base + row.history);
      const newest = page.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem').first();
      await newest.waitFor();
      expect(await newest.textContent()).toMatch(row.shows);
      await newest.getByRole('button', { name: /^Revert/ }).click();
      await page
        .getByRole('dialog', { name: 'Revert this change?' })
        .getByRole('button', { name: 'Revert', exact: true })
        .click();
      await page.getByRole('dialog', { name: 'Reverted' }).getByRole('button', { name: 'Close' }).click();
      expect(await everything()).toEqual(before);
      expect(browser.problems).toEqual([]);
    },
    STEP,
  );
});
