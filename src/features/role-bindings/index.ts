// Role bindings stored through the API (issue 41, ADR 47), as a feature slice: the role_bindings table
// (migration.ts, store.ts), the use case (service.ts, grants.ts), the /api/v1/roles/bindings routes
// (routes.ts, schemas.ts) and their gRPC twin (rpcs.ts), and the in-memory copy the RoleResolver
// reads (stored-rules.ts) with the job that keeps it fresh on every instance (jobs.ts). app/ composes them.

import type { Kysely } from 'kysely';
import type { AnyRpc } from '../../api/grpc/rpc.js';
import type { RouteModule } from '../../api/http/routes/deps.js';
import type { RoleResolver } from '../../auth/roles/resolver.js';
import type { RecordedChanges } from '../../services/change-recorder.js';
import type { MigrationsFor } from '../../storage/migrations/index.js';
import type { Database } from '../../storage/schema.js';
import { roleBindingsTable } from './migration.js';
import { roleBindingRoutes } from './routes.js';
import { ROLE_BINDING_SERVICE, roleBindingRpcs } from './rpcs.js';
import { RoleBindingService } from './service.js';
import { StoredBindingRules } from './stored-rules.js';

export { roleBindingJobs } from './jobs.js';
export { ROLE_BINDING_SERVICE, roleBindingRpcs } from './rpcs.js';
export type { StoredBindingRules } from './stored-rules.js';

export const ROLE_BINDING_MIGRATIONS: MigrationsFor = (dialect) => ({
  '009-role-bindings': roleBindingsTable(dialect),
});

export interface RoleBindings {
  readonly service: RoleBindingService;
  readonly routes: readonly RouteModule[];
  /** The gRPC service (vexil.roles.v1.RoleBindingService) by name, with its table. */
  readonly grpcTables: Readonly<Record<string, AnyRpc[]>>;
  /** The copy the resolver reads; undefined while `authorization.roles` is not configured (nothing to apply). */
  readonly stored: StoredBindingRules | undefined;
  /** Loads the stored bindings before the app takes requests (a no-op when they do not apply). */
  prepare(): Promise<void>;
}

/**
 * The bindings over the database. `resolver`: `services.auth.roles`, present only when people's roles
 * are configured; the stored bindings are then handed to it.
 */
export function createRoleBindings(
  db: Kysely<Database>,
  recorded: RecordedChanges,
  resolver: RoleResolver | undefined,
): RoleBindings {
  const copy = new StoredBindingRules(db);
  const stored = resolver === undefined ? undefined : copy;
  // biome-ignore lint/correctness/useHookAtTopLevel: a RoleResolver method, not a React hook
  if (stored !== undefined) resolver?.useStored(stored);
  const service = new RoleBindingService({ db, recorded }, copy, resolver !== undefined);
  return {
    service,
    routes: [roleBindingRoutes(service)],
    grpcTables: { [ROLE_BINDING_SERVICE]: roleBindingRpcs(service) },
    stored,
    prepare: async () => {
      if (stored !== undefined) await stored.refresh();
    },
  };
}
