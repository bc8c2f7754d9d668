// End to end, in Debian's chromium against the real `vexil serve` (issue 28, the dashboard part): a
// flag's History tab shows the description and rule edits made through the UI as readable diffs,
// and reverting the description brings the old text back with a new "revert" entry; a deleted flag
// is found in the namespace's Activity and restored with its variants and rules; a revert the server
// refuses (the segment an old rule used is gone) shows the server's message and changes nothing.
// Screenshots land in test-results/e2e/ (history-*.png): light, dark and phone-sized.

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { callApi, type E2eServer, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;
const NS = '/api/v1/namespaces/shop';

interface Rule {
  id: string;
  segmentKey: string;
  segmentKeys: string[];
  distributions: { variantId: string; rollout: number }[];
}
interface Flag {
  key: string;
  description: string;
  variants: { id: string; key: string }[];
}
interface ChangeList {
  changes: { id: string; resourceType: string; action: string; reverts?: string }[];
}

const field = (scope: Page | Locator, name: string) => scope.getByLabel(new RegExp(`^${name}( \\*)?$`));

suite(title('dashboard: history, activity and revert'), () => {
  let server: E2eServer | undefined;
  let browser: Browser;
  let page: Page;
  let base: string;

  const api = <T>(method: string, path: string, body?: unknown) => callApi<T>(base, method, path, body);

  /** The entry of the list whose text has every one of `texts`. */
  const entry = (...texts: (string | RegExp)[]) => {
    let item = page.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem');
    for (const t of texts) item = item.filter({ hasText: t });
    return item;
  };

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('history');
    base = server.base;
    await api('POST', '/api/v1/namespaces', { key: 'shop', name: 'Shop' });
    await api('POST', `${NS}/flags`, {
      key: 'colour',
      name: 'Colour',
      type: 'VARIANT_FLAG_TYPE',
      enabled: true,
      description: 'Button colour',
    });
    for (const key of ['blue', 'green']) await api('POST', `${NS}/flags/colour/variants`, { key });
    for (const key of ['beta', 'staff', 'legacy'])
      await api('POST', `${NS}/segments`, {
        key,
        name: key[0]?.toUpperCase() + key.slice(1),
        matchType: 'ALL_MATCH_TYPE',
      });
    const colour = await api<Flag>('GET', `${NS}/flags/colour`);
    const rule = await api<Rule>('POST', `${NS}/flags/colour/rules`, { segmentKey: 'beta', rank: 1 });
    await api('POST', `${NS}/flags/colour/rules/${rule.id}/distributions`, {
      variantId: colour.variants[0]?.id,
      rollout: 100,
    });
    await api('POST', `${NS}/flags/colour/rules`, { segmentKey: 'legacy', rank: 2 });

    await api('POST', `${NS}/flags`, { key: 'banner', name: 'Banner', type: 'VARIANT_FLAG_TYPE', enabled: true });
    for (const key of ['big', 'small']) await api('POST', `${NS}/flags/banner/variants`, { key });
    await api('POST', `${NS}/flags/banner/rules`, { segmentKey: 'staff', rank: 1 });

    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${base}/namespaces/shop/flags/colour`);
    await page.getByRole('heading', { name: 'Colour', level: 1 }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it(
    "shows a description and a rule edit in the flag's History, and reverts the description",
    async () => {
      const details = page.getByRole('form', { name: 'Details' });
      await field(details, 'Description').fill('Colour of the buy button');
      await details.getByRole('button', { name: 'Save details' }).click();
      await page.getByText('Flag "colour" saved').waitFor();

      await page.getByRole('link', { name: 'Rules' }).click();
      await page.getByRole('button', { name: 'Edit rule 1' }).click();
      const form = page.getByRole('form', { name: 'Edit rule 1' });
      await form.getByLabel(/Staff/).check();
      await form.getByRole('button', { name: 'Save rule' }).click();
      await page.getByText('Rule 1 saved').waitFor();
      const rules = await api<{ rules: Rule[] }>('GET', `${NS}/flags/colour/rules`);
      expect(rules.rules[0]?.segmentKeys.sort()).toEqual(['beta', 'staff']);

      await page.getByRole('link', { name: 'History' }).click();
      await page.waitForURL('**/namespaces/shop/flags/colour/history');
      // The description edit, field by field: the old and the new text side by side.
      const described = entry('Flag "colour" updated', 'Colour of the buy button');
      await described.waitFor();
      const row = described.getByRole('row', { name: /^Description/ });
      expect(await row.getByRole('cell').allTextContents()).toEqual(['Button colour', 'Colour of the buy button']);
      // The rule edit names the rule by rank and its segments as a list, not as a JSON dump.
      const ruled = entry(/Rule #1 in flag "colour" updated/);
      await ruled.first().waitFor();
      const segments = ruled.first().getByRole('row', { name: /^Segments/ });
      const [segmentsBefore, segmentsAfter] = await segments.getByRole('cell').allTextContents();
      expect(segmentsBefore).not.toContain('staff');
      expect(segmentsAfter?.split(', ').sort()).toEqual(['beta', 'staff']);
      expect(await described.getByText(/anonymous/).count()).toBe(1);
      await screenshot(page, 'history-01-flag-history');

      await described.getByRole('button', { name: /^Revert/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
      await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
      const done = page.getByRole('dialog', { name: 'Reverted' });
      await done.getByText(/Recorded as a new change: Flag "colour" updated/).waitFor();
      // Focus moves to the outcome, so a screen reader announces it.
      expect(await done.locator('.revert-result').evaluate((el) => el === document.activeElement)).toBe(true);
      await screenshot(page, 'history-02-revert-done');
      await done.getByRole('button', { name: 'Close' }).click();
      // Focus returns to the Revert button that opened the dialog.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(
        /^Revert: Flag "colour" updated/,
      );

      const flag = await api<Flag>('GET', `${NS}/flags/colour`);
      expect(flag.description).toBe('Button colour');
      // The revert is a change of its own, marked as such, at the top.
      const top = page.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem').first();
      await top.getByText('revert', { exact: true }).waitFor();
      expect(await top.textContent()).toContain('reverts “Flag "colour" updated”');
      await page.getByRole('link', { name: 'Details and variants' }).click();
      expect(await field(page.getByRole('form', { name: 'Details' }), 'Description').inputValue()).toBe(
        'Button colour',
      );
    },
    STEP,
  );

  it(
    'restores a deleted flag from Activity with its variants and rules',
    async () => {
      const before = await api<Flag>('GET', `${NS}/flags/banner`);
      const beforeRules = await api<{ rules: Rule[] }>('GET', `${NS}/flags/banner/rules`);
      await page.goto(`${base}/namespaces/shop/flags/banner`);
      await page.getByRole('button', { name: 'Delete flag' }).click();
      const confirm = page.getByRole('dialog');
      await confirm.getByText(/reverting the deletion in Activity/).waitFor();
      await confirm.getByRole('button', { name: 'Delete flag' }).click();
      await page.getByText('Flag "banner" deleted').waitFor();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
      await page.getByLabel('Resource', { exact: true }).selectOption('flag');
      await page.getByLabel('Key or id', { exact: true }).fill('banner');
      const deleted = entry('Flag "banner" deleted');
      await deleted.waitFor();
      // The deleted state lists its variants by key and its rule by segment, readably (folded until asked).
      await deleted.locator('summary', { hasText: 'What changed' }).click();
      expect(await deleted.getByRole('row', { name: /^Variant "big"/ }).count()).toBe(1);
      expect(await deleted.getByRole('row', { name: /^Rule #1/ }).textContent()).toContain('staff');
      await screenshot(page, 'history-03-activity');

      await deleted.getByRole('button', { name: /^Revert/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revert', exact: true }).click();
      await page
        .getByRole('dialog', { name: 'Reverted' })
        .getByText(/Flag "banner" created/)
        .waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      const after = await api<Flag>('GET', `${NS}/flags/banner`);
      expect(after.variants.map((v) => [v.id, v.key])).toEqual(before.variants.map((v) => [v.id, v.key]));
      const afterRules = await api<{ rules: Rule[] }>('GET', `${NS}/flags/banner/rules`);
      expect(afterRules.rules.map((r) => [r.id, r.segmentKey])).toEqual(
        beforeRules.rules.map((r) => [r.id, r.segmentKey]),
      );
      await page.goto(`${base}/namespaces/shop/flags/banner/rules`);
      await page.getByRole('list', { name: 'Rules in evaluation order' }).getByText('Rule 1').waitFor();
    },
    STEP,
  );

  it(
    "shows the server's message when a revert is blocked, and changes nothing",
    async () => {
      await page.goto(`${base}/namespaces/shop/flags/colour/rules`);
      await page.getByRole('button', { name: 'Edit rule 2' }).waitFor();
      const rules = await api<{ rules: Rule[] }>('GET', `${NS}/flags/colour/rules`);
      expect(rules.rules.map((r) => r.segmentKey || r.segmentKeys.join('+'))).toEqual(['beta+staff', 'legacy']);
      await page.getByRole('button', { name: 'Delete rule 2' }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /^Delete/ })
        .click();
      await page.getByText('Rule 2 deleted').waitFor();
      await page.goto(`${base}/namespaces/shop/segments/legacy`);
      await page.getByRole('button', { name: 'Delete segment' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete segment' }).click();
      await page.getByText('Segment "legacy" deleted').waitFor();

      const rulesBefore = await api<{ rules: Rule[] }>('GET', `${NS}/flags/colour/rules`);
      const changesBefore = await api<ChangeList>('GET', `${NS}/changes?limit=1000`);
      await page.goto(`${base}/namespaces/shop/flags/colour/history`);
      const ruleDeleted = entry(/Rule #2 in flag "colour" deleted/);
      await ruleDeleted.waitFor();
      await ruleDeleted.getByRole('button', { name: /^Revert/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
      await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/segment "shop\/legacy" .*no longer exists/);
      expect(await alert.textContent()).toContain('HTTP 400');
      await screenshot(page, 'history-04-revert-blocked');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      expect(await api<{ rules: Rule[] }>('GET', `${NS}/flags/colour/rules`)).toEqual(rulesBefore);
      expect((await api<ChangeList>('GET', `${NS}/changes?limit=1000`)).changes.length).toBe(
        changesBefore.changes.length,
      );
    },
    STEP,
  );

  it(
    'pages with "Load more", reads in the dark theme with UTC times, and at phone width',
    async () => {
      for (let i = 0; i < 26; i++)
        await api('POST', `${NS}/segments`, { key: `bulk-${i}`, name: `Bulk ${i}`, matchType: 'ALL_MATCH_TYPE' });
      await page.goto(`${base}/namespaces/shop/activity`);
      const items = page.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem');
      await items.first().waitFor();
      expect(await items.count()).toBe(25);
      await page.getByRole('button', { name: 'Load more' }).click();
      await items.nth(25).waitFor();
      // Focus moves to the first change the button brought.
      await page.waitForFunction(() => document.activeElement?.matches('.change-item') === true);
      expect(await items.nth(25).evaluate((el) => el === document.activeElement)).toBe(true);
      await page.goto(`${base}/namespaces/shop/activity`);
      await page.getByText('Preferences').click();
      await page.getByLabel('Theme').selectOption('dark');
      await page.getByLabel('Times').selectOption('utc');
      await page.getByText('Preferences').click();
      const first = page.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem').first();
      expect(await first.locator('time .datetime-abs').textContent()).toMatch(/UTC$/);
      await screenshot(page, 'history-05-dark-activity');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/namespaces/shop/flags/colour/history`);
      await entry(/Rule #1 in flag "colour" updated/)
        .first()
        .waitFor();
      await screenshot(page, 'history-06-phone-dark-history');
      // At phone width the navigation, with the preferences, folds behind Menu.
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByText('Preferences').click();
      await page.getByLabel('Theme').selectOption('light');
      await page.goto(`${base}/namespaces/shop/segments/staff/history`);
      await entry('Segment "staff" created').waitFor();
      await screenshot(page, 'history-07-phone-segment-history');
      await page.setViewportSize({ width: 1280, height: 800 });
    },
    STEP,
  );

  it('reported no page errors or CSP violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
