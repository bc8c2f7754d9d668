// The change log (issue 28): list a namespace's changes, one flag's or segment's, or every namespace's
// the token may see; read one; revert one. Management reads and writes like the rest of /api/v1.

import Type from 'typebox';
import type { HttpApp } from '../../api/http/http-app.js';
import type { RouteModule } from '../../api/http/routes/deps.js';
import { EmptySchema, errorResponses } from '../../api/http/schemas/common.js';
import type { AccessAction, NamespaceRule } from '../../auth/access.js';
import { namespacesVisibleTo, roleRefusal } from '../../auth/authorize.js';
import { permits } from '../../auth/roles/roles.js';
import { ALL_NAMESPACES } from '../../domain/roles.js';
import {
  ChangeListQuerystring,
  ChangeListSchema,
  ChangeSchema,
  changeListToWire,
  toChangeListQuery,
} from './schemas.js';
import type { HistoryService } from './service.js';

const tags = ['changes'];
const NsParams = Type.Object({ namespaceKey: Type.String() });
const KeyParams = Type.Object({ namespaceKey: Type.String(), key: Type.String() });
const IdParams = Type.Object({ namespaceKey: Type.String(), id: Type.String() });

/** The change log's routes over `history`; app/ registers them among the core's (routes/index.ts). */
export function changeRoutes(history: HistoryService): RouteModule {
  return async (app) => registerChangeRoutes(app, history);
}

async function registerChangeRoutes(app: HttpApp, history: HistoryService): Promise<void> {
  const config = (action: AccessAction, namespace: NamespaceRule) =>
    ({ kind: 'management', access: { resource: 'change', action, namespace } }) as const;

  app.get(
    '/api/v1/changes',
    {
      config: config('read', 'filtered'),
      schema: {
        tags,
        description: 'Changes of every namespace the token may see, and token changes; newest first',
        querystring: ChangeListQuerystring,
        response: { 200: ChangeListSchema, ...errorResponses },
      },
    },
    async (request) => {
      // A `filtered` read: a namespace-scoped token sees its namespace only.
      const visible = namespacesVisibleTo(request.authentication);
      return changeListToWire(await history.list(visible, toChangeListQuery(request.query)));
    },
  );

  app.get(
    '/api/v1/namespaces/:namespaceKey/changes',
    {
      config: config('read', 'request'),
      schema: {
        tags,
        params: NsParams,
        querystring: ChangeListQuerystring,
        response: { 200: ChangeListSchema, ...errorResponses },
      },
    },
    async (request) =>
      changeListToWire(await history.list([request.params.namespaceKey], toChangeListQuery(request.query))),
  );

  const subjects = [
    { path: 'flags', type: 'flag', children: ['variant', 'rule', 'rollout'] },
    { path: 'segments', type: 'segment', children: ['constraint'] },
  ] as const;
  for (const { path, type, children } of subjects) {
    app.get(
      `/api/v1/namespaces/:namespaceKey/${path}/:key/changes`,
      {
        config: config('read', 'request'),
        schema: {
          tags,
          description: `Changes of one ${type} and its ${children.join(', ')}s`,
          params: KeyParams,
          querystring: Type.Omit(ChangeListQuerystring, ['type', 'key']),
          response: { 200: ChangeListSchema, ...errorResponses },
        },
      },
      async (request) =>
        changeListToWire(
          await history.list([request.params.namespaceKey], {
            ...toChangeListQuery(request.query),
            resourceType: type,
            resourceKey: request.params.key,
            childTypes: children,
          }),
        ),
    );
  }

  app.get(
    '/api/v1/namespaces/:namespaceKey/changes/:id',
    {
      config: config('read', 'request'),
      schema: { tags, params: IdParams, response: { 200: ChangeSchema, ...errorResponses } },
    },
    async (request) => history.get(request.params.namespaceKey, request.params.id),
  );

  app.post(
    '/api/v1/namespaces/:namespaceKey/changes/:id/revert',
    {
      config: config('revert', 'request'),
      schema: {
        tags,
        description:
          'Restores the state before the change, recorded as a new change; FAILED_PRECONDITION (400) names what blocks it',
        params: IdParams,
        body: Type.Optional(EmptySchema),
        response: { 200: ChangeSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { namespaceKey, id } = request.params;
      const caller = request.authentication;
      // Reverting a namespace's own change is managing the namespace: its settings need admin there,
      // its creation or deletion admin on every namespace, as making or deleting one does (ADR 46).
      if (caller !== null && caller.roles !== undefined) {
        const change = await history.get(namespaceKey, id);
        if (change.resourceType === 'namespace') {
          const everywhere = change.action !== 'updated';
          if (!permits(caller.roles, { role: 'admin', everywhere }, [namespaceKey])) {
            throw roleRefusal('admin', everywhere ? ALL_NAMESPACES : namespaceKey);
          }
        }
      }
      return history.revert(namespaceKey, id);
    },
  );
}
