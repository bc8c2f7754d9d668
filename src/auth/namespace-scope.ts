// The namespace(s) a request addresses, for tokens restricted to one namespace
// (`io.flipt.auth.token.namespace`), and for the revision header of management answers. As in Flipt:
// the namespace path parameter, else the body's (or query's) `namespaceKey`, an empty one counting as
// `default` (domain/namespace-key.ts: this check runs before the handler resolves it); a namespace create uses its `key`; a
// batch addresses the namespaces of all its items; a request that names no namespace (listing
// namespaces) addresses none and a scoped token may not make it.

import { namespaceKeyOrDefault } from '../domain/namespace-key.js';

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The parameter name that follows a `namespaces` or `namespace` segment of a route URL, if any. */
export function namespaceParamOf(routeUrl: string): string | undefined {
  const segments = routeUrl.split('/');
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i];
    const next = segments[i + 1] as string;
    if ((segment === 'namespaces' || segment === 'namespace') && next.startsWith(':')) {
      return next.slice(1).replace(/\(.*$/, '');
    }
  }
  return undefined;
}

export interface ScopedRequest {
  routeUrl: string;
  method: string;
  params: unknown;
  query: unknown;
  body: unknown;
}

/** The namespaces the request addresses; undefined when it names none. */
export function requestNamespaces(request: ScopedRequest): string[] | undefined {
  const param = namespaceParamOf(request.routeUrl);
  if (param !== undefined) return [namespaceKeyOrDefault(asObject(request.params)?.[param])];

  const body = asObject(request.body);
  if (request.routeUrl === '/api/v1/namespaces') {
    const key = body?.key;
    return request.method === 'POST' && typeof key === 'string' && key !== '' ? [key] : undefined;
  }

  const items = body?.requests;
  if (Array.isArray(items)) {
    const keys = new Set(items.map((item) => namespaceKeyOrDefault(asObject(item)?.namespaceKey)));
    if (typeof body?.namespaceKey === 'string' && body.namespaceKey !== '') keys.add(body.namespaceKey);
    return keys.size ? [...keys] : [namespaceKeyOrDefault(undefined)];
  }

  const query = asObject(request.query);
  return [namespaceKeyOrDefault(body?.namespaceKey ?? query?.namespaceKey ?? query?.namespace_key)];
}

/** Routes that answer a scoped token with its own namespace's part only (the change log across namespaces). */
const SCOPE_FILTERED_READS = new Set(['/api/v1/changes']);

/** Whether a token restricted to `scope` may make this request. */
export function namespaceAllowed(scope: string, request: ScopedRequest): boolean {
  if (request.method === 'GET' && SCOPE_FILTERED_READS.has(request.routeUrl)) return true;
  const namespaces = requestNamespaces(request);
  return namespaces?.every((ns) => ns === scope) ?? false;
}
