// Flags: list, create, get, update, delete, each also in Flipt's legacy form without the namespace
// prefix (/api/v1/flags…), which names its namespace in the body or query (as grpc-gateway binds the
// request's namespaceKey there), none meaning `default`.

import Type from 'typebox';
import { FLAG_TYPES } from '../../domain/types.js';
import type { FlagCreateInput, FlagUpdateInput } from '../../services/flags.js';
import type { Services } from '../../services/index.js';
import type { ListQuery } from '../../storage/pagination.js';
import { EmptySchema, enumName, toListQuery } from '../http/schemas/common.js';
import { FlagCreateBody, FlagListSchema, FlagSchema, FlagUpdateBody } from '../http/schemas/flags.js';
import { flagListToWire, flagToWire } from '../resource-shapes.js';
import {
  addressedByBody,
  addressedByMessage,
  addressedByQuery,
  ListWithNamespaceQuery,
  messageListQuery,
  messageNamespace,
  NamespaceOnlyQuery,
  ReferenceWithNamespaceQuery,
  structOrAbsent,
} from './inputs.js';
import { type AnyOperation, nothing, operation, withLegacy } from './operation.js';
import { flagListMessage, flagMessage } from './resource-messages.js';

const tags = ['flags'];
const NsParams = Type.Object({ namespaceKey: Type.Optional(Type.String()) });
const FlagParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), key: Type.String() });

/** A flag by its namespace and key. */
export interface FlagRef {
  namespaceKey: string;
  key: string;
}

export const listFlags = (services: Services, { namespaceKey, list }: { namespaceKey: string; list: ListQuery }) =>
  services.flags.list(namespaceKey, list);

export const createFlag = (
  services: Services,
  { namespaceKey, flag }: { namespaceKey: string; flag: FlagCreateInput },
) => services.flags.create(namespaceKey, flag);

export const getFlag = (services: Services, { namespaceKey, key }: FlagRef) => services.flags.get(namespaceKey, key);

export const updateFlag = (services: Services, { namespaceKey, key, flag }: FlagRef & { flag: FlagUpdateInput }) =>
  services.flags.update(namespaceKey, key, flag);

export const deleteFlag = (services: Services, { namespaceKey, key }: FlagRef): Promise<void> =>
  services.flags.delete(namespaceKey, key);

export const flagOperations: AnyOperation[] = [
  operation({
    rpc: 'ListFlags',
    routes: withLegacy('GET', '/flags'),
    schema: { tags, params: NsParams, querystring: ListWithNamespaceQuery, response: FlagListSchema },
    access: { resource: 'flag', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: ({ params, query }) => ({
      ...addressedByQuery({ params, query }),
      list: toListQuery(query),
    }),
    fromMessage: (m) => ({ namespaceKey: messageNamespace(m), list: messageListQuery(m) }),
    handle: listFlags,
    toJson: flagListToWire,
    toMessage: flagListMessage,
  }),
  operation({
    rpc: 'CreateFlag',
    routes: withLegacy('POST', '/flags'),
    schema: { tags, params: NsParams, body: FlagCreateBody, response: FlagSchema },
    access: { resource: 'flag', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      flag: {
        key: body.key ?? undefined,
        name: body.name ?? undefined,
        description: body.description,
        enabled: body.enabled,
        type: enumName(FLAG_TYPES, body.type, 'VARIANT_FLAG_TYPE'),
        metadata: body.metadata,
      },
    }),
    fromMessage: (m) => ({
      namespaceKey: messageNamespace(m),
      flag: {
        key: m.key,
        name: m.name,
        description: m.description,
        enabled: m.enabled,
        type: m.type,
        metadata: structOrAbsent(m.metadata),
      },
    }),
    handle: createFlag,
    toJson: flagToWire,
    toMessage: flagMessage,
  }),
  operation({
    rpc: 'GetFlag',
    routes: withLegacy('GET', '/flags/:key'),
    schema: { tags, params: FlagParams, querystring: ReferenceWithNamespaceQuery, response: FlagSchema },
    access: { resource: 'flag', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'key'),
    handle: getFlag,
    toJson: flagToWire,
    toMessage: flagMessage,
  }),
  operation({
    rpc: 'UpdateFlag',
    routes: withLegacy('PUT', '/flags/:key'),
    schema: { tags, params: FlagParams, body: FlagUpdateBody, response: FlagSchema },
    access: { resource: 'flag', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      flag: {
        name: body.name ?? undefined,
        description: body.description,
        enabled: body.enabled,
        defaultVariantId: body.defaultVariantId,
        metadata: body.metadata,
      },
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'key'),
      flag: {
        name: m.name,
        description: m.description,
        enabled: m.enabled,
        defaultVariantId: m.defaultVariantId,
        metadata: structOrAbsent(m.metadata),
      },
    }),
    handle: updateFlag,
    toJson: flagToWire,
    toMessage: flagMessage,
  }),
  operation({
    rpc: 'DeleteFlag',
    routes: withLegacy('DELETE', '/flags/:key'),
    schema: { tags, params: FlagParams, querystring: NamespaceOnlyQuery, response: EmptySchema },
    access: { resource: 'flag', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'key'),
    handle: deleteFlag,
    toJson: nothing,
    toMessage: nothing,
  }),
];
