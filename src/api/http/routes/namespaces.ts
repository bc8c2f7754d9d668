// /api/v1/namespaces: list, get, create, update, delete.

import Type from 'typebox';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, errorResponses, ListQuerystring, ReferenceQuerystring, toListQuery } from '../schemas/common.js';
import {
  NamespaceBody,
  NamespaceListSchema,
  NamespaceSchema,
  namespaceListToWire,
  namespaceToWire,
} from '../schemas/namespaces.js';
import type { RouteDeps } from './deps.js';

const tags = ['namespaces'];
const KeyParams = Type.Object({ key: Type.String() });

export async function namespaceRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { namespaces } = services;

  app.get(
    '/api/v1/namespaces',
    {
      config: { kind: 'management', access: { resource: 'namespace', action: 'read', namespace: 'none' } },
      schema: { tags, querystring: ListQuerystring, response: { 200: NamespaceListSchema, ...errorResponses } },
    },
    async (request) => namespaceListToWire(await namespaces.list(toListQuery(request.query))),
  );

  app.post(
    '/api/v1/namespaces',
    {
      config: { kind: 'management', access: { resource: 'namespace', action: 'create', namespace: 'key' } },
      schema: { tags, body: NamespaceBody, response: { 200: NamespaceSchema, ...errorResponses } },
    },
    async (request) => namespaceToWire(await namespaces.create(request.body)),
  );

  app.get(
    '/api/v1/namespaces/:key',
    {
      config: { kind: 'management', access: { resource: 'namespace', action: 'read', namespace: 'key' } },
      schema: {
        tags,
        params: KeyParams,
        querystring: ReferenceQuerystring,
        response: { 200: NamespaceSchema, ...errorResponses },
      },
    },
    async (request) => namespaceToWire(await namespaces.get(request.params.key)),
  );

  app.put(
    '/api/v1/namespaces/:key',
    {
      config: { kind: 'management', access: { resource: 'namespace', action: 'update', namespace: 'key' } },
      schema: { tags, params: KeyParams, body: NamespaceBody, response: { 200: NamespaceSchema, ...errorResponses } },
    },
    async (request) => namespaceToWire(await namespaces.update(request.params.key, request.body)),
  );

  app.delete(
    '/api/v1/namespaces/:key',
    {
      config: { kind: 'management', access: { resource: 'namespace', action: 'delete', namespace: 'key' } },
      schema: {
        tags,
        params: KeyParams,
        querystring: Type.Object({ force: Type.Optional(Type.String()) }),
        response: { 200: EmptySchema, ...errorResponses },
      },
    },
    async (request) => {
      const force = request.query.force;
      await namespaces.delete(request.params.key, force === 'true' || force === '1' || force === '');
      return {};
    },
  );
}
