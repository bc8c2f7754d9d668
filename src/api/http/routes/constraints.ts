// /api/v1/namespaces/{ns}/segments/{segmentKey}/constraints: create, update, delete (constraints are
// read through their segment), plus the legacy routes without the namespace prefix.

import Type from 'typebox';
import { COMPARISON_TYPES } from '../../../domain/types.js';
import type { ConstraintInput } from '../../../services/constraints.js';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, enumName, errorResponses } from '../schemas/common.js';
import { ConstraintBody, ConstraintSchema, constraintToWire } from '../schemas/segments.js';
import type { RouteDeps } from './deps.js';
import { NamespaceOnlyQuery, namespaceOf, queryNamespace, withLegacy } from './route-helpers.js';

const tags = ['constraints'];
const SegmentParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), segmentKey: Type.String() });
const ConstraintParams = Type.Object({
  namespaceKey: Type.Optional(Type.String()),
  segmentKey: Type.String(),
  id: Type.String(),
});

interface ConstraintBodyValue {
  type?: string | number | null;
  property?: string | null;
  operator?: string | null;
  value?: string | null;
  description?: string | null;
}

function constraintInput(body: ConstraintBodyValue): ConstraintInput {
  return {
    type: enumName(COMPARISON_TYPES, body.type, 'UNKNOWN_COMPARISON_TYPE'),
    property: body.property ?? undefined,
    operator: body.operator ?? undefined,
    value: body.value ?? undefined,
    description: body.description ?? undefined,
  };
}

export async function constraintRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { constraints } = services;

  for (const { url, legacy } of withLegacy('/segments/:segmentKey/constraints')) {
    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'constraint', action: 'create', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: SegmentParams,
          body: ConstraintBody,
          response: { 200: ConstraintSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const ns = namespaceOf(request.params, body);
        return constraintToWire(await constraints.create(ns, request.params.segmentKey, constraintInput(body)));
      },
    );
  }

  for (const { url, legacy } of withLegacy('/segments/:segmentKey/constraints/:id')) {
    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'constraint', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: ConstraintParams,
          body: ConstraintBody,
          response: { 200: ConstraintSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const ns = namespaceOf(request.params, body);
        const { segmentKey, id } = request.params;
        return constraintToWire(await constraints.update(ns, segmentKey, id, constraintInput(body)));
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'constraint', action: 'delete', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: ConstraintParams,
          querystring: NamespaceOnlyQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        const ns = namespaceOf(request.params, queryNamespace(request.query));
        await constraints.delete(ns, request.params.segmentKey, request.params.id);
        return {};
      },
    );
  }
}
