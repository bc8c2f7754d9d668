// /api/v1/namespaces/{ns}/flags: list, get, create, update, delete, plus Flipt's legacy routes
// without the namespace prefix (/api/v1/flags…), which take the namespace from the body or query
// (as grpc-gateway binds the request's namespaceKey there) and default to `default`.

import Type from 'typebox';
import { FLAG_TYPES } from '../../../domain/types.js';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, enumName, errorResponses, toListQuery } from '../schemas/common.js';
import {
  FlagCreateBody,
  FlagListSchema,
  FlagSchema,
  FlagUpdateBody,
  flagListToWire,
  flagToWire,
} from '../schemas/flags.js';
import type { RouteDeps } from './deps.js';
import {
  ListWithNamespaceQuery,
  NamespaceOnlyQuery,
  namespaceOf,
  queryNamespace,
  ReferenceWithNamespaceQuery,
  withLegacy,
} from './route-helpers.js';

const tags = ['flags'];

const NsParams = Type.Object({ namespaceKey: Type.Optional(Type.String()) });
const FlagParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), key: Type.String() });

export async function flagRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { flags } = services;

  for (const { url, legacy } of withLegacy('/flags')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'flag', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: NsParams,
          querystring: ListWithNamespaceQuery,
          response: { 200: FlagListSchema, ...errorResponses },
        },
      },
      async (request) => {
        const ns = namespaceOf(request.params, queryNamespace(request.query));
        return flagListToWire(await flags.list(ns, toListQuery(request.query)));
      },
    );

    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'flag', action: 'create', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: NsParams,
          body: FlagCreateBody,
          response: { 200: FlagSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const ns = namespaceOf(request.params, body);
        const flag = await flags.create(ns, {
          key: body.key ?? undefined,
          name: body.name ?? undefined,
          description: body.description,
          enabled: body.enabled,
          type: enumName(FLAG_TYPES, body.type, 'VARIANT_FLAG_TYPE'),
          metadata: body.metadata,
        });
        return flagToWire(flag);
      },
    );
  }

  for (const { url, legacy } of withLegacy('/flags/:key')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'flag', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          querystring: ReferenceWithNamespaceQuery,
          response: { 200: FlagSchema, ...errorResponses },
        },
      },
      async (request) => {
        const ns = namespaceOf(request.params, queryNamespace(request.query));
        return flagToWire(await flags.get(ns, request.params.key));
      },
    );

    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'flag', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          body: FlagUpdateBody,
          response: { 200: FlagSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const ns = namespaceOf(request.params, body);
        const flag = await flags.update(ns, request.params.key, {
          name: body.name ?? undefined,
          description: body.description,
          enabled: body.enabled,
          defaultVariantId: body.defaultVariantId,
          metadata: body.metadata,
        });
        return flagToWire(flag);
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'flag', action: 'delete', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          querystring: NamespaceOnlyQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        await flags.delete(namespaceOf(request.params, queryNamespace(request.query)), request.params.key);
        return {};
      },
    );
  }
}
