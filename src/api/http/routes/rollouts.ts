// /api/v1/namespaces/{ns}/flags/{flagKey}/rollouts: list, get, create, update, order, delete.
// Unlike every other resource, Flipt serves rollouts only in the namespaced form (no legacy routes).

import Type from 'typebox';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, errorResponses, ListQuerystring, ReferenceQuerystring, toListQuery } from '../schemas/common.js';
import {
  OrderRolloutsBody,
  RolloutBody,
  RolloutListSchema,
  RolloutSchema,
  rolloutInputFromBody,
  rolloutListToWire,
  rolloutToWire,
} from '../schemas/rollouts.js';
import type { RouteDeps } from './deps.js';

const tags = ['rollouts'];
const base = '/api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts';
const FlagParams = Type.Object({ namespaceKey: Type.String(), flagKey: Type.String() });
const RolloutParams = Type.Object({ namespaceKey: Type.String(), flagKey: Type.String(), id: Type.String() });

export async function rolloutRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { rollouts } = services;

  app.get(
    base,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'read', namespace: 'request' } },
      schema: {
        tags,
        params: FlagParams,
        querystring: ListQuerystring,
        response: { 200: RolloutListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { namespaceKey, flagKey } = request.params;
      // The rollout list request has no offset field: only limit and pageToken count.
      return rolloutListToWire(
        await rollouts.list(namespaceKey, flagKey, toListQuery({ ...request.query, offset: undefined })),
      );
    },
  );

  app.post(
    base,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'create', namespace: 'request' } },
      schema: { tags, params: FlagParams, body: RolloutBody, response: { 200: RolloutSchema, ...errorResponses } },
    },
    async (request) => {
      const { namespaceKey, flagKey } = request.params;
      return rolloutToWire(await rollouts.create(namespaceKey, flagKey, rolloutInputFromBody(request.body ?? {})));
    },
  );

  app.put(
    `${base}/order`,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'update', namespace: 'request' } },
      schema: { tags, params: FlagParams, body: OrderRolloutsBody, response: { 200: EmptySchema, ...errorResponses } },
    },
    async (request) => {
      const { namespaceKey, flagKey } = request.params;
      await rollouts.order(namespaceKey, flagKey, request.body?.rolloutIds ?? undefined);
      return {};
    },
  );

  app.get(
    `${base}/:id`,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'read', namespace: 'request' } },
      schema: {
        tags,
        params: RolloutParams,
        querystring: ReferenceQuerystring,
        response: { 200: RolloutSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { namespaceKey, flagKey, id } = request.params;
      return rolloutToWire(await rollouts.get(namespaceKey, flagKey, id));
    },
  );

  app.put(
    `${base}/:id`,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'update', namespace: 'request' } },
      schema: { tags, params: RolloutParams, body: RolloutBody, response: { 200: RolloutSchema, ...errorResponses } },
    },
    async (request) => {
      const { namespaceKey, flagKey, id } = request.params;
      return rolloutToWire(await rollouts.update(namespaceKey, flagKey, id, rolloutInputFromBody(request.body ?? {})));
    },
  );

  app.delete(
    `${base}/:id`,
    {
      config: { kind: 'management', access: { resource: 'rollout', action: 'delete', namespace: 'request' } },
      schema: { tags, params: RolloutParams, response: { 200: EmptySchema, ...errorResponses } },
    },
    async (request) => {
      const { namespaceKey, flagKey, id } = request.params;
      await rollouts.delete(namespaceKey, flagKey, id);
      return {};
    },
  );
}
