// Segments: list, create, get, update, delete, each also in Flipt's legacy form without the namespace
// prefix (/api/v1/segments…), which names its namespace in the body or query, none meaning `default`.

import Type from 'typebox';
import { COMPARISON_TYPES, MATCH_TYPES } from '../../domain/types.js';
import type { ConstraintInput } from '../../services/constraints.js';
import type { Services } from '../../services/index.js';
import type { SegmentInput } from '../../services/segments.js';
import type { ListQuery } from '../../storage/pagination.js';
import { EmptySchema, toListQuery } from '../http/schemas/common.js';
import { SegmentBody, SegmentListSchema, SegmentSchema } from '../http/schemas/segments.js';
import { segmentListToWire, segmentToWire } from '../resource-shapes.js';
import {
  addressedByBody,
  addressedByMessage,
  addressedByQuery,
  enumField,
  ListWithNamespaceQuery,
  messageListQuery,
  messageNamespace,
  NamespaceOnlyQuery,
  ReferenceWithNamespaceQuery,
} from './inputs.js';
import { type AnyOperation, nothing, operation, withLegacy } from './operation.js';
import { segmentListMessage, segmentMessage } from './resource-messages.js';

const tags = ['segments'];
const NsParams = Type.Object({ namespaceKey: Type.Optional(Type.String()) });
const SegmentParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), key: Type.String() });

/** A segment by its namespace and key. */
export interface SegmentRef {
  namespaceKey: string;
  key: string;
}

export const listSegments = (services: Services, { namespaceKey, list }: { namespaceKey: string; list: ListQuery }) =>
  services.segments.list(namespaceKey, list);

export const createSegment = (
  services: Services,
  { namespaceKey, segment }: { namespaceKey: string; segment: SegmentInput },
) => services.segments.create(namespaceKey, segment);

export const getSegment = (services: Services, { namespaceKey, key }: SegmentRef) =>
  services.segments.get(namespaceKey, key);

export const updateSegment = (
  services: Services,
  { namespaceKey, key, segment }: SegmentRef & { segment: SegmentInput },
) => services.segments.update(namespaceKey, key, segment);

export const deleteSegment = (services: Services, { namespaceKey, key }: SegmentRef): Promise<void> =>
  services.segments.delete(namespaceKey, key);

type Maybe<T> = T | null | undefined;

/** A constraint's fields as a body or a request message names them (enums by name or number). */
export interface ConstraintFields {
  type?: Maybe<string | number>;
  property?: Maybe<string>;
  operator?: Maybe<string>;
  value?: Maybe<string>;
  description?: Maybe<string>;
}

export function constraintInput(fields: ConstraintFields): ConstraintInput {
  return {
    type: enumField(COMPARISON_TYPES, fields.type, 'UNKNOWN_COMPARISON_TYPE'),
    property: fields.property ?? undefined,
    operator: fields.operator ?? undefined,
    value: fields.value ?? undefined,
    description: fields.description ?? undefined,
  };
}

interface SegmentFields {
  key?: Maybe<string>;
  name?: Maybe<string>;
  description?: Maybe<string>;
  matchType?: Maybe<string | number>;
}

/**
 * A body and a request message name a segment's fields alike; only its constraints (a Vexil extension,
 * ADR 0036) sit apart: a body's `constraints`, a message's `vexil_constraints` (absent: null).
 */
function segmentInput(
  fields: SegmentFields,
  constraints: Maybe<readonly (ConstraintFields & { id?: Maybe<string> })[]>,
) {
  return {
    key: fields.key ?? undefined,
    name: fields.name ?? undefined,
    description: fields.description ?? undefined,
    matchType: enumField(MATCH_TYPES, fields.matchType, 'ALL_MATCH_TYPE'),
    constraints: constraints?.map((c) => ({ id: c.id ?? undefined, ...constraintInput(c) })),
  };
}

export const segmentOperations: AnyOperation[] = [
  operation({
    rpc: 'ListSegments',
    routes: withLegacy('GET', '/segments'),
    schema: { tags, params: NsParams, querystring: ListWithNamespaceQuery, response: SegmentListSchema },
    access: { resource: 'segment', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: ({ params, query }) => ({
      ...addressedByQuery({ params, query }),
      list: toListQuery(query),
    }),
    fromMessage: (m) => ({ namespaceKey: messageNamespace(m), list: messageListQuery(m) }),
    handle: listSegments,
    toJson: segmentListToWire,
    toMessage: segmentListMessage,
  }),
  operation({
    rpc: 'CreateSegment',
    routes: withLegacy('POST', '/segments'),
    schema: { tags, params: NsParams, body: SegmentBody, response: SegmentSchema },
    access: { resource: 'segment', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      segment: segmentInput(body, body.constraints),
    }),
    fromMessage: (m) => ({
      namespaceKey: messageNamespace(m),
      segment: segmentInput(m, m.vexilConstraints?.constraints),
    }),
    handle: createSegment,
    toJson: segmentToWire,
    toMessage: segmentMessage,
  }),
  operation({
    rpc: 'GetSegment',
    routes: withLegacy('GET', '/segments/:key'),
    schema: { tags, params: SegmentParams, querystring: ReferenceWithNamespaceQuery, response: SegmentSchema },
    access: { resource: 'segment', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'key'),
    handle: getSegment,
    toJson: segmentToWire,
    toMessage: segmentMessage,
  }),
  operation({
    rpc: 'UpdateSegment',
    routes: withLegacy('PUT', '/segments/:key'),
    schema: { tags, params: SegmentParams, body: SegmentBody, response: SegmentSchema },
    access: { resource: 'segment', action: 'update', namespace: 'request' },
    write: true,
    // The path's key (the message's) names the segment; a key in the body is not read.
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      segment: segmentInput(body, body.constraints),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'key'),
      segment: segmentInput(m, m.vexilConstraints?.constraints),
    }),
    handle: updateSegment,
    toJson: segmentToWire,
    toMessage: segmentMessage,
  }),
  operation({
    rpc: 'DeleteSegment',
    routes: withLegacy('DELETE', '/segments/:key'),
    schema: { tags, params: SegmentParams, querystring: NamespaceOnlyQuery, response: EmptySchema },
    access: { resource: 'segment', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'key'),
    handle: deleteSegment,
    toJson: nothing,
    toMessage: nothing,
  }),
];
