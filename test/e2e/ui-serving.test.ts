// How the server serves the dashboard (src/api/http/routes/ui.ts), through Fastify inject on a
// stand-in build: files and index.html with security headers, index.html for client-side routes,
// Flipt's JSON 404 kept for everything under the API prefixes, 503 when the dashboard is not built,
// and nothing at all on the read tier or with `ui.enabled: false`.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthState } from '../../src/api/health-state.js';
import { buildHttpApp } from '../../src/api/http/app.js';
import type { HttpApp } from '../../src/api/http/http-app.js';
import type { RouteDeps } from '../../src/api/http/routes/deps.js';
import { uiRoutes } from '../../src/api/http/routes/ui.js';
import { LongLivedStreams } from '../../src/api/long-lived-streams.js';
import { loadConfig } from '../../src/config/load.js';

const INDEX = '<!doctype html><title>Vexil</title><div id="root"></div>';
/** A stylesheet worth compressing (the real bundles are tens of KiB). */
const CSS = '.flag { color: #123456; }\n'.repeat(200);
const NOT_FOUND = { code: 5, message: 'Not Found', details: [] };

async function appWith(distDir: string, overrides: Record<string, unknown> = {}): Promise<HttpApp> {
  const app = await buildHttpApp({ bodyLimit: 1024 * 1024, logger: false, version: 'test' });
  const deps: RouteDeps = {
    config: loadConfig({ env: {}, overrides }),
    // The dashboard routes use no service; the API stand-in below answers by itself.
    services: {} as RouteDeps['services'],
    health: new HealthState(),
    streams: new LongLivedStreams(),
  };
  app.get('/api/v1/namespaces', async () => ({ namespaces: [], nextPageToken: '', totalCount: 0 }));
  await uiRoutes(app, deps, { distDir });
  await app.ready();
  return app;
}

const get = (app: HttpApp, url: string, accept = 'text/html,*/*') =>
  app.inject({ method: 'GET', url, headers: { accept } });

describe('dashboard serving', () => {
  let dir: string;
  let app: HttpApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vexil-ui-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log("vexil")');
    writeFileSync(join(dir, 'assets', 'app-abc123.css'), CSS);
    app = await appWith(dir);
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / with nosniff, a restrictive CSP and no caching', async () => {
    const res = await get(app, '/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toBe(INDEX);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets with the same headers and a long cache', async () => {
    const res = await get(app, '/assets/app-abc123.js', '*/*');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.body).toBe('console.log("vexil")');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('gzips assets for clients that accept it, keeping their headers (chi Compress in Flipt)', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/assets/app-abc123.css',
      headers: { accept: 'text/css,*/*', 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/css/);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.length).toBeLessThan(CSS.length);
    expect(gunzipSync(res.rawPayload).toString()).toBe(CSS);
    const plain = await get(app, '/assets/app-abc123.css', 'text/css,*/*');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(CSS);
  });

  it('answers client-side routes with index.html (GET and HEAD)', async () => {
    for (const url of [
      '/namespaces/default/flags',
      '/namespaces/x/flags/y/rules?page=2',
      '/settings/tokens',
      '/anything/else',
    ]) {
      const res = await get(app, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(INDEX);
      expect(res.headers['content-security-policy'], url).toBeDefined();
    }
    const head = await app.inject({ method: 'HEAD', url: '/namespaces/default/segments' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers HEAD for the page and the assets, and 501 for it on API routes', async () => {
    for (const url of ['/', '/index.html', '/assets/app-abc123.js']) {
      const res = await app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe('');
      expect(res.headers['content-security-policy'], url).toBeDefined();
    }
    expect((await app.inject({ method: 'HEAD', url: '/' })).headers['content-type']).toMatch(/^text\/html/);
    const api = await app.inject({ method: 'HEAD', url: '/api/v1/namespaces' });
    expect(api.statusCode).toBe(501);
  });

  it("keeps Flipt's JSON 404 for unknown paths under the API prefixes", async () => {
    const apiPaths = [
      '/api/v1/nope',
      '/api',
      '/evaluate/v1/nope',
      '/ofrep/v1/nope',
      '/auth/v1/nope',
      '/meta/nope',
      '/internal/v1/nope',
      '/health/nope',
      '/metrics/nope',
      '/openapi.jsonx',
    ];
    for (const url of apiPaths) {
      const res = await get(app, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual(NOT_FOUND);
    }
    expect((await get(app, '/api/v1/namespaces')).json()).toEqual({ namespaces: [], nextPageToken: '', totalCount: 0 });
  });

  it('serves a rebuild without a restart', async () => {
    writeFileSync(join(dir, 'assets', 'app-def456.js'), 'console.log("rebuilt")');
    writeFileSync(join(dir, 'index.html'), INDEX.replace('Vexil', 'Vexil 2'));
    expect((await get(app, '/assets/app-def456.js', '*/*')).body).toBe('console.log("rebuilt")');
    expect((await get(app, '/flags')).body).toContain('Vexil 2');
    writeFileSync(join(dir, 'index.html'), INDEX);
  });

  it('does not turn other methods or missing files into the page', async () => {
    const post = await app.inject({ method: 'POST', url: '/namespaces/default/flags', payload: '{}' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual(NOT_FOUND);
    const missingScript = await get(app, '/assets/gone-999.js', '*/*');
    expect(missingScript.statusCode).toBe(404);
    expect(missingScript.json()).toEqual(NOT_FOUND);
    // A known API path with another method is still 501, not swallowed by the dashboard.
    const del = await app.inject({ method: 'DELETE', url: '/api/v1/namespaces' });
    expect(del.statusCode).toBe(501);
  });
});

describe('dashboard not built', () => {
  let dir: string;
  let app: HttpApp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vexil-ui-empty-'));
    app = await appWith(join(dir, 'dist'));
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers / and client-side routes with a short 503 saying how to build it', async () => {
    for (const url of ['/', '/namespaces/default/flags']) {
      const res = await get(app, url);
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toContain('npm run build');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('leaves the API alone', async () => {
    expect((await get(app, '/api/v1/nope')).json()).toEqual(NOT_FOUND);
    expect((await get(app, '/api/v1/namespaces')).statusCode).toBe(200);
  });
});

describe.each([
  ['on the read tier', { server: { mode: 'read' } }],
  ["with Flipt's ui.enabled: false", { ui: { enabled: false } }],
])('%s', (_label, overrides) => {
  it('serves no dashboard', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-ui-read-'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    const app = await appWith(dir, overrides);
    try {
      const res = await get(app, '/');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
      expect((await get(app, '/namespaces/default/flags')).statusCode).toBe(404);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
