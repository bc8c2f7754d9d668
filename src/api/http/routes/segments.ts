// /api/v1/namespaces/{ns}/segments: list, get, create, update, delete, plus Flipt's legacy routes
// without the namespace prefix (/api/v1/segments…), whose namespace comes from the body or query and
// defaults to `default` (the same convention as the flag routes).

import Type from 'typebox';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../../domain/types.js';
import type { SegmentInput } from '../../../services/segments.js';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, enumName, errorResponses, toListQuery } from '../schemas/common.js';
import {
  SegmentBody,
  SegmentListSchema,
  SegmentSchema,
  segmentListToWire,
  segmentToWire,
} from '../schemas/segments.js';
import type { RouteDeps } from './deps.js';
import {
  ListWithNamespaceQuery,
  NamespaceOnlyQuery,
  namespaceOf,
  queryNamespace,
  ReferenceWithNamespaceQuery,
  withLegacy,
} from './route-helpers.js';

const tags = ['segments'];
const NsParams = Type.Object({ namespaceKey: Type.Optional(Type.String()) });
const SegmentParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), key: Type.String() });

interface SegmentBodyValue {
  key?: string | null;
  name?: string | null;
  description?: string | null;
  matchType?: string | number | null;
  constraints?:
    | {
        id?: string | null;
        type?: string | number | null;
        property?: string | null;
        operator?: string | null;
        value?: string | null;
        description?: string | null;
      }[]
    | null;
}

function segmentInput(body: SegmentBodyValue): SegmentInput {
  return {
    key: body.key ?? undefined,
    name: body.name ?? undefined,
    description: body.description ?? undefined,
    matchType: enumName(MATCH_TYPES, body.matchType, 'ALL_MATCH_TYPE'),
    // Vexil extension (ADR 0036): the constraints written with the segment.
    constraints: body.constraints?.map((c) => ({
      id: c.id ?? undefined,
      type: enumName(COMPARISON_TYPES, c.type, 'UNKNOWN_COMPARISON_TYPE'),
      property: c.property ?? undefined,
      operator: c.operator ?? undefined,
      value: c.value ?? undefined,
      description: c.description ?? undefined,
    })),
  };
}

export async function segmentRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { segments } = services;

  for (const { url, legacy } of withLegacy('/segments')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'segment', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: NsParams,
          querystring: ListWithNamespaceQuery,
          response: { 200: SegmentListSchema, ...errorResponses },
        },
      },
      async (request) => {
        const ns = namespaceOf(request.params, queryNamespace(request.query));
        return segmentListToWire(await segments.list(ns, toListQuery(request.query)));
      },
    );

    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'segment', action: 'create', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: NsParams,
          body: SegmentBody,
          response: { 200: SegmentSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        return segmentToWire(await segments.create(namespaceOf(request.params, body), segmentInput(body)));
      },
    );
  }

  for (const { url, legacy } of withLegacy('/segments/:key')) {
    app.get(
      url,
      {
        config: { kind: 'management', access: { resource: 'segment', action: 'read', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: SegmentParams,
          querystring: ReferenceWithNamespaceQuery,
          response: { 200: SegmentSchema, ...errorResponses },
        },
      },
      async (request) => {
        const ns = namespaceOf(request.params, queryNamespace(request.query));
        return segmentToWire(await segments.get(ns, request.params.key));
      },
    );

    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'segment', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: SegmentParams,
          body: SegmentBody,
          response: { 200: SegmentSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const ns = namespaceOf(request.params, body);
        return segmentToWire(await segments.update(ns, request.params.key, segmentInput(body)));
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'segment', action: 'delete', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: SegmentParams,
          querystring: NamespaceOnlyQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        await segments.delete(namespaceOf(request.params, queryNamespace(request.query)), request.params.key);
        return {};
      },
    );
  }
}
