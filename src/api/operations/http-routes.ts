// The HTTP registrar: every route of every operation of the table, with its schemas (the OpenAPI
// document is made from them), `config: { kind: 'management', access }` (route-kinds.ts: the hooks,
// tiers and authorization read it), and a handler that is the operation's three steps: the request
// as the operation's input, the named handler, the answer as Flipt's JSON. If-Match and the revision
// header are the management hooks' business, as for every management route.

import type { Services } from '../../services/index.js';
import type { HttpApp } from '../http/http-app.js';
import { errorResponses } from '../http/schemas/common.js';
import type { AnyOperation, HttpRoute } from './operation.js';

function registerRoute(app: HttpApp, services: Services, op: AnyOperation, route: HttpRoute): void {
  const { tags, params, querystring, body, response } = op.schema;
  app.route({
    method: route.method,
    url: route.url,
    config: { kind: 'management', access: op.access },
    schema: {
      tags,
      hide: route.hide === true,
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      ...(body ? { body } : {}),
      response: { 200: response, ...errorResponses },
    },
    handler: async (request) => {
      // A body of JSON `null` reads as none, as an absent one (the converters' `body = {}`).
      const input = op.fromHttp({ params: request.params, query: request.query, body: request.body ?? undefined });
      return op.toJson(await op.handle(services, input, request.authentication));
    },
  });
}

/** Registers the HTTP routes of `operations`, in their order (the OpenAPI document keeps it). */
export function registerOperationRoutes(app: HttpApp, services: Services, operations: readonly AnyOperation[]): void {
  for (const op of operations) {
    for (const route of op.routes) registerRoute(app, services, op, route);
  }
}
