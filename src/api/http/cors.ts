// Flipt's `cors` section through @fastify/cors. Nothing is installed unless `cors.enabled`, so by
// default no request pays for it. When enabled, the plugin's onRequest hook runs before every other
// (installCors is called before authentication and the tiers are installed), so:
// - a preflight (OPTIONS with Access-Control-Request-Method) is answered 204 there, before the bearer
//   check could refuse it: browsers send preflights without credentials;
// - every other answer, including those the evaluation routes write themselves and the errors of the
//   authentication hook, carries the Access-Control-* headers it set on the reply.
// As Flipt (go-chi/cors): methods GET, POST, PUT, DELETE, OPTIONS; credentials allowed; max age 5 min;
// `*` among the origins allows any. Exposed: Link (Flipt's), ETag (OFREP bulk) and X-Vexil-Revision.
// An OPTIONS request that is no preflight gets the 404/501 it gets without CORS.

import cors from '@fastify/cors';
import type { Config } from '../../config/schema.js';
import { GrpcCode } from '../../domain/errors.js';
import { sendErrorBody } from './error-handler.js';
import type { HttpApp } from './http-app.js';
import { REVISION_HEADER } from './wire.js';

export const CORS_EXPOSED_HEADERS = ['Link', 'ETag', REVISION_HEADER];
const CORS_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
const PREFLIGHT_MAX_AGE_SECONDS = 300;

/** Call before authentication and any route. */
export async function installCors(app: HttpApp, settings: Config['cors']): Promise<void> {
  if (!settings.enabled) return;

  // The plugin's catch-all preflight route declares no kind of its own: it is open to anyone.
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*') {
      route.config = {
        ...route.config,
        kind: 'preflight',
        access: { resource: 'service', action: 'read', namespace: 'none' },
      };
    }
  });

  // The plugin would answer an OPTIONS that is no preflight with a plain-text 400.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined) {
      return done();
    }
    const path = request.url.split('?')[0] ?? '/';
    const known = app.hasRouteWithOtherMethod('OPTIONS', path);
    sendErrorBody(request, reply.code(known ? 501 : 404), {
      code: known ? GrpcCode.UNIMPLEMENTED : GrpcCode.NOT_FOUND,
      message: known ? 'Method Not Allowed' : 'Not Found',
      details: [],
    });
  });

  await app.register(cors, {
    origin: settings.allowed_origins.includes('*') ? '*' : settings.allowed_origins,
    methods: CORS_METHODS,
    allowedHeaders: settings.allowed_headers,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: true,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
}
