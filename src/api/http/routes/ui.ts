// The dashboard: the static build in ui/dist served at `/`, and index.html for any other GET that no
// route answered (client-side routes such as /namespaces/default/flags/x), except under the API
// prefixes, which keep Flipt's 404 body. Without a build, `/` answers 503 saying how to make one.
// Every UI response carries nosniff and a CSP that allows only this origin's scripts and styles.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { Access } from '../../../auth/access.js';
import type { HttpApp } from '../http-app.js';
import { UI_ASSETS_PREFIX } from '../route-kinds.js';
import type { RouteDeps } from './deps.js';

/** ui/dist, from src/api/http/routes (tsx) or dist/api/http/routes (built): both sit four levels down. */
const SERVICE_READ: Access = { resource: 'service', action: 'read', namespace: 'none' };

export const UI_DIST = fileURLToPath(new URL('../../../../ui/dist/', import.meta.url));

/** Paths that belong to the API: an unknown one there is Flipt's JSON 404, never the dashboard. */
const API_PREFIXES = ['/api', '/evaluate', '/ofrep', '/auth', '/meta', '/internal', '/health', '/metrics'];

export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Signed-in people's pictures come from their provider (OIDC picture, GitHub avatar): https images.
    "img-src 'self' data: https:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT = 'The Vexil dashboard is not built. Run `npm run build` (or `npm start`), then reload this page.\n';

function isApiPath(path: string): boolean {
  if (path.startsWith('/openapi.json')) return true;
  return API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  for (const [name, value] of Object.entries(UI_SECURITY_HEADERS)) reply.header(name, value);
  return reply;
}

export interface UiOptions {
  /** The built dashboard; tests point it elsewhere. */
  distDir?: string;
}

export async function uiRoutes(app: HttpApp, { config }: RouteDeps, options: UiOptions = {}): Promise<void> {
  // The read tier serves evaluations only (DESIGN.md "Tiers"); Flipt's `ui.enabled: false` turns it off.
  if (config.server.mode === 'read' || !config.ui.enabled) return;
  const dist = options.distDir ?? UI_DIST;
  const indexFile = join(dist, 'index.html');
  if (!existsSync(indexFile))
    app.logger.warn({ dist }, 'dashboard not built (run npm run build); / answers 503 until it is');

  // Hashed bundles under /assets/ only: a catch-all route at `/` would turn unknown API paths and
  // methods into the page instead of the app's 404/501. Looked up per request, so a rebuild is
  // served without a restart.
  await app.register(fastifyStatic, {
    root: join(dist, 'assets'),
    // Its routes are of kind `ui` by this prefix (route-kinds.ts): the plugin takes no route config.
    prefix: UI_ASSETS_PREFIX,
    index: false,
    suppressWarning: true,
    setHeaders(reply, path) {
      withSecurityHeaders(reply);
      // Vite puts a content hash in every asset name: cache those for good; index.html (also sent
      // through this plugin) never.
      reply.header('cache-control', path.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });

  const sendIndex = (reply: FastifyReply) => {
    withSecurityHeaders(reply).header('cache-control', 'no-cache');
    if (!existsSync(indexFile)) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return reply.type('text/html; charset=utf-8').sendFile('index.html', dist);
  };

  // HEAD as well, as for the assets and client-side routes (the app does not add it by itself).
  const page = { exposeHeadRoute: true, schema: { hide: true }, config: { kind: 'ui' as const, access: SERVICE_READ } };
  app.get('/', page, (_request, reply) => sendIndex(reply));
  app.get('/index.html', page, (_request, reply) => sendIndex(reply));

  // Client-side routes: a GET that no route matched, outside the API, gets index.html. Answered by
  // the app's not-found handler rather than a catch-all route, so POST /foo stays a 404 and
  // GET /api/v1/nope Flipt's JSON 404, and rather than an onRequest hook, so matched routes
  // (evaluations above all) pay nothing for it.
  app.notFoundFallbacks.push((request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = request.url.split('?')[0] ?? '/';
    if (isApiPath(path)) return false;
    // Only navigations want the page; a missing script or image (a path with an extension, not
    // asked for as HTML) stays a 404.
    if (/\.[A-Za-z0-9]{1,8}$/.test(path) && !(request.headers.accept ?? '').includes('text/html')) return false;
    sendIndex(reply);
    return true;
  });
}
