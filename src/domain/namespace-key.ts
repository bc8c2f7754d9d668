// The one rule for a request's namespace: an empty (or absent) namespace key means `default`, on every
// route, RPC and stream, as in Flipt (behavior.md §1.1). Both transports apply it at their edge before
// any service sees the key (HTTP: api/http/namespace-default.ts for path parameters, the handlers for
// body, query and header fields; gRPC: api/grpc/rpc.ts), and authorization reads the request through
// it (auth/authorize.ts), so a token scoped to `default` may address "".
// Services take the key as given.

import { DEFAULT_NAMESPACE } from './types.js';

/** The namespace a request addresses when it names `key`: the key itself, or `default` when empty. */
export function namespaceKeyOrDefault(key: unknown): string {
  return typeof key === 'string' && key !== '' ? key : DEFAULT_NAMESPACE;
}
