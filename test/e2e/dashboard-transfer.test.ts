// End to end, in Debian's chromium against the real `vexil serve`: the namespaces page exports a
// namespace as a Flipt document (a download), copies a namespace under a new key after a preview, and
// imports an uploaded document after a dry-run preview; a document that fails (an alias bomb too) shows
// its error and leaves the database as it was.

import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, browserSkipReason, buildDashboard, launchBrowser, screenshot } from './browser.js';
import { callApi, type E2eServer, startE2eServer } from './server.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);
const STEP = 120_000;

interface FlagList {
  flags: { key: string; type: string; enabled: boolean; variants: { key: string; attachment: string }[] }[];
}

const IMPORTED = `version: "1.4"
namespace:
  key: uploaded
  name: Uploaded
flags:
  - key: banner
    name: Banner
    type: VARIANT_FLAG_TYPE
    enabled: true
    variants:
      - key: big
        attachment:
          size: 3
segments:
  - key: everyone
    name: Everyone
    match_type: ALL_MATCH_TYPE
`;

const BROKEN = `version: "1.4"
namespace: broken
flags:
  - key: banner
    name: Banner
    type: VARIANT_FLAG_TYPE
    rules:
      - segment: nobody
`;

/** 10^9 strings in a flag's metadata once its aliases are expanded, in a few hundred bytes. */
const ALIAS_BOMB = [
  'namespace: bombed',
  'anchors:',
  '  l0: &l0 "lol"',
  ...Array.from({ length: 9 }, (_, i) => `  l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`),
  'flags:',
  '  - key: bomb',
  '    name: Bomb',
  '    metadata:',
  '      payload: *l9',
  '',
].join('\n');

suite(title('dashboard: export, copy and import namespaces'), () => {
  let server: E2eServer | undefined;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    buildDashboard();
    server = await startE2eServer('transfer');
    base = server.base;
    await callApi(base, 'POST', '/api/v1/namespaces', { key: 'source', name: 'Source' });
    const ns = '/api/v1/namespaces/source';
    await callApi(base, 'POST', `${ns}/flags`, { key: 'dark-mode', name: 'Dark mode', type: 'BOOLEAN_FLAG_TYPE' });
    await callApi(base, 'POST', `${ns}/flags`, {
      key: 'colour',
      name: 'Colour',
      type: 'VARIANT_FLAG_TYPE',
      enabled: true,
    });
    await callApi(base, 'POST', `${ns}/flags/colour/variants`, { key: 'blue', attachment: '{"hex":"#00f"}' });
    await callApi(base, 'POST', `${ns}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' });
    await callApi(base, 'POST', `${ns}/flags/colour/rules`, { segmentKey: 'beta', rank: 1 });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${base}/settings/namespaces`);
    await page.getByRole('heading', { name: 'Namespaces', level: 1 }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it(
    'exports a namespace as a Flipt 1.4 document',
    async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export namespace source' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('source.features.yml');
      const text = readFileSync((await download.path()) as string, 'utf8');
      // A file, as `vexil export -o` writes one: the header line, a blank line, then Flipt's text.
      expect(text).toMatch(/^# exported by Vexil \(v[^)]+\) on \S+\n\nversion: "1.4"\n/);
      for (const key of ['dark-mode', 'colour', 'blue', 'beta']) expect(text).toContain(key);
    },
    STEP,
  );

  it(
    'copies a namespace under a new key after a preview',
    async () => {
      await page.getByRole('button', { name: 'Copy namespace source' }).click();
      const form = page.getByRole('form', { name: 'Copy namespace source' });
      await form.getByLabel(/^New key/).fill('source-staging');
      await form.getByLabel(/^New name/).fill('Source (staging)');
      await form.getByRole('button', { name: 'Preview' }).click();
      const preview = page.getByRole('definition').first();
      await page.getByText('Will create: 1 namespace, 2 flags, 1 segment').waitFor();
      expect(await preview.textContent()).toContain('source-staging');
      await screenshot(page, 'transfer-01-copy-preview');
      // The preview wrote nothing.
      const before = await callApi<{ namespaces: { key: string }[] }>(base, 'GET', '/api/v1/namespaces');
      expect(before.namespaces.map((n) => n.key)).not.toContain('source-staging');

      await form.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Namespace "source" copied to "source-staging"').waitFor();
      await page.getByRole('list', { name: 'Namespaces' }).getByText('Source (staging)').waitFor();
      const strip = (list: FlagList) =>
        list.flags.map((f) => ({
          key: f.key,
          type: f.type,
          enabled: f.enabled,
          variants: f.variants.map((v) => [v.key, JSON.parse(v.attachment || 'null')]),
        }));
      const original = await callApi<FlagList>(base, 'GET', '/api/v1/namespaces/source/flags');
      const copy = await callApi<FlagList>(base, 'GET', '/api/v1/namespaces/source-staging/flags');
      expect(strip(copy)).toEqual(strip(original));
      const rules = await callApi<{ rules: { segmentKey: string }[] }>(
        base,
        'GET',
        '/api/v1/namespaces/source-staging/flags/colour/rules',
      );
      expect(rules.rules.map((r) => r.segmentKey)).toEqual(['beta']);
    },
    STEP,
  );

  it(
    'imports an uploaded document after a dry run, and shows a failing one without writing',
    async () => {
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const panel = page.getByRole('region', { name: 'Import' });
      await panel
        .getByLabel('Document')
        .setInputFiles({ name: 'bad.yml', mimeType: 'application/yaml', buffer: Buffer.from(BROKEN) });
      await panel.getByRole('button', { name: 'Preview' }).click();
      // The failing flag by key as well as index, and the line in the file (issue 42, item 5).
      await panel
        .getByText(/flags\[0\] \(banner\)\.rules\[0\]\.segment at line 8: segment "nobody" not found/)
        .waitFor();
      await screenshot(page, 'transfer-02-import-error');

      // A YAML alias bomb (issue 36): refused, naming the limit, before anything expands it.
      await panel
        .getByLabel('Document')
        .setInputFiles({ name: 'bomb.yml', mimeType: 'application/yaml', buffer: Buffer.from(ALIAS_BOMB) });
      await panel.getByRole('button', { name: 'Preview' }).click();
      await panel.getByText(/YAML aliases expand it by more than 1048576 characters/).waitFor();

      await panel
        .getByLabel('Document')
        .setInputFiles({ name: 'uploaded.yml', mimeType: 'application/yaml', buffer: Buffer.from(IMPORTED) });
      await panel.getByRole('button', { name: 'Preview' }).click();
      await panel.getByText('Will create: 1 namespace, 1 flag, 1 segment').waitFor();
      await screenshot(page, 'transfer-03-import-preview');
      const before = await callApi<{ namespaces: { key: string }[] }>(base, 'GET', '/api/v1/namespaces');
      expect(before.namespaces.map((n) => n.key)).not.toContain('uploaded');
      expect(before.namespaces.map((n) => n.key)).not.toContain('broken');
      expect(before.namespaces.map((n) => n.key)).not.toContain('bombed');

      await panel.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByText('Imported uploaded.yml: 1 namespace, 1 flag, 1 segment').waitFor();
      await page.getByRole('list', { name: 'Namespaces' }).getByRole('link', { name: 'Uploaded' }).waitFor();
      const flags = await callApi<FlagList>(base, 'GET', '/api/v1/namespaces/uploaded/flags');
      expect(flags.flags.map((f) => [f.key, f.variants.map((v) => JSON.parse(v.attachment))])).toEqual([
        ['banner', [{ size: 3 }]],
      ]);
    },
    STEP,
  );

  it('reported no page errors or CSP violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
