// /api/v1/namespaces/{ns}/flags/{flagKey}/rules: list, get, create, update, order, delete, and the
// distributions of a rule (create, update, delete), plus the legacy routes without the namespace
// prefix. `PUT …/rules/order` is a static segment, so the router prefers it to `PUT …/rules/:id`.

import Type from 'typebox';
import { InvalidArgumentError } from '../../../domain/errors.js';
import { SEGMENT_OPERATORS } from '../../../domain/types.js';
import type { DistributionInput } from '../../../services/rules.js';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, enumName, errorResponses, toListQuery, toNumber } from '../schemas/common.js';
import {
  DistributionBody,
  DistributionDeleteQuery,
  DistributionSchema,
  distributionToWire,
  RuleCreateBody,
  RuleListSchema,
  RuleOrderBody,
  RuleSchema,
  RuleUpdateBody,
  ruleListToWire,
  ruleToWire,
} from '../schemas/rules.js';
import type { RouteDeps } from './deps.js';
import {
  ListWithNamespaceQuery,
  NamespaceOnlyQuery,
  namespaceOf,
  queryNamespace,
  ReferenceWithNamespaceQuery,
  withLegacy,
} from './route-helpers.js';

const ns = { namespaceKey: Type.Optional(Type.String()) };
const FlagParams = Type.Object({ ...ns, flagKey: Type.String() });
const RuleParams = Type.Object({ ...ns, flagKey: Type.String(), id: Type.String() });
const RuleDistributionsParams = Type.Object({ ...ns, flagKey: Type.String(), ruleId: Type.String() });
const DistributionParams = Type.Object({ ...ns, flagKey: Type.String(), ruleId: Type.String(), id: Type.String() });

/** A quoted or plain int32 as a number; outside int32 Flipt's decoder refuses the body. */
function int32(field: string, value: number | string | null | undefined): number | undefined {
  const n = toNumber(value ?? undefined);
  if (n !== undefined && (!Number.isSafeInteger(n) || n > 2 ** 31 - 1 || n < -(2 ** 31))) {
    throw new InvalidArgumentError(`invalid field ${field}: must be an int32`);
  }
  return n;
}

/** The Vexil extension's split (ADR 0036), numbers as sent (NumberLike: a number or a quoted one). */
function splitInput(
  distributions: readonly { variantId?: string | null; rollout?: number | string | null }[] | null | undefined,
): DistributionInput[] | undefined {
  return distributions?.map((d) => ({
    variantId: d.variantId ?? null,
    rollout: toNumber(d.rollout ?? undefined) ?? null,
  }));
}

export async function ruleRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { rules, distributions } = services;
  const tags = ['rules'];

  for (const { url, legacy } of withLegacy('/flags/:flagKey/rules')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          querystring: ListWithNamespaceQuery,
          response: { 200: RuleListSchema, ...errorResponses },
        },
      },
      async (request) => {
        const namespaceKey = namespaceOf(request.params, queryNamespace(request.query));
        return ruleListToWire(await rules.list(namespaceKey, request.params.flagKey, toListQuery(request.query)));
      },
    );

    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'create', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          body: RuleCreateBody,
          response: { 200: RuleSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const rule = await rules.create(namespaceOf(request.params, body), request.params.flagKey, {
          rank: int32('rank', body.rank),
          segmentKey: body.segmentKey,
          segmentKeys: body.segmentKeys,
          segmentOperator: enumName(SEGMENT_OPERATORS, body.segmentOperator, 'OR_SEGMENT_OPERATOR'),
          distributions: splitInput(body.distributions),
        });
        return ruleToWire(rule);
      },
    );
  }

  // Registered before `/rules/:id` only for readability: the router ranks static segments first anyway.
  for (const { url, legacy } of withLegacy('/flags/:flagKey/rules/order')) {
    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          body: RuleOrderBody,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        await rules.order(namespaceOf(request.params, body), request.params.flagKey, body.ruleIds);
        return {};
      },
    );
  }

  for (const { url, legacy } of withLegacy('/flags/:flagKey/rules/:id')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: RuleParams,
          querystring: ReferenceWithNamespaceQuery,
          response: { 200: RuleSchema, ...errorResponses },
        },
      },
      async (request) => {
        const { flagKey, id } = request.params;
        return ruleToWire(await rules.get(namespaceOf(request.params, queryNamespace(request.query)), flagKey, id));
      },
    );

    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: RuleParams,
          body: RuleUpdateBody,
          response: { 200: RuleSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const { flagKey, id } = request.params;
        const rule = await rules.update(namespaceOf(request.params, body), flagKey, id, {
          segmentKey: body.segmentKey,
          segmentKeys: body.segmentKeys,
          segmentOperator: enumName(SEGMENT_OPERATORS, body.segmentOperator, 'OR_SEGMENT_OPERATOR'),
          distributions: splitInput(body.distributions),
        });
        return ruleToWire(rule);
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'rule', action: 'delete', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: RuleParams,
          querystring: NamespaceOnlyQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        const { flagKey, id } = request.params;
        await rules.delete(namespaceOf(request.params, queryNamespace(request.query)), flagKey, id);
        return {};
      },
    );
  }

  const distributionTags = ['distributions'];

  for (const { url, legacy } of withLegacy('/flags/:flagKey/rules/:ruleId/distributions')) {
    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'distribution', action: 'create', namespace: 'request' } },
        schema: {
          tags: distributionTags,
          hide: legacy,
          params: RuleDistributionsParams,
          body: DistributionBody,
          response: { 200: DistributionSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const { flagKey, ruleId } = request.params;
        const distribution = await distributions.create(namespaceOf(request.params, body), flagKey, ruleId, {
          variantId: body.variantId,
          rollout: toNumber(body.rollout ?? undefined),
        });
        return distributionToWire(distribution);
      },
    );
  }

  for (const { url, legacy } of withLegacy('/flags/:flagKey/rules/:ruleId/distributions/:id')) {
    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'distribution', action: 'update', namespace: 'request' } },
        schema: {
          tags: distributionTags,
          hide: legacy,
          params: DistributionParams,
          body: DistributionBody,
          response: { 200: DistributionSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const { flagKey, ruleId, id } = request.params;
        const distribution = await distributions.update(namespaceOf(request.params, body), flagKey, ruleId, id, {
          variantId: body.variantId,
          rollout: toNumber(body.rollout ?? undefined),
        });
        return distributionToWire(distribution);
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'distribution', action: 'delete', namespace: 'request' } },
        schema: {
          tags: distributionTags,
          hide: legacy,
          params: DistributionParams,
          querystring: DistributionDeleteQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        const { flagKey, ruleId, id } = request.params;
        const { query } = request;
        await distributions.delete(
          namespaceOf(request.params, queryNamespace(query)),
          flagKey,
          ruleId,
          id,
          query.variantId ?? query.variant_id,
        );
        return {};
      },
    );
  }
}
