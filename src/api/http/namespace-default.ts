// An empty namespace in a route's path means `default` (domain/namespace-key.ts): a client that leaves
// its namespace empty calls `/api/v1/namespaces//segments`. Every route whose declared access reads its
// namespace from a path parameter (auth/access.ts: rule `request` reads `:namespaceKey`, rule `key`
// reads `:key`: the namespace routes and the snapshot's `…/namespace/:key`) gets its handler wrapped,
// once at registration, so the parameter is resolved before the handler (and any service) reads it.
// A wrapper and not a hook: the cost is one string check per request, and the evaluation and snapshot
// routes that have such a parameter get no hook. Authorization runs before the handler and resolves
// the parameter itself, by the same rule (auth/authorize.ts). Namespaces named in a body, query or
// header are resolved by the handler that reads them, with the same function.

import type { RouteOptions } from 'fastify';
import type { Access } from '../../auth/access.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { HttpApp } from './http-app.js';
import { accessOf } from './route-kinds.js';

type Handler = RouteOptions['handler'];

/** The path parameter that holds the namespace the route's access rule reads, if its URL has one. */
export function namespaceParamOf(url: string, access: Access | undefined): string | undefined {
  const rule = access?.namespace;
  const param = rule === 'request' || rule === 'items' ? 'namespaceKey' : rule === 'key' ? 'key' : undefined;
  if (param === undefined) return undefined;
  return url.split('/').includes(`:${param}`) ? param : undefined;
}

/** The route's handler with its namespace parameter resolved first (the handler itself when it has none). */
export function withNamespaceDefault(url: string, access: Access | undefined, handler: Handler): Handler {
  const param = namespaceParamOf(url, access);
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
    route.handler = withNamespaceDefault(route.url ?? '', accessOf(route), route.handler);
  });
}
