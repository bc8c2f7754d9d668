// Browser and build helpers for the dashboard end-to-end tests: Debian's chromium driven by
// playwright-core (never a downloaded browser), a fresh profile per run, and screenshots under
// test-results/.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { ROOT } from '../helpers/process.js';

export const CHROMIUM = process.env.VEXIL_TEST_CHROMIUM || '/usr/bin/chromium';

/** Why the e2e suite cannot run here, or undefined when it can. */
export function browserSkipReason(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `chromium not found at ${CHROMIUM} (install Debian's chromium or set VEXIL_TEST_CHROMIUM)`;
}

export const SCREENSHOTS = join(ROOT, 'test-results', 'e2e');

let built = false;

/** Blocks this worker for `ms` (the build below is synchronous, and so is waiting for another's). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds the dashboard into ui/dist, so the server under test serves the current source. The build
 * goes to a temp folder first and is swapped in, so a server running meanwhile never sees a half-empty
 * ui/dist. Once per `vitest run`: the first file to ask builds (holding a lock directory named for the
 * run) and marks ui/dist as built for the run; the others wait for the mark. A build that fails
 * leaves no mark, so the next file tries again and reports its own failure.
 */
export function buildDashboard(): void {
  if (built) return;
  const run = inject('testRunId') ?? `pid-${process.pid}`;
  const dist = join(ROOT, 'ui', 'dist');
  const mark = join(dist, `.built-for-${run}`);
  const lock = join(tmpdir(), `vexil-dashboard-build-${run}`);
  for (;;) {
    if (existsSync(mark)) {
      built = true;
      return;
    }
    try {
      mkdirSync(lock);
      break;
    } catch {
      sleepSync(250);
    }
  }
  try {
    if (!existsSync(mark)) buildInto(dist);
    writeFileSync(mark, '');
    built = true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function buildInto(dist: string): void {
  const staging = `.dist-e2e-${process.pid}`;
  // The dashboard compiles against types generated from the server's /openapi.json: regenerate
  // them first, so an e2e run sees the API as it is.
  const types = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi-types.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (types.status !== 0) throw new Error(`openapi types failed: ${types.stderr || types.stdout || types.error}`);
  const result = spawnSync(
    join(ROOT, 'node_modules/.bin/vite'),
    ['build', '--config', 'ui/vite.config.ts', '--outDir', staging, '--emptyOutDir', '--logLevel', 'warn'],
    // Vitest sets NODE_ENV=test, and a vite build that inherits it bundles React's development build
    // (StrictMode then mounts every effect twice): the browser tests would drive a page no user gets.
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NODE_ENV: 'production' } },
  );
  if (result.status !== 0) throw new Error(`vite build failed: ${result.stderr || result.stdout || result.error}`);
  const old = join(ROOT, 'ui', `.dist-old-${process.pid}`);
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(join(ROOT, 'ui', staging), dist);
  rmSync(old, { recursive: true, force: true });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Problems the page reported (uncaught errors, CSP violations, console errors). */
  problems: string[];
  close(): Promise<void>;
}

/** `touch`: a touch screen (a phone): coarse pointer, no hover. `args`: more chromium flags for one test. */
export async function launchBrowser(
  viewport = { width: 1280, height: 800 },
  { touch = false, args = [] }: { touch?: boolean; args?: string[] } = {},
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'vexil-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    ...(touch ? { hasTouch: true, isMobile: true } : {}),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // 401/404 answers the app expects and handles show up as console errors of the resource load.
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A full-page screenshot at test-results/e2e/<name>.png. `streaming`: the page holds a change stream
 * open, so it never goes network-idle; it is given a moment to settle instead.
 */
export async function screenshot(page: Page, name: string, { streaming = false } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let notices and transitions settle so the picture shows the state, not an animation frame.
  if (streaming) await page.waitForTimeout(500);
  else await page.waitForLoadState('networkidle');
  // The sidebar is sticky: from the top, a full-page picture shows it where a person sees it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
