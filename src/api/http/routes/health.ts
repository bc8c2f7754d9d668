// GET /health: SERVING while the instance is ready, NOT_SERVING (503) while it starts or stops. HEAD
// answers too (Flipt: 501): load balancers probe with it.

import Type from 'typebox';
import type { HttpApp } from '../http-app.js';
import { ErrorBodySchema } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';
import { sendExactJson } from './route-helpers.js';

const SERVING = JSON.stringify({ status: 'SERVING' });
const NOT_SERVING = JSON.stringify({ status: 'NOT_SERVING' });
const UNKNOWN_SERVICE = JSON.stringify({ code: 5, message: 'unknown service', details: [] });

export async function healthRoutes(app: HttpApp, { health }: RouteDeps): Promise<void> {
  app.get(
    '/health',
    {
      config: { kind: 'probe', access: { resource: 'service', action: 'read', namespace: 'none' } },
      exposeHeadRoute: true,
      schema: {
        tags: ['health'],
        querystring: Type.Object({ service: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({ status: Type.String() }),
          404: ErrorBodySchema,
          503: Type.Object({ status: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const service = request.query.service ?? '';
      // `Content-Type: application/json` exactly, as Flipt answers (route-helpers.ts).
      if (service !== '' && service !== 'flipt' && service !== 'vexil') {
        return sendExactJson(reply.code(404), UNKNOWN_SERVICE);
      }
      const status = health.status();
      return sendExactJson(reply.code(status === 'SERVING' ? 200 : 503), status === 'SERVING' ? SERVING : NOT_SERVING);
    },
  );
}
