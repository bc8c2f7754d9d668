// The role bindings API (issue 41): /api/v1/roles/bindings. Kind `auth`, as the token endpoints: a
// binding grants access, so these routes are always authenticated (no `authentication.exclude` opens
// them) and a token scoped to a namespace without roles may not call them. Each declares its access;
// the create's rule (`binding`) reads the binding's own namespace, so a caller who may not grant there is
// refused before the body is validated. Reads and deletes by id find the binding first and check the
// caller against its namespace (service.ts).

import type { HttpApp } from '../../api/http/http-app.js';
import type { RouteModule } from '../../api/http/routes/deps.js';
import { EmptySchema, errorResponses } from '../../api/http/schemas/common.js';
import type { AccessAction, NamespaceRule } from '../../auth/access.js';
import { bindingToWire } from './binding.js';
import {
  CreateRoleBindingBody,
  RoleBindingIdParams,
  RoleBindingListSchema,
  StoredRoleBindingSchema,
} from './schemas.js';
import type { RoleBindingService } from './service.js';

const tags = ['roles'];
const BASE = '/api/v1/roles/bindings';

export function roleBindingRoutes(bindings: RoleBindingService): RouteModule {
  return async (app) => registerRoleBindingRoutes(app, bindings);
}

async function registerRoleBindingRoutes(app: HttpApp, bindings: RoleBindingService): Promise<void> {
  const config = (action: AccessAction, namespace: NamespaceRule) =>
    ({ kind: 'auth', access: { resource: 'role-binding', action, namespace } }) as const;

  app.get(
    BASE,
    {
      config: config('read', 'filtered'),
      schema: {
        tags,
        description: 'The role bindings the caller administers',
        response: { 200: RoleBindingListSchema, ...errorResponses },
      },
    },
    async (request) => ({ bindings: (await bindings.list(request.authentication)).map(bindingToWire) }),
  );

  app.post(
    BASE,
    {
      config: config('create', 'binding'),
      schema: {
        tags,
        description:
          'Gives a role on a namespace (or * for all) to the identities that match; needs authorization.roles configured (FAILED_PRECONDITION, 400, without it) and admin where it grants',
        body: CreateRoleBindingBody,
        response: { 200: StoredRoleBindingSchema, ...errorResponses },
      },
    },
    async (request) => bindingToWire(await bindings.create(request.authentication, request.body)),
  );

  app.get(
    `${BASE}/:id`,
    {
      config: config('read', 'none'),
      schema: { tags, params: RoleBindingIdParams, response: { 200: StoredRoleBindingSchema, ...errorResponses } },
    },
    async (request) => bindingToWire(await bindings.get(request.authentication, request.params.id)),
  );

  app.delete(
    `${BASE}/:id`,
    {
      config: config('delete', 'none'),
      schema: { tags, params: RoleBindingIdParams, response: { 200: EmptySchema, ...errorResponses } },
    },
    async (request) => {
      await bindings.delete(request.authentication, request.params.id);
      return {};
    },
  );
}
