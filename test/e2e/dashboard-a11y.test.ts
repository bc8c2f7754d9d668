// Accessibility of the dashboard (issue 30), in Debian's chromium against the real `vexil serve` behind
// token authentication: axe-core checks every page with real content (lists, a variant flag with
// rules, a boolean flag with rollouts, a segment with constraints, a console result, tokens, sign-in,
// the first-run empty state, the open palette, an open dialog) against WCAG 2.0/2.1/2.2 A and AA, in
// the light and the dark theme at desktop width and the light theme at phone width. Each state is
// also kept as a full-page screenshot (test-results/e2e/a11y-<page>-<theme>-<width>.png). Every request the pages make across
// the whole walk is recorded: the dashboard may only talk to the documented public API and fetch its
// own assets.

import { AxeBuilder } from '@axe-core/playwright';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { callApi, type E2eServer, requireTokens, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const TOKEN = 'a11y-bootstrap-token-0123456789abcdef';
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

type Theme = 'light' | 'dark';
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** One page state to check: where it is, and what shows it has loaded its real content. */
interface Stop {
  name: string;
  /** Opens the state on `page` and waits until its content is there. */
  open(page: Page, base: string): Promise<void>;
  /** Opened in a fresh tab, which has no session token (the sign-in page). */
  signedOut?: boolean;
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

const STOPS: Stop[] = [
  {
    name: 'sign-in',
    signedOut: true,
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags`);
      await page.getByLabel('API token').waitFor();
    },
  },
  {
    name: 'namespaces',
    async open(page, base) {
      await page.goto(`${base}/settings/namespaces`);
      await h1(page, 'Namespaces');
      await page.getByRole('list', { name: 'Namespaces' }).getByText('Team', { exact: true }).waitFor();
    },
  },
  {
    name: 'flags',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags`);
      await page.getByRole('table').getByRole('link', { name: 'Checkout color' }).waitFor();
    },
  },
  {
    name: 'first-run',
    async open(page, base) {
      await page.goto(`${base}/namespaces/empty/flags`);
      await page.getByTestId('first-run-snippet').waitFor();
    },
  },
  {
    name: 'variant-flag',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags/checkout-color`);
      await page.getByRole('list', { name: 'Variants' }).getByText('green', { exact: true }).waitFor();
    },
  },
  {
    name: 'variant-flag-rules',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags/checkout-color/rules`);
      await page.getByRole('list', { name: 'Rules in evaluation order' }).getByText('Rule 1').waitFor();
    },
  },
  {
    name: 'boolean-flag-rollouts',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags/new-checkout/rollouts`);
      await page.getByRole('button', { name: 'Add rollout' }).waitFor();
      await page
        .getByText(/30\s?%/)
        .first()
        .waitFor();
    },
  },
  {
    name: 'segments',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/segments`);
      await page.getByRole('table').getByRole('link', { name: 'Beta users' }).waitFor();
    },
  },
  {
    name: 'segment',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/segments/beta`);
      await h1(page, 'Beta users');
      await page.getByText('plan', { exact: true }).first().waitFor();
      await page.getByRole('list', { name: 'Flags using this segment' }).waitFor();
    },
  },
  {
    name: 'console',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/console?flag=checkout-color`);
      await page.getByLabel('Entity ID').fill('ann');
      await page.getByLabel('JSON').check();
      await page.getByLabel('Context (JSON)').fill('{"plan": "gold", "seats": "12"}');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await page.getByRole('heading', { name: 'Explanation' }).waitFor();
      // The rule matched, so the result shows a variant and its distribution, not only "no variant".
      await page
        .getByTestId('evaluation-summary')
        .getByText(/rule 1 \(beta\) matched/)
        .waitFor();
    },
  },
  {
    name: 'tokens',
    async open(page, base) {
      await page.goto(`${base}/settings/tokens`);
      await h1(page, 'API tokens');
      await page.getByText('ci-reader').first().waitFor();
    },
  },
  {
    name: 'palette',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags`);
      await page.getByRole('table').getByRole('link', { name: 'Checkout color' }).waitFor();
      await page.keyboard.press('Control+k');
      await page.getByRole('combobox', { name: /Find flags/ }).fill('checkout');
      await page.getByRole('option', { name: /Checkout color/ }).waitFor();
    },
  },
  {
    name: 'dialog',
    async open(page, base) {
      await page.goto(`${base}/namespaces/default/flags/checkout-color`);
      await h1(page, 'Checkout color');
      await page.getByRole('button', { name: 'Delete flag' }).click();
      await page.getByRole('dialog').getByText('Delete flag "checkout-color"?').waitFor();
    },
  },
];

/** The public API (docs/api.md, docs/architecture.md) and the dashboard's own files: nothing else. */
const PUBLIC_API = /^\/(api\/v1|auth\/v1|evaluate\/v1|ofrep\/v1|internal\/v1\/evaluation\/snapshot|meta)\/|^\/health$/;

function describeViolations(
  violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown }[] }[],
) {
  return violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} [${v.impact ?? '?'}] ${JSON.stringify(n.target)}: ${v.help}`),
  );
}

suite(title('dashboard: accessibility (axe, WCAG 2.2 A/AA) and public-API-only traffic'), () => {
  let server: E2eServer | undefined;
  let browser: Browser;
  let base: string;
  const requests: { url: string; type: string; method: string }[] = [];

  const api = <T>(method: string, path: string, body?: unknown) => callApi<T>(base, method, path, body, TOKEN);

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('a11y', requireTokens(TOKEN));
    base = server.base;
    await api('POST', '/api/v1/namespaces', { key: 'team', name: 'Team', description: 'The team namespace' });
    await api('POST', '/api/v1/namespaces', { key: 'empty', name: 'Empty' });
    const ns = '/api/v1/namespaces/default';
    await api('POST', `${ns}/segments`, { key: 'beta', name: 'Beta users', matchType: 'ALL_MATCH_TYPE' });
    await api('POST', `${ns}/segments/beta/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'gold',
    });
    await api('POST', `${ns}/segments/beta/constraints`, {
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'seats',
      operator: 'gte',
      value: '10',
    });
    await api('POST', `${ns}/flags`, {
      key: 'checkout-color',
      name: 'Checkout color',
      type: 'VARIANT_FLAG_TYPE',
      enabled: true,
      description: 'Colour of the checkout button',
    });
    const variants: { id: string }[] = [];
    for (const key of ['blue', 'green'])
      variants.push(await api('POST', `${ns}/flags/checkout-color/variants`, { key, name: key.toUpperCase() }));
    const rule = await api<{ id: string }>('POST', `${ns}/flags/checkout-color/rules`, { segmentKey: 'beta', rank: 1 });
    for (const [i, v] of variants.entries())
      await api('POST', `${ns}/flags/checkout-color/rules/${rule.id}/distributions`, {
        variantId: v.id,
        rollout: i === 0 ? 60 : 40,
      });
    await api('POST', `${ns}/flags`, { key: 'new-checkout', name: 'New checkout', type: 'BOOLEAN_FLAG_TYPE' });
    await api('POST', `${ns}/flags/new-checkout/rollouts`, { rank: 1, segment: { segmentKey: 'beta', value: true } });
    await api('POST', `${ns}/flags/new-checkout/rollouts`, { rank: 2, threshold: { percentage: 30, value: true } });
    await api('POST', '/auth/v1/method/token', { name: 'ci-reader', description: 'Read-only for CI' });

    browser = await launchBrowser();
    browser.context.on('request', (r: Request) =>
      requests.push({ url: r.url(), type: r.resourceType(), method: r.method() }),
    );
    await browser.page.goto(`${base}/namespaces/default/flags`);
    await browser.page.getByLabel('API token').fill(TOKEN);
    await browser.page.getByRole('button', { name: 'Sign in' }).click();
    await h1(browser.page, 'Flags');
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  // Both themes at desktop width, where every colour is checked; the phone layout in the light theme,
  // for what only width changes (target sizes, reflow, overflow). A theme changes colours, not layout.
  const COMBINATIONS = [
    ['light', 'desktop'],
    ['dark', 'desktop'],
    ['light', 'phone'],
  ] as const satisfies readonly (readonly [Theme, keyof typeof WIDTHS])[];

  for (const [theme, width] of COMBINATIONS) {
    const viewport = WIDTHS[width];
    it(`every page has 0 axe violations in the ${theme} theme at ${width} width`, async () => {
      const { page, context } = browser;
      await page.setViewportSize(viewport);
      // The theme preference lives in localStorage and is read when the page loads.
      await page.evaluate((t) => localStorage.setItem('vexil.preferences', JSON.stringify({ theme: t })), theme);
      const found: string[] = [];
      for (const stop of STOPS) {
        const tab = stop.signedOut ? await context.newPage() : page;
        try {
          if (stop.signedOut) await tab.setViewportSize(viewport);
          await stop.open(tab, base);
          expect(await tab.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
          const results = await new AxeBuilder({ page: tab }).withTags(TAGS).analyze();
          // A run that checked nothing would pass vacuously.
          expect(results.passes.length).toBeGreaterThan(10);
          found.push(...describeViolations(results.violations).map((v) => `${stop.name}: ${v}`));
          await screenshot(tab, `a11y-${stop.name}-${theme}-${width}`);
          if (stop.name === 'palette' || stop.name === 'dialog') await tab.keyboard.press('Escape');
        } finally {
          if (stop.signedOut) await tab.close();
        }
      }
      expect(found, found.join('\n')).toEqual([]);
    }, 300_000);
  }

  it('the dashboard only ever asked for its own files and the public API, on this server', () => {
    const origin = new URL(base).origin;
    expect(requests.length).toBeGreaterThan(50);
    const asked = requests.filter((r) => !r.url.startsWith('data:'));
    const stray = asked.filter((r) => {
      const url = new URL(r.url);
      if (url.origin !== origin) return true;
      if (PUBLIC_API.test(url.pathname)) return false;
      // The dashboard's own files: its pages (history-API routes answered with index.html) and the
      // hashed bundles under /assets/.
      if (r.type === 'document') return false;
      return !(url.pathname.startsWith('/assets/') && ['script', 'stylesheet', 'font', 'image'].includes(r.type));
    });
    expect(stray.map((r) => `${r.method} ${r.url} (${r.type})`)).toEqual([]);
    // The walk really went through the API: the lists, a flag, the evaluation and the tokens.
    const paths = asked.map((r) => new URL(r.url).pathname);
    for (const expected of [
      '/meta/info',
      '/auth/v1/self',
      '/api/v1/namespaces',
      '/api/v1/namespaces/default/flags/checkout-color',
      '/auth/v1/tokens',
    ])
      expect(paths).toContain(expected);
    expect(paths.some((p) => p.startsWith('/evaluate/v1/') || p.startsWith('/internal/v1/'))).toBe(true);
  });

  it('reported no page errors or CSP violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
