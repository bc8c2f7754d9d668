// The gRPC registrar: the flipt.Flipt entries (api/grpc/rpc.ts) of every operation of the table. An
// entry is the operation's three steps: the request message as the operation's input, the named
// handler, the answer as its message with proto/'s own names (so rpc.ts renames nothing on the way out).

import type { Services } from '../../services/index.js';
import type { Rpc } from '../grpc/rpc.js';
import type { AnyOperation, RequestMessage } from './operation.js';

export function operationRpc(services: Services, op: AnyOperation): Rpc<RequestMessage> {
  // Which namespaces the call addresses, for authorization, is the declaration's rule (auth/authorize.ts).
  return {
    method: op.rpc,
    kind: 'management',
    access: op.access,
    write: op.write,
    answersInProtoNames: true,
    handle: async (message, context) =>
      op.toMessage(await op.handle(services, op.fromMessage(message), context.authentication)),
  };
}

/** The RPC entries of `operations`. */
export function operationRpcs(services: Services, operations: readonly AnyOperation[]): Rpc<RequestMessage>[] {
  return operations.map((op) => operationRpc(services, op));
}
