// vexil.roles.v1.RoleBindingService (proto/vexil/roles/v1/roles.proto): the gRPC twin of the
// /api/v1/roles/bindings routes, one entry a method over the same service, with the same kind and
// access (routes.ts says why), so the same callers are refused the same way before the handler runs.

import { wireToMessage } from '../../api/grpc/messages.js';
import type { AnyRpc } from '../../api/grpc/rpc.js';
import type { AccessAction, NamespaceRule } from '../../auth/access.js';
import { bindingToWire, type StoredRoleBinding } from './binding.js';
import type { RoleBindingService } from './service.js';

export const ROLE_BINDING_SERVICE = 'vexil.roles.v1.RoleBindingService';

const access = (action: AccessAction, namespace: NamespaceRule) =>
  ({ resource: 'role-binding', action, namespace }) as const;

const message = (binding: StoredRoleBinding) => wireToMessage(bindingToWire(binding), false);

/** The service's table; requests arrive with camelCase names (api/grpc/field-case.ts). */
export function roleBindingRpcs(bindings: RoleBindingService): AnyRpc[] {
  return [
    {
      method: 'ListRoleBindings',
      kind: 'auth',
      access: access('read', 'filtered'),
      handle: async (_request: unknown, context) => ({
        bindings: (await bindings.list(context.authentication)).map(message),
      }),
    },
    {
      method: 'GetRoleBinding',
      kind: 'auth',
      access: access('read', 'none'),
      handle: async (request: { id: string }, context) =>
        message(await bindings.get(context.authentication, request.id)),
    },
    {
      method: 'CreateRoleBinding',
      kind: 'auth',
      access: access('create', 'binding'),
      write: true,
      handle: async (request: unknown, context) => message(await bindings.create(context.authentication, request)),
    },
    {
      method: 'DeleteRoleBinding',
      kind: 'auth',
      access: access('delete', 'none'),
      write: true,
      async handle(request: { id: string }, context) {
        await bindings.delete(context.authentication, request.id);
        return {};
      },
    },
  ];
}
