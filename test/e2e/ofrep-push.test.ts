// OFREP push in a real browser (issue 29): Debian's chromium runs a page with @openfeature/web-sdk and
// @openfeature/ofrep-web-provider (polling off) against a running Vexil with ofrep.event_streams on.
// A flag changed through the API reaches the page's flag value through the event stream (asserted
// within 5 s; the measured times are printed), with and without authentication (then through a stream
// ticket), and after the server restarts the provider reconnects and catches up with a change made
// while it was down.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';
import { ROOT, type RunningVexil, startVexil } from '../helpers/process.js';
import { type Browser, browserSkipReason, launchBrowser } from './browser.js';
import { requireTokens } from './server.js';

const skip = browserSkipReason();
const BOOT = 'ofrep-push-browser-token';
const FLAG = 'pushed';
const CHANGES = 10;

/** The page script, bundled once from test/e2e/ofrep-page/page.ts (nothing from the internet). */
function bundlePage(): string {
  const out = join(ROOT, 'test-results', 'ofrep-page.js');
  const result = spawnSync(
    join(ROOT, 'node_modules/.bin/esbuild'),
    ['test/e2e/ofrep-page/page.ts', '--bundle', '--format=iife', `--outfile=${out}`, '--log-level=warning'],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  if (result.status !== 0) throw new Error(`esbuild failed: ${result.stderr || result.stdout}`);
  return readFileSync(out, 'utf8');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const variants = [
  { name: 'no authentication', auth: false },
  { name: 'authentication required (stream ticket)', auth: true },
];

describe.skipIf(skip)(`OFREP web provider in chromium${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let script: string;
  beforeAll(() => {
    script = bundlePage();
  });

  describe.each(variants)('$name', ({ auth }) => {
    let database: TestDatabase;
    let vexil: RunningVexil;
    let browser: Browser;
    let env: Record<string, string>;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(auth ? { authorization: `Bearer ${BOOT}` } : {}),
    };

    const setFlag = async (enabled: boolean): Promise<number> => {
      const res = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags/${FLAG}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ name: FLAG, enabled }),
      });
      expect(res.status).toBe(200);
      return Date.now();
    };

    beforeAll(async () => {
      const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
      if (!sqlite) throw new Error('sqlite backend missing');
      database = await createTestDatabase(sqlite);
      env = {
        VEXIL_DB_URL: database.url,
        VEXIL_OFREP_EVENT_STREAMS_ENABLED: 'true',
        ...(auth ? requireTokens(BOOT) : {}),
      };
      vexil = await startVexil(env);
      const created = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ key: FLAG, name: FLAG, type: 'BOOLEAN_FLAG_TYPE', enabled: false }),
      });
      expect(created.status).toBe(200);
      browser = await launchBrowser();
      // The page is served at Vexil's own origin, so the provider's requests and its EventSource
      // go to the real server without CORS.
      const pageUrl = `${vexil.baseUrl}/__ofrep-push-test`;
      await browser.page.route(pageUrl, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html><head><title>push</title></head><body><script>${script}</script></body></html>`,
        }),
      );
      await browser.page.goto(pageUrl);
      const initial = await browser.page.evaluate((options) => window.startFlags(options), {
        baseUrl: vexil.baseUrl,
        flag: FLAG,
        ...(auth ? { token: BOOT } : {}),
      });
      expect(initial).toBe(false);
      await browser.page.waitForFunction(() => window.streamsOpened >= 1, undefined, { timeout: 10_000 });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await vexil?.stop();
      await database?.drop();
    });

    it(`${CHANGES} changes through the API each reach the page within 5 s`, async () => {
      const delays: number[] = [];
      let enabled = false;
      for (let i = 0; i < CHANGES; i++) {
        enabled = !enabled;
        const written = await setFlag(enabled);
        await browser.page.waitForFunction((want) => window.flagValue() === want, enabled, { timeout: 5_000 });
        const seenAt = await browser.page.evaluate(
          ({ want, after }) => window.seen.find((s) => s.value === want && s.at >= after)?.at,
          { want: enabled, after: written - 5 },
        );
        delays.push(Math.max(0, (seenAt ?? Date.now()) - written));
      }
      console.log(
        `[ofrep push, ${auth ? 'auth' : 'no auth'}] write → page value over ${CHANGES} changes: ` +
          `median ${median(delays)} ms, max ${Math.max(...delays)} ms (${delays.join(', ')})`,
      );
      expect(browser.problems).toEqual([]);
    }, 120_000);

    it('after a restart the provider reconnects and catches up with a change made while the server was down', async () => {
      const before = await browser.page.evaluate(() => window.flagValue());
      const opened = await browser.page.evaluate(() => window.streamsOpened);
      await vexil.stop();
      // The change lands in the database while no server runs.
      const offline = await buildApp(loadConfig({ env: {}, overrides: { db: { url: database.url } } }), {
        logger: pino({ level: 'silent' }),
      });
      const res = await offline.http.inject({
        method: 'PUT',
        url: `/api/v1/namespaces/default/flags/${FLAG}`,
        headers: auth ? { authorization: `Bearer ${BOOT}` } : {},
        payload: { name: FLAG, enabled: !before },
      });
      expect(res.statusCode).toBe(200);
      await offline.close();
      vexil = await startVexil(env, ['serve'], { httpPort: vexil.httpPort });
      const restartedAt = Date.now();
      await browser.page.waitForFunction((want) => window.flagValue() === want, !before, { timeout: 30_000 });
      const caughtUp = Date.now() - restartedAt;
      expect(await browser.page.evaluate(() => window.streamsOpened)).toBeGreaterThan(opened);
      console.log(`[ofrep push, ${auth ? 'auth' : 'no auth'}] caught up ${caughtUp} ms after the server was back`);
      // And push works again on the new process.
      const written = await setFlag(before);
      await browser.page.waitForFunction((want) => window.flagValue() === want, before, { timeout: 5_000 });
      expect(Date.now() - written).toBeGreaterThanOrEqual(0);
    }, 120_000);
  });
});
