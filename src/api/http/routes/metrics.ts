// GET /metrics: the app's Prometheus metrics in the text exposition format. Open by default, as in
// Flipt (an open route of the kind table); with `metrics.token` set, a scraper must send it as a
// Bearer credential (Prometheus: `authorization: { credentials: … }`), else 401 with Flipt's body,
// since the series name every flag key (ADR 0023). Not mounted when `metrics.enabled` is false. HEAD
// answers too, as Flipt's Prometheus handler answers every method.

import { createHash, timingSafeEqual } from 'node:crypto';
import { presentedToken } from '../../../auth/credentials.js';
import { UnauthenticatedError } from '../../../domain/errors.js';
import type { HttpApp } from '../http-app.js';
import type { RouteDeps } from './deps.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the token, compared in constant time (digests have one length). */
function carriesToken(authorization: string | undefined, expected: Buffer): boolean {
  if (authorization === undefined) return false;
  const token = presentedToken({ authorization });
  return token !== undefined && token !== '' && timingSafeEqual(digest(token), expected);
}

export async function metricsRoutes(app: HttpApp, { config }: RouteDeps): Promise<void> {
  const { metrics } = app;
  if (!metrics?.enabled) return;
  const expected = config.metrics.token === '' ? undefined : digest(config.metrics.token);
  app.get(
    '/metrics',
    {
      config: { kind: 'probe', access: { resource: 'service', action: 'read', namespace: 'none' } },
      exposeHeadRoute: true,
      schema: { hide: true },
    },
    async (request, reply) => {
      if (expected !== undefined && !carriesToken(request.headers.authorization, expected)) {
        throw new UnauthenticatedError();
      }
      reply.type(metrics.contentType);
      return metrics.render();
    },
  );
}
