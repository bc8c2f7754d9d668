// An empty namespace in a route's path means `default` (domain/namespace-key.ts): a client that leaves
// its namespace empty calls `/api/v1/namespaces//segments`. Every route whose URL has a namespace
// parameter (`…/namespaces/:namespaceKey/…`, `/ofrep/v1/namespaces/:ns/events`, the snapshot's
// `…/namespace/:key`) gets its handler wrapped, once at registration, so the parameter is resolved
// before the handler (and any service) reads it. A wrapper and not a hook: the cost is one string
// check per request, and the evaluation and snapshot routes that have such a parameter get no hook.
// The namespace-scoped token check runs before the handler and resolves the parameter itself, by the
// same rule (auth/namespace-scope.ts). Namespaces named in a body, query or header are resolved by the
// handler that reads them, with the same function.

import type { RouteOptions } from 'fastify';
import { namespaceParamOf } from '../../auth/namespace-scope.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { HttpApp } from './http-app.js';

type Handler = RouteOptions['handler'];

/** The route's handler with its namespace parameter resolved first (the handler itself when it has none). */
export function withNamespaceDefault(url: string, handler: Handler): Handler {
  const param = namespaceParamOf(url);
  if (param === undefined) return handler;
  return function resolvedNamespace(this: ThisParameterType<Handler>, request, reply) {
    const params = request.params as Record<string, unknown>;
    params[param] = namespaceKeyOrDefault(params[param]);
    return handler.call(this, request, reply);
  };
}

/** Call before any route is registered. */
export function installNamespaceDefault(app: HttpApp): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    route.handler = withNamespaceDefault(route.url ?? '', route.handler);
  });
}
