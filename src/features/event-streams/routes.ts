// The change streams' HTTP routes: OFREP's event stream (in the OFREP scope, so its errors have OFREP's
// body) and its native twin beside the client snapshot. ofrep.ts and snapshot.ts call these where the
// routes always stood, which keeps the OpenAPI document's order.

import Type from 'typebox';
import type { HttpApp } from '../../api/http/http-app.js';
import { ErrorBodySchema } from '../../api/http/schemas/common.js';
import { ofrepErrorResponses } from '../../api/http/schemas/ofrep.js';
import type { SseHub } from './sse-hub.js';
import { OFREP_STREAM_ACCESS } from './tickets.js';

/** GET /ofrep/v1/namespaces/{namespaceKey}/events, registered in the OFREP scope. */
export function ofrepStreamRoute(scope: HttpApp, hub: SseHub): void {
  scope.get(
    '/v1/namespaces/:namespaceKey/events',
    {
      schema: {
        tags: ['ofrep'],
        summary: "The namespace's change stream (OFREP event stream, server-sent events)",
        params: Type.Object({ namespaceKey: Type.String() }),
        querystring: Type.Object({ ticket: Type.Optional(Type.String()) }),
        response: { 200: Type.String({ description: 'text/event-stream' }), ...ofrepErrorResponses },
      },
      config: { kind: 'ofrep-events', access: OFREP_STREAM_ACCESS },
    },
    (request, reply) => hub.open(request, reply, request.params.namespaceKey),
  );
}

/**
 * The native twin of OFREP's event stream: the same messages, for server-side SDKs and the dashboard
 * (which sends its bearer token or cookie; no ticket here).
 */
export function snapshotStreamRoute(app: HttpApp, hub: SseHub): void {
  app.get(
    '/internal/v1/evaluation/snapshot/namespace/:key/events',
    {
      config: { kind: 'change-stream', access: { resource: 'stream', action: 'watch', namespace: 'key' } },
      schema: {
        tags: ['evaluation'],
        summary: "The namespace's change stream (server-sent events; a Vexil extension)",
        params: Type.Object({ key: Type.String() }),
        response: {
          200: Type.String({ description: 'text/event-stream' }),
          401: ErrorBodySchema,
          403: ErrorBodySchema,
        },
      },
    },
    (request, reply) => hub.open(request, reply, request.params.key),
  );
}
