// The gRPC registrar: the flipt.Flipt entries (api/grpc/rpc.ts) of every operation of the table. An
// entry is the operation's three steps: the request message as the operation's input, the named
// handler, the answer as its message with proto/'s own names (so rpc.ts renames nothing on the way out).

import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { Services } from '../../services/index.js';
import type { Rpc } from '../grpc/rpc.js';
import type { AnyOperation, RequestMessage } from './operation.js';

type Namespaces = Rpc<RequestMessage>['namespaces'];

/**
 * The namespaces a request addresses, for namespace-scoped tokens, by the operation's namespace rule.
 * `request` is rpc.ts's default. A namespace operation addresses its own key (empty meaning `default`),
 * except a creation, which addresses a namespace only when it names one; a listing addresses none.
 */
function namespacesOf(op: AnyOperation): Namespaces {
  switch (op.access.namespace) {
    case 'key':
      return op.access.action === 'create'
        ? (message) => (message.key ? [message.key] : undefined)
        : (message) => [namespaceKeyOrDefault(message.key)];
    case 'none':
      return () => undefined;
    default:
      return undefined;
  }
}

export function operationRpc(services: Services, op: AnyOperation): Rpc<RequestMessage> {
  const namespaces = namespacesOf(op);
  return {
    method: op.rpc,
    kind: 'management',
    access: op.access,
    write: op.write,
    answersInProtoNames: true,
    ...(namespaces ? { namespaces } : {}),
    handle: async (message) => op.toMessage(await op.handle(services, op.fromMessage(message))),
  };
}

/** The RPC entries of `operations`. */
export function operationRpcs(services: Services, operations: readonly AnyOperation[]): Rpc<RequestMessage>[] {
  return operations.map((op) => operationRpc(services, op));
}
