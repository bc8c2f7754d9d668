// End to end: the real `vexil serve` (a temp SQLite file, free ports) serving the built dashboard,
// driven through Debian's chromium like an operator would: namespaces, flags, variants, segments,
// constraints, rules with distributions and reordering, the console, a boolean toggle, and a run
// behind token authentication. Screenshots of every page land in test-results/e2e/.

import type { Locator, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { findEntity } from './bucketing.js';
import { callApi, type E2eServer, requireTokens, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);

const STEP = 120_000;

/** Waits until the locator's text contains `text` (playwright-core has no retrying expect). */
async function waitForText(locator: Locator, text: string | RegExp): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ state: 'visible' });
}

// Counts the page's API calls in flight from now on; `quiet()` resolves once none has been in flight
// for 300 ms. (Playwright's 'networkidle' fires once per document, not after the calls a single-page
// app makes later.)
function trackApiCalls(page: Page): { quiet(): Promise<void>; stop(): void } {
  let inFlight = 0;
  const isApi = (r: Request) => /^\/(api|auth)\//.test(new URL(r.url()).pathname);
  const start = (r: Request) => {
    if (isApi(r)) inFlight++;
  };
  const end = (r: Request) => {
    if (isApi(r)) inFlight--;
  };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    async quiet() {
      let quietSince = Date.now();
      while (Date.now() - quietSince < 300) {
        await new Promise((r) => setTimeout(r, 50));
        if (inFlight > 0) quietSince = Date.now();
      }
    },
    stop() {
      page.off('request', start);
      page.off('requestfinished', end);
      page.off('requestfailed', end);
    },
  };
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** The control labelled exactly `name` (a required field's label ends in " *"). */
const field = (scope: Page | Locator, name: string) => scope.getByLabel(new RegExp(`^${name}( \\*)?$`));

suite(title('dashboard e2e'), () => {
  let server: E2eServer | undefined;
  let browser: Browser;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('dashboard');
    base = server.base;
    browser = await launchBrowser();
    page = browser.page;
  }, 180_000);

  afterEach(async (context) => {
    // A failed step leaves a picture of what the operator would have seen.
    if (context.task.result?.state === 'fail' && page)
      await screenshot(page, `FAILED-${context.task.name.slice(0, 40)}`).catch(() => {});
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it(
    'serves the dashboard at / and lands on the flags of the default namespace',
    async () => {
      await page.goto(`${base}/`);
      await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/namespaces/default/flags');
      await page.getByText('No flags in this namespace yet').waitFor();
      await screenshot(page, '01-flags-empty');
    },
    STEP,
  );

  it(
    'creates a namespace, shows a duplicate key error beside the key, and switches to it',
    async () => {
      await nav(page).getByRole('link', { name: 'Namespaces' }).click();
      await page.getByRole('button', { name: 'New namespace' }).click();
      await field(page, 'Name').fill('E2E Team');
      expect(await field(page, 'Key').inputValue()).toBe('e2e-team');
      await page.getByRole('button', { name: 'Create namespace' }).click();
      await page.getByRole('list', { name: 'Namespaces' }).getByText('e2e-team').waitFor();

      await page.getByRole('button', { name: 'New namespace' }).click();
      await field(page, 'Name').fill('E2E Team');
      await page.getByRole('button', { name: 'Create namespace' }).click();
      const keyError = page.getByText('namespace "e2e-team" is not unique');
      await keyError.waitFor();
      const errorId = await keyError.getAttribute('id');
      expect(await field(page, 'Key').getAttribute('aria-describedby')).toContain(errorId);
      await screenshot(page, '02-namespaces');
      await page.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Edit namespace e2e-team' }).click();
      const edit = page.getByRole('form', { name: 'Edit namespace e2e-team' });
      await field(edit, 'Description').fill('Flags of the e2e team');
      await edit.getByRole('button', { name: 'Save namespace' }).click();
      await page.getByRole('list', { name: 'Namespaces' }).getByText('Flags of the e2e team').waitFor();

      // A throwaway namespace goes; `default` offers no delete at all.
      await page.getByRole('button', { name: 'New namespace' }).click();
      await field(page, 'Name').fill('Scratch');
      await page.getByRole('button', { name: 'Create namespace' }).click();
      await page.getByRole('button', { name: 'Delete namespace scratch' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Namespace "scratch" deleted').waitFor();
      expect(await page.getByRole('button', { name: 'Delete namespace default' }).count()).toBe(0);
      const { namespaces } = await callApi<{ namespaces: { key: string; description: string }[] }>(
        base,
        'GET',
        '/api/v1/namespaces',
      );
      expect(namespaces.map((n) => [n.key, n.description])).toEqual([
        ['default', 'Default namespace'],
        ['e2e-team', 'Flags of the e2e team'],
      ]);

      await field(page, 'Namespace').selectOption('e2e-team');
      await page.waitForURL('**/namespaces/e2e-team/flags');
    },
    STEP,
  );

  it(
    'creates a variant flag with two variants, validating the JSON attachment as it is typed',
    async () => {
      await page.getByRole('link', { name: 'New flag' }).click();
      await page.getByLabel(/^Variant/).check();
      await field(page, 'Name').fill('Checkout color');
      await page.getByRole('switch', { name: 'Enabled' }).click();
      await page.getByRole('button', { name: 'Create flag' }).click();
      await page.waitForURL('**/namespaces/e2e-team/flags/checkout-color');

      for (const [key, attachment] of [
        ['blue', '{"hex": "#00f"}'],
        ['green', ''],
      ] as const) {
        await page.getByRole('button', { name: 'Add variant' }).click();
        const form = page.getByRole('form', { name: 'New variant' });
        await field(form, 'Key').fill(key);
        await field(form, 'Name').fill(key[0]?.toUpperCase() + key.slice(1));
        if (attachment) {
          await form.getByLabel('Attachment').fill('{"hex": ');
          await form.getByText(/Invalid JSON/).waitFor();
          expect(await form.getByRole('button', { name: 'Add variant' }).isDisabled()).toBe(true);
          await form.getByLabel('Attachment').fill(attachment);
          await form.getByText('Valid JSON').waitFor();
        }
        await form.getByRole('button', { name: 'Add variant' }).click();
        await page.getByRole('list', { name: 'Variants' }).getByText(key, { exact: true }).waitFor();
      }
      await page.getByLabel('Default variant').selectOption({ label: 'blue' });
      await page.getByText('Default variant is now "blue"').waitFor();
      const flag = await callApi<{ variants: { key: string }[]; defaultVariant?: { key: string } }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/flags/checkout-color',
      );
      expect(flag.variants.map((v) => v.key)).toEqual(['blue', 'green']);
      expect(flag.defaultVariant?.key).toBe('blue');

      await page.getByRole('button', { name: 'Edit variant green' }).click();
      const variantForm = page.getByRole('form', { name: 'Edit variant green' });
      await field(variantForm, 'Description').fill('The challenger');
      await variantForm.getByRole('button', { name: 'Save variant' }).click();
      await page.getByRole('list', { name: 'Variants' }).getByText('The challenger').waitFor();

      const details = page.getByRole('form', { name: 'Details' });
      await field(details, 'Description').fill('Which button color the checkout page shows');
      await field(details, 'Metadata').fill('{"owner": ');
      await details.getByText(/Invalid JSON/).waitFor();
      expect(await details.getByRole('button', { name: 'Save details' }).isDisabled()).toBe(true);
      await field(details, 'Metadata').fill('["not", "an object"]');
      await details.getByText('Must be a JSON object').waitFor();
      await field(details, 'Metadata').fill('{"owner": "growth"}');
      await details.getByRole('button', { name: 'Save details' }).click();
      await page.getByText('Flag "checkout-color" saved').waitFor();
      const saved = await callApi<{
        description: string;
        metadata?: Record<string, string>;
        defaultVariant?: { key: string };
      }>(base, 'GET', '/api/v1/namespaces/e2e-team/flags/checkout-color');
      expect(saved.description).toBe('Which button color the checkout page shows');
      expect(saved.metadata).toEqual({ owner: 'growth' });
      // Saving the details keeps the default variant (a PUT without it would clear it).
      expect(saved.defaultVariant?.key).toBe('blue');
      await screenshot(page, '03-flag-variants');
    },
    STEP,
  );

  it(
    'creates a segment with two constraints (a list and a datetime) and a second segment',
    async () => {
      await nav(page).getByRole('link', { name: 'Segments' }).click();
      await page.getByText('No segments in this namespace yet').waitFor();
      await page.getByRole('link', { name: 'New segment' }).click();
      await field(page, 'Name').fill('Beta users');
      await page.getByRole('button', { name: 'Create segment' }).click();
      await page.waitForURL('**/segments/beta-users');

      await page.getByRole('button', { name: 'Add constraint' }).click();
      let form = page.getByRole('form', { name: 'New constraint' });
      await form.getByLabel('Property').fill('plan');
      await form.getByLabel('Operator').selectOption('isoneof');
      await form.getByLabel('Add a value').fill('gold');
      await form.getByLabel('Add a value').press('Enter');
      await form.getByLabel('Add a value').fill('silver');
      await form.getByRole('button', { name: 'Add value' }).click();
      await form.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByRole('list', { name: 'Constraints' }).getByText('is one of').waitFor();

      await page.getByRole('button', { name: 'Add constraint' }).click();
      form = page.getByRole('form', { name: 'New constraint' });
      await form.getByLabel('Type').selectOption('DATETIME_COMPARISON_TYPE');
      // Only the datetime operators are offered, and the value is a date/time picker.
      const offered = await form
        .getByLabel('Operator')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent']);
      await form.getByLabel('Property').fill('signup');
      await form.getByLabel('Operator').selectOption('gte');
      await form.getByLabel(/Date and time/).fill('2024-01-01T00:00:00');
      await form.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByRole('list', { name: 'Constraints' }).getByText('is on or after').waitFor();
      const segment = await callApi<{ constraints: { property: string; operator: string; value: string }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/segments/beta-users',
      );
      expect(segment.constraints.map((c) => [c.property, c.operator])).toEqual([
        ['plan', 'isoneof'],
        ['signup', 'gte'],
      ]);
      expect(JSON.parse(segment.constraints[0]?.value ?? '')).toEqual(['gold', 'silver']);
      expect(segment.constraints[1]?.value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      await screenshot(page, '04-segment');

      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Segments' }).click();
      await page.getByRole('link', { name: 'New segment' }).click();
      await field(page, 'Name').fill('Staff');
      await page.getByRole('button', { name: 'Create segment' }).click();
      await page.waitForURL('**/segments/staff');
      await page.getByRole('button', { name: 'Add constraint' }).click();
      form = page.getByRole('form', { name: 'New constraint' });
      await form.getByLabel('Property').fill('email');
      await form.getByLabel('Operator').selectOption('suffix');
      await field(form, 'Value').fill('@example.com');
      await form.getByRole('button', { name: 'Add constraint' }).click();
      await page.getByRole('list', { name: 'Constraints' }).getByText('ends with').waitFor();
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Segments' }).click();
      await page.getByRole('table').getByRole('link', { name: 'Staff' }).waitFor();
      await screenshot(page, '05-segments');
    },
    STEP,
  );

  it(
    'creates rules with a 50/50 and a 0/100 distribution, refusing a total over 100',
    async () => {
      await page.goto(`${base}/namespaces/e2e-team/flags/checkout-color`);
      await page.getByRole('link', { name: 'Rules' }).click();
      await page.getByText('No rules yet').waitFor();

      await page.getByRole('button', { name: 'Add rule' }).click();
      let form = page.getByRole('form', { name: 'New rule' });
      await form.getByLabel(/Beta users/).check();
      expect(await form.getByLabel('Percentage for blue').inputValue()).toBe('50');
      expect(await form.getByLabel('Percentage for green').inputValue()).toBe('50');
      await waitForText(form.locator('output'), 'Total: 100%');
      await form.getByLabel('Percentage for blue').fill('60');
      await waitForText(form.locator('output'), 'Total: 110%');
      await form.getByRole('button', { name: 'Create rule' }).click();
      await form.getByText('The percentages must not add up to more than 100% (now 110%).').waitFor();
      expect(await form.getByLabel('Percentage for blue').evaluate((el) => el === document.activeElement)).toBe(true);
      await form.getByLabel('Percentage for blue').fill('50');
      await waitForText(form.locator('output'), 'Total: 100%');
      await form.getByRole('button', { name: 'Create rule' }).click();
      await page.getByText('Rule created').waitFor();

      await page.getByRole('button', { name: 'Add rule' }).click();
      form = page.getByRole('form', { name: 'New rule' });
      await form.getByLabel(/Staff/).check();
      await form.getByLabel('Percentage for blue').fill('0');
      await form.getByLabel('Percentage for green').fill('100');
      await form.getByRole('button', { name: 'Create rule' }).click();
      await page.getByRole('list', { name: 'Rules in evaluation order' }).getByText('Rule 2').waitFor();

      const { rules } = await callApi<{ rules: { segmentKey: string; distributions: { rollout: number }[] }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/flags/checkout-color/rules',
      );
      expect(rules.map((r) => [r.segmentKey, r.distributions.map((d) => d.rollout)])).toEqual([
        ['beta-users', [50, 50]],
        ['staff', [100]],
      ]);
      await screenshot(page, '06-rules');
    },
    STEP,
  );

  it(
    'reorders two rules by dragging, saved through PUT …/rules/order',
    async () => {
      const before = await callApi<{ rules: { id: string; segmentKey: string }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/flags/checkout-color/rules',
      );
      const [first, second] = before.rules;
      if (!first || !second) throw new Error('expected two rules');
      const source = page.getByTestId(`reorder-${second.id}`);
      const target = page.getByTestId(`reorder-${first.id}`);
      await source.dragTo(target, { sourcePosition: { x: 14, y: 14 }, targetPosition: { x: 40, y: 4 } });
      await page.getByText('Rule order saved').waitFor();
      const after = await callApi<{ rules: { id: string; segmentKey: string; rank: number }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/flags/checkout-color/rules',
      );
      expect(after.rules.map((r) => r.segmentKey)).toEqual(['staff', 'beta-users']);
      const items = page.getByRole('list', { name: 'Rules in evaluation order' }).getByRole('listitem');
      await waitForText(items.first(), /Rule 1.*Staff/);
      await screenshot(page, '07-rules-reordered');

      // The keyboard way to the same end: buttons that move a rule up or down.
      expect(await page.getByRole('button', { name: 'Move rule 2 up' }).getAttribute('aria-disabled')).toBe('false');
      expect(await page.getByRole('button', { name: 'Move rule 1 up' }).getAttribute('aria-disabled')).toBe('true');
    },
    STEP,
  );

  it(
    'evaluates in the console and shows the expected variant, reason and segments',
    async () => {
      // Entities in Beta users but not Staff fall to the 50/50 rule: bucket < 500 is blue, else green.
      const blueEntity = findEntity('checkout-color', 'user', (b) => b < 500);
      const greenEntity = findEntity('checkout-color', 'user', (b) => b >= 500);

      await nav(page).getByRole('link', { name: 'Console' }).click();
      await field(page, 'Flag').fill('checkout-color');
      await page.getByText('Variant flag: Checkout color').waitFor();
      await page.getByLabel('Entity ID').fill(blueEntity);
      await page.getByLabel('Property 1').fill('plan');
      await page.getByLabel('Value 1').fill('gold');
      await page.getByRole('button', { name: 'Add property' }).click();
      await page.getByLabel('Property 2').fill('signup');
      await page.getByLabel('Value 2').fill('2024-06-01T00:00:00Z');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await waitForText(page.getByTestId('evaluation-value'), 'blue');
      await waitForText(page.getByTestId('evaluation-reason'), 'MATCH_EVALUATION_REASON');
      await waitForText(page.getByTestId('evaluation-segments'), 'beta-users');
      await page.getByText('"#00f"').first().waitFor();
      // The explanation is rendered when the server sends one (?explain=true), else said to be absent.
      await page
        .getByRole('heading', { name: 'Explanation' })
        .or(page.getByText('The server sent no explanation'))
        .first()
        .waitFor();
      await screenshot(page, '08-console-variant');

      await page.getByLabel('Entity ID').fill(greenEntity);
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await waitForText(page.getByTestId('evaluation-value'), 'green');

      // Staff now comes first (reordered), so a staff member gets green whatever the bucket.
      await page.getByLabel('Entity ID').fill(blueEntity);
      await page.getByLabel('Property 1').fill('email');
      await page.getByLabel('Value 1').fill('ann@example.com');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await waitForText(page.getByTestId('evaluation-segments'), 'staff');
      await waitForText(page.getByTestId('evaluation-value'), 'green');

      // Nobody matches: the default variant with the default reason.
      await page.getByRole('button', { name: 'Remove email' }).click();
      await page.getByRole('button', { name: 'Remove signup' }).click();
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await waitForText(page.getByTestId('evaluation-reason'), 'DEFAULT_EVALUATION_REASON');
      await waitForText(page.getByTestId('evaluation-value'), 'blue');
    },
    STEP,
  );

  it(
    'toggles a boolean flag and the evaluation follows',
    async () => {
      await nav(page).getByRole('link', { name: 'Flags' }).click();
      await page.getByRole('link', { name: 'New flag' }).click();
      await field(page, 'Name').fill('New dashboard');
      await page.getByRole('button', { name: 'Create flag' }).click();
      await page.waitForURL('**/flags/new-dashboard');

      const evaluate = async () => {
        await page.goto(`${base}/namespaces/e2e-team/console?flag=new-dashboard`);
        await page.getByText('Boolean flag: New dashboard').waitFor();
        await page.getByLabel('Entity ID').fill('alice');
        await page.getByRole('button', { name: 'Evaluate' }).click();
        await page.getByTestId('evaluation-value').waitFor();
        return (await page.getByTestId('evaluation-value').textContent())?.trim();
      };

      expect(await evaluate()).toBe('false');
      await waitForText(page.getByTestId('evaluation-reason'), 'DEFAULT_EVALUATION_REASON');

      await page.goto(`${base}/namespaces/e2e-team/flags/new-dashboard`);
      const toggle = page.getByRole('switch', { name: 'Default value' });
      expect(await toggle.getAttribute('aria-checked')).toBe('false');
      await toggle.click();
      await page.getByText('Default value of "new-dashboard" is now true').waitFor();
      expect(await toggle.getAttribute('aria-checked')).toBe('true');
      await screenshot(page, '09-flag-boolean');

      expect(await evaluate()).toBe('true');
      await screenshot(page, '10-console-boolean');
    },
    STEP,
  );

  it(
    'adds threshold and segment rollouts and reorders them with the keyboard buttons',
    async () => {
      await page.goto(`${base}/namespaces/e2e-team/flags/new-dashboard/rollouts`);
      await page.getByText('No rollouts yet').waitFor();
      await page.getByRole('button', { name: 'Add rollout' }).click();
      let form = page.getByRole('form', { name: 'New rollout' });
      await field(form, 'Percentage').fill('30');
      await field(form, 'Value').selectOption('false');
      await form.getByRole('button', { name: 'Create rollout' }).click();
      await page.getByText('Rollout created').waitFor();

      await page.getByRole('button', { name: 'Add rollout' }).click();
      form = page.getByRole('form', { name: 'New rollout' });
      await field(form, 'Segments').check();
      await form.getByLabel(/Staff/).check();
      await form.getByRole('button', { name: 'Create rollout' }).click();
      await page.getByRole('list', { name: 'Rollouts in evaluation order' }).getByText('Rollout 2').waitFor();

      await page.getByRole('button', { name: 'Move rollout 2 up' }).click();
      await page.getByText('Rollout order saved').waitFor();
      const { rules } = await callApi<{ rules: { type: string }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/e2e-team/flags/new-dashboard/rollouts',
      );
      expect(rules.map((r) => r.type)).toEqual(['SEGMENT_ROLLOUT_TYPE', 'THRESHOLD_ROLLOUT_TYPE']);
      await screenshot(page, '11-rollouts');
    },
    STEP,
  );

  it(
    'searches and filters the flag list',
    async () => {
      await page.goto(`${base}/namespaces/e2e-team/flags`);
      await page.getByRole('table').getByRole('link', { name: 'Checkout color' }).waitFor();
      await page.getByLabel('Search').fill('dash');
      await page.getByText('1 of 2 flags match').waitFor();
      expect(await page.getByRole('table').getByRole('link').allTextContents()).toEqual(['New dashboard']);
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Type').selectOption('variant');
      await page.getByText('1 of 2 flags match').waitFor();
      expect(await page.getByRole('table').getByRole('link').allTextContents()).toEqual(['Checkout color']);
      await page.getByLabel('Type').selectOption('');
      await page.getByText('2 flags', { exact: true }).waitFor();
      await screenshot(page, '12-flags');
    },
    STEP,
  );

  it(
    'asks before deleting, and shows why a segment in use cannot be deleted',
    async () => {
      await page.goto(`${base}/namespaces/e2e-team/segments/beta-users`);
      await page.getByRole('button', { name: 'Delete segment' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Delete segment' }).click();
      await dialog.getByText('segment "e2e-team/beta-users" is in use').waitFor();
      await screenshot(page, '13-delete-segment-in-use');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      await page.goto(`${base}/namespaces/e2e-team/flags/new-dashboard`);
      await page.getByRole('button', { name: 'Delete flag' }).click();
      await page.getByRole('dialog').getByText('Delete flag "new-dashboard"?').waitFor();
      await screenshot(page, '14-confirm-delete-flag');
      await page.getByRole('dialog').getByRole('button', { name: 'Delete flag' }).click();
      await page.waitForURL('**/namespaces/e2e-team/flags');
      await page.getByText('1 flag', { exact: true }).waitFor();
      await expect(callApi(base, 'GET', '/api/v1/namespaces/e2e-team/flags/new-dashboard')).rejects.toThrow(/404/);
    },
    STEP,
  );

  it('pages through 5,000 flags, rendering one page at a time', async () => {
    await callApi(base, 'POST', '/api/v1/namespaces', { key: 'big', name: 'Big' });
    let next = 0;
    const worker = async () => {
      while (next < 5000) {
        const i = next++;
        await callApi(base, 'POST', '/api/v1/namespaces/big/flags', {
          key: `flag-${String(i).padStart(4, '0')}`,
          name: `Flag number ${i}`,
          type: i % 3 ? 'VARIANT_FLAG_TYPE' : 'BOOLEAN_FLAG_TYPE',
          enabled: i % 2 === 0,
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));

    await page.goto(`${base}/namespaces/big/flags`);
    await page.getByText('5,000 flags', { exact: true }).waitFor();
    await page.getByText('1–25 of 5,000').waitFor();
    // Only the visible page is in the DOM: that is what keeps typing and paging quick.
    expect(await page.locator('tbody tr').count()).toBe(25);
    await page.getByLabel('Per page').selectOption('100');
    await page.getByText('1–100 of 5,000').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('101–200 of 5,000').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await page.getByLabel('Search').fill('number 4999');
    await page.getByText('1 of 5,000 flags match').waitFor();
    expect(await page.getByRole('table').getByRole('link').allTextContents()).toEqual(['Flag number 4999']);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Type').selectOption('boolean');
    await page.getByLabel('State').selectOption('enabled');
    // Every 6th flag (i % 3 == 0 and even) is a boolean flag that is on.
    await page.getByText('834 of 5,000 flags match').waitFor();
    await screenshot(page, '18-flags-5000');
  }, 240_000);

  it(
    'stays usable at phone width',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/namespaces/e2e-team/flags`);
      await page.getByRole('table').getByRole('link', { name: 'Checkout color' }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, '15-phone-flags');
      await page.goto(`${base}/namespaces/e2e-team/flags/checkout-color/rules`);
      await page.getByRole('list', { name: 'Rules in evaluation order' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      await screenshot(page, '16-phone-rules');
      await page.goto(`${base}/namespaces/e2e-team/console?flag=checkout-color`);
      await page.getByLabel('Entity ID').waitFor();
      await screenshot(page, '17-phone-console');
      await page.setViewportSize({ width: 1280, height: 800 });
    },
    STEP,
  );

  it('reported no page errors or CSP violations', () => {
    expect(browser.problems).toEqual([]);
  });
});

suite(title('dashboard e2e with token authentication'), () => {
  const BOOTSTRAP = 'e2e-bootstrap-token-0123456789';
  let server: E2eServer | undefined;
  let browser: Browser;
  let base: string;
  let page: Page;

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('dashboard-auth', requireTokens(BOOTSTRAP));
    base = server.base;
    browser = await launchBrowser();
    page = browser.page;
  }, 180_000);

  afterEach(async (context) => {
    // A failed step leaves a picture of what the operator would have seen.
    if (context.task.result?.state === 'fail' && page)
      await screenshot(page, `FAILED-${context.task.name.slice(0, 40)}`).catch(() => {});
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it(
    'asks for a token, rejects a wrong one, and signs in with a valid one',
    async () => {
      await page.goto(`${base}/namespaces/default/segments`);
      await page.getByRole('heading', { name: 'Sign in with a token' }).waitFor();
      await screenshot(page, 'auth-01-login');
      await page.getByLabel('API token').fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('This token was not accepted').waitFor();
      await page.getByLabel('API token').fill(BOOTSTRAP);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/namespaces/default/segments');
      // The token lives in this tab's session: a reload keeps the operator signed in.
      await page.reload();
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    },
    STEP,
  );

  it(
    'lists tokens, creates one whose secret is shown once, and deletes one',
    async () => {
      await nav(page).getByRole('link', { name: 'API tokens' }).click();
      await page.getByRole('table').getByText('initial_bootstrap_token').waitFor();
      await page.getByRole('button', { name: 'New token' }).click();
      await field(page, 'Name').fill('ci-runner');
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = await page.getByTestId('token-secret').inputValue();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}=$/);
      await page.getByRole('table').getByText('ci-runner').waitFor();
      await screenshot(page, 'auth-02-tokens');
      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.getByTestId('token-secret').count()).toBe(0);

      await page.getByRole('button', { name: 'New token' }).click();
      await field(page, 'Name').fill('temporary');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await page.getByRole('button', { name: 'Delete token temporary' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText('Token "temporary" deleted').waitFor();
      expect(await page.getByRole('table').getByText('temporary').count()).toBe(0);

      // Sign in again with the new token, then revoke it behind the dashboard's back: the next call
      // gets 401 and the dashboard asks for a token again.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in with a token' }).waitFor();
      await page.getByLabel('API token').fill(secret);
      const calls = trackApiCalls(page);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
      // The page's own reads after sign-in (tokens, namespaces) must be answered before the token is
      // revoked, or one of them gets the 401 and the dialog opens before the click below.
      await page.getByRole('table').getByText('ci-runner').waitFor();
      await calls.quiet();
      calls.stop();
      const { authentications } = await callApi<{
        authentications: { id: string; metadata: Record<string, string> }[];
      }>(base, 'GET', '/auth/v1/tokens', undefined, BOOTSTRAP);
      const ci = authentications.find((a) => a.metadata['io.flipt.auth.token.name'] === 'ci-runner');
      if (!ci) throw new Error('ci-runner token not listed');
      await callApi(base, 'DELETE', `/auth/v1/tokens/${ci.id}`, undefined, BOOTSTRAP);
      await nav(page).getByRole('link', { name: 'Flags' }).click();
      // A sign-in dialog over the page (what the operator was doing stays underneath).
      const dialog = page.getByRole('dialog', { name: 'Sign in with a token' });
      await dialog.getByText('Your token was not accepted').waitFor();
      await screenshot(page, 'auth-03-relogin');
      await dialog.getByLabel('API token').fill(BOOTSTRAP);
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('heading', { name: 'Flags', level: 1 }).waitFor();
      await page.getByText('No flags in this namespace yet').waitFor();
    },
    STEP,
  );

  it('reported no page errors or CSP violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
