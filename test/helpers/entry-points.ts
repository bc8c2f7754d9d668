// Every entry point of both transports with its declared access (src/auth/access.ts), walked the way
// the access coverage test walks them: the HTTP router's recorded route table and every gRPC service
// table, the change stream included. And what a caller's roles should get from one of them, worked out
// from the declaration alone (neededRole) and the namespaces the call addresses: the role matrix's
// expectation, kept apart from the code it checks (auth/authorize.ts).

import { WATCH_ENTRY } from '../../src/api/grpc/change-service.js';
import { fliptServiceTables } from '../../src/api/grpc/flipt-services.js';
import { declaredRoutes } from '../../src/api/http/route-kinds.js';
import { KIND_POLICIES, type KindPolicy, UNDECLARED_POLICY } from '../../src/api/kinds.js';
import type { App } from '../../src/app/build-app.js';
import type { Access } from '../../src/auth/access.js';
import type { AuthGroup } from '../../src/auth/access-groups.js';
import {
  holdsRole,
  holdsRoleEverywhere,
  includesRole,
  neededRole,
  type Role,
  type RoleBinding,
  type RoleNeed,
} from '../../src/auth/roles/roles.js';
import { createRoleBindings } from '../../src/features/role-bindings/index.js';

export interface EntryPoint {
  transport: 'http' | 'grpc';
  /** `GET /api/v1/flags/:key` or `flipt.Flipt/GetFlag`: the key of its sample. */
  key: string;
  access: Access;
  /** Who may call it by its kind: anyone (`open`), or a credential of a group `authentication.exclude` may open. */
  group: AuthGroup | 'unclassified' | 'open';
  /** gRPC only: the service and method names. */
  service?: string;
  method?: string;
}

function groupOf(policy: KindPolicy): EntryPoint['group'] {
  return policy.access.open ? 'open' : policy.access.group;
}

/** Every HTTP route the app registered (undeclared ones with no access are the coverage test's concern). */
export function httpEntryPoints(app: App): EntryPoint[] {
  return declaredRoutes(app.http)
    .filter((route) => route.access !== undefined)
    .map((route) => ({
      transport: 'http',
      key: `${route.method} ${route.url}`,
      access: route.access as Access,
      group: groupOf(route.kind === undefined ? UNDECLARED_POLICY : KIND_POLICIES[route.kind]),
    }));
}

/** Every gRPC method of every service table, the change stream included. */
export function grpcEntryPoints(app: App): EntryPoint[] {
  const tables = {
    ...fliptServiceTables(app.services, app.config),
    'vexil.changes.v1.ChangeService': [WATCH_ENTRY],
    ...createRoleBindings(app.db.kysely, app.services.recorded, undefined).grpcTables,
  };
  return Object.entries(tables).flatMap(([service, rpcs]) =>
    rpcs
      .filter((rpc) => rpc.access !== undefined)
      .map((rpc) => ({
        transport: 'grpc' as const,
        key: `${service}/${rpc.method}`,
        access: rpc.access as Access,
        group: groupOf(KIND_POLICIES[rpc.kind]),
        service,
        method: rpc.method,
      })),
  );
}

/** Whether a declaration's rule names the namespaces a call addresses (else it addresses none, or all). */
export function addressesNamespace(access: Access): boolean {
  // `binding`: the role bindings API's rule, for a binding's own namespace.
  const rule: string = access.namespace;
  return rule === 'request' || rule === 'key' || rule === 'items' || rule === 'binding';
}

export interface Expectation {
  /** The role whose lack refuses the call; undefined: the call is allowed. */
  refusedFor: Role | undefined;
}

/**
 * What `bindings` get from an entry point addressing `addressed` (undefined: no namespace). `handlerRole`:
 * a check the handler makes on the object it acts on (a token read by id needs admin where the token
 * reaches), for declarations whose rule addresses no namespace.
 */
export function expectation(
  bindings: readonly RoleBinding[],
  access: Access,
  addressed: readonly string[] | undefined,
  handlerRole?: Role,
): Expectation {
  if (access.self === true || access.selfExpire === true) return { refusedFor: undefined };
  const need: RoleNeed | undefined =
    handlerRole !== undefined ? { role: handlerRole, everywhere: false } : neededRole(access);
  if (need === undefined) return { refusedFor: undefined };
  // A read across namespaces is filtered, never refused (the rows check what it shows).
  if (handlerRole === undefined && access.namespace === 'filtered') return { refusedFor: undefined };
  const held = (() => {
    if (need.everywhere || access.namespace === 'all') return holdsRoleEverywhere(bindings, need.role);
    if (addressed === undefined) return bindings.some((binding) => includesRole(binding.role, need.role));
    return addressed.every((namespace) => holdsRole(bindings, need.role, namespace));
  })();
  return { refusedFor: held ? undefined : need.role };
}
