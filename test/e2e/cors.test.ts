// CORS in a real browser (issue 27): a page served from another origin (a static server of this test on
// its own port) evaluates a flag through @openfeature/web-sdk with @openfeature/ofrep-web-provider, and
// through @flipt-io/flipt-client-browser, against a Vexil with `cors.enabled` and required
// authentication (so the preflights carry Authorization and X-Service-Namespace, and must pass the
// bearer check). Against the same server without CORS, both fail: the browser withholds the answers.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/process.js';
import { type Browser, browserSkipReason, launchBrowser } from './browser.js';

const skipReason = browserSkipReason();
const suite = skipReason ? describe.skip : describe;
const title = (name: string) => (skipReason ? `${name} (skipped: ${skipReason})` : name);

const TOKEN = 'cors-e2e-bootstrap-token';

/** Bundles the page script for the browser into `dir` (esbuild, everything local). */
function bundlePage(dir: string): void {
  const result = spawnSync(
    join(ROOT, 'node_modules/.bin/esbuild'),
    [
      join(ROOT, 'test/e2e/cors-page/page.ts'),
      '--bundle',
      '--format=esm',
      '--platform=browser',
      '--target=es2022',
      `--outfile=${join(dir, 'page.js')}`,
      '--log-level=warning',
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0) throw new Error(`esbuild failed: ${result.stderr || result.stdout || result.error}`);
}

/** A static server of the page on 127.0.0.1 (another port: another origin than Vexil's). */
async function servePage(dir: string): Promise<{ server: Server; origin: string }> {
  const html =
    '<!doctype html><html><head><title>loading</title></head><body><script type="module" src="/page.js"></script></body></html>';
  const script = readFileSync(join(dir, 'page.js'));
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, origin: `http://127.0.0.1:${port}` };
}

async function startVexil(corsOrigins: string[] | undefined): Promise<{ t: TestApp; api: string }> {
  const t = await startTestApp(
    { name: 'sqlite' },
    {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: TOKEN } } } },
      ...(corsOrigins ? { cors: { enabled: true, allowed_origins: corsOrigins } } : {}),
    },
  );
  const flag = { key: 'cors-flag', name: 'CORS flag', type: 'BOOLEAN_FLAG_TYPE', enabled: true };
  expect((await call(t.app, 'POST', '/api/v1/namespaces/default/flags', flag, bearer(TOKEN))).status).toBe(200);
  const { httpPort } = await t.app.listen();
  return { t, api: `http://127.0.0.1:${httpPort}` };
}

suite(title('CORS from a page of another origin'), () => {
  let dir: string;
  let page: { server: Server; origin: string };
  let withCors: { t: TestApp; api: string };
  let withoutCors: { t: TestApp; api: string };
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vexil-cors-page-'));
    bundlePage(dir);
    page = await servePage(dir);
    withCors = await startVexil([page.origin]);
    withoutCors = await startVexil(undefined);
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await withCors?.t.close();
    await withoutCors?.t.close();
    await new Promise((resolve) => page?.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the page against `api` and returns what it found. */
  async function visit(api: string): Promise<Record<string, Record<string, unknown>>> {
    const url = `${page.origin}/?api=${encodeURIComponent(api)}&token=${TOKEN}`;
    await browser.page.goto(url);
    await browser.page.waitForFunction(() => document.title === 'done', undefined, { timeout: 60_000 });
    return (await browser.page.evaluate(() => (window as unknown as { results: unknown }).results)) as Record<
      string,
      Record<string, unknown>
    >;
  }

  it('evaluates through the OFREP web provider and Flipt browser client, and reads the exposed headers', async () => {
    const results = await visit(withCors.api);
    expect(results.ofrep).toMatchObject({ value: true, errorCode: null });
    expect(results.flipt).toMatchObject({ value: true });
    expect(results.exposed).toMatchObject({ status: 200 });
    expect(results.exposed?.etag).toMatch(/^(W\/)?".+"$/);
    expect(results.exposed?.revision).toMatch(/.+/);
  }, 90_000);

  it('fails both ways without CORS', async () => {
    const results = await visit(withoutCors.api);
    expect(results.ofrep?.value).not.toBe(true);
    expect(results.ofrep?.errorCode ?? results.ofrep?.error).toBeTruthy();
    expect(results.flipt?.error).toBeTruthy();
    expect(results.exposed?.error).toMatch(/fetch/i);
  }, 90_000);
});
