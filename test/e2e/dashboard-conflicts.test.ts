// Issue 42, item 1, end to end in Debian's chromium against the real `vexil serve` (event streams on):
// two people edit the same flag details, variant, rule, rollout and segment in two browsers. The
// first keeps unsaved edits while the second saves: the first's page says who changed it and when,
// a save of the first is refused by the server (its If-Match names the revision its edits started
// from), nothing is overwritten; "Compare" shows both versions, "Keep mine" then saves over it
// knowingly, and "Reload theirs" takes the other version in. Before the fix the first save silently
// put the old values back. Screenshot: test-results/e2e/conflict-*.png.

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { callApi, type E2eServer, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;
const NS = '/api/v1/namespaces/team';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any;

const field = (scope: Locator, name: string) => scope.getByLabel(new RegExp(`^${name}( \\*)?$`));

/** One form the dashboard edits: where it is, how it opens, the field both people change, and what the server holds. */
interface Row {
  name: string;
  page: string;
  /** Opens the form (a click on its Edit button), if it is not on the page already. */
  open?: (page: Page) => Promise<void>;
  form: string;
  field: string;
  /** The field's row in "Compare", when it is not named as the field. */
  compared?: string;
  save: string;
  /** The field's value as the server holds it. */
  stored: () => Promise<string>;
}

suite(title('dashboard: two people edit the same object'), () => {
  let server: E2eServer | undefined;
  let mine: Browser;
  let theirs: Browser;
  let base: string;
  const api = <T = Json>(method: string, path: string, body?: unknown) => callApi<T>(base, method, path, body);

  const rows: Row[] = [
    {
      name: 'flag details',
      page: '/namespaces/team/flags/colour',
      form: 'Details',
      field: 'Description',
      save: 'Save details',
      stored: async () => (await api('GET', `${NS}/flags/colour`)).description,
    },
    {
      name: 'variant',
      page: '/namespaces/team/flags/colour',
      open: (page) => page.getByRole('button', { name: 'Edit variant blue' }).click(),
      form: 'Edit variant blue',
      field: 'Name',
      save: 'Save variant',
      stored: async () => (await api('GET', `${NS}/flags/colour`)).variants[0].name,
    },
    {
      name: 'rule',
      page: '/namespaces/team/flags/colour/rules',
      open: (page) => page.getByRole('button', { name: 'Edit rule 1' }).click(),
      form: 'Edit rule 1',
      field: 'Percentage for blue',
      compared: 'blue %',
      save: 'Save rule',
      stored: async () => {
        const [rule] = (await api('GET', `${NS}/flags/colour/rules`)).rules;
        return String(rule.distributions.find((d: Json) => d.variantId === rule.distributions[0].variantId).rollout);
      },
    },
    {
      name: 'rollout',
      page: '/namespaces/team/flags/switch/rollouts',
      open: (page) => page.getByRole('button', { name: 'Edit rollout 1' }).click(),
      form: 'Edit rollout',
      field: 'Description',
      save: 'Save rollout',
      stored: async () => (await api('GET', `${NS}/flags/switch/rollouts`)).rules[0].description,
    },
    {
      name: 'segment',
      page: '/namespaces/team/segments/beta',
      form: 'Segment details',
      field: 'Description',
      save: 'Save details',
      stored: async () => (await api('GET', `${NS}/segments/beta`)).description,
    },
  ];

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('conflicts', { VEXIL_OFREP_EVENT_STREAMS_ENABLED: 'true' });
    base = server.base;
    await api('POST', '/api/v1/namespaces', { key: 'team', name: 'Team' });
    await api('POST', `${NS}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' });
    await api('POST', `${NS}/flags`, { key: 'colour', name: 'Colour', type: 'VARIANT_FLAG_TYPE', enabled: true });
    const blue = await api('POST', `${NS}/flags/colour/variants`, { key: 'blue', name: 'Blue' });
    await api('POST', `${NS}/flags/colour/rules`, {
      segmentKey: 'beta',
      rank: 1,
      distributions: [{ variantId: blue.id, rollout: 50 }],
    });
    await api('POST', `${NS}/flags`, { key: 'switch', name: 'Switch', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    await api('POST', `${NS}/flags/switch/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } });
    mine = await launchBrowser();
    theirs = await launchBrowser();
  }, STEP);

  afterAll(async () => {
    await mine?.close();
    await theirs?.close();
    await server?.stop();
  });

  async function openForm(page: Page, row: Row): Promise<Locator> {
    await page.goto(base + row.page);
    if (row.open) await row.open(page);
    const form = page.getByRole('form', { name: row.form });
    await form.waitFor();
    return form;
  }

  it.each(rows)(
    '$name: the other save is announced, mine is refused, compared, then kept or reloaded',
    async (row) => {
      const a = await openForm(mine.page, row);
      await field(a, row.field).fill('11');
      const b = await openForm(theirs.page, row);
      await field(b, row.field).fill('22');
      await b.getByRole('button', { name: row.save }).click();
      await expect.poll(row.stored, { timeout: 15_000 }).toBe('22');

      // Pushed: my form keeps my edit and says who changed it, and when.
      const notice = a.getByRole('alert').filter({ hasText: 'while you were editing' });
      await notice.getByText(/^Changed by anonymous \(authentication off\) at /).waitFor({ timeout: 15_000 });
      expect(await field(a, row.field).inputValue()).toBe('11');

      // Saving anyway is refused by the server: nothing is overwritten.
      await a.getByRole('button', { name: row.save }).click();
      await notice.getByText('Your save was not applied').waitFor();
      expect(await row.stored()).toBe('22');

      await notice.getByRole('button', { name: 'Compare' }).click();
      const compared = notice.getByRole('table').getByRole('row', { name: row.compared ?? row.field });
      expect(await compared.getByRole('cell').allTextContents()).toEqual(['22', '11']);
      await screenshot(mine.page, `conflict-${row.name.replace(' ', '-')}`, { streaming: true });

      // Keep mine: saved over theirs, knowingly.
      await notice.getByRole('button', { name: 'Keep mine' }).click();
      await a.getByRole('button', { name: row.save }).click();
      await expect.poll(row.stored, { timeout: 15_000 }).toBe('11');

      // Reload theirs: the form takes the other version in.
      const again = await openForm(mine.page, row);
      await field(again, row.field).fill('33');
      const other = await openForm(theirs.page, row);
      await field(other, row.field).fill('44');
      await other.getByRole('button', { name: row.save }).click();
      await expect.poll(row.stored, { timeout: 15_000 }).toBe('44');
      const second = again.getByRole('alert').filter({ hasText: 'while you were editing' });
      await second.getByRole('button', { name: 'Reload theirs' }).click();
      expect(await field(again, row.field).inputValue()).toBe('44');
      expect(mine.problems).toEqual([]);
    },
    STEP,
  );
});
