// Namespaces: list, create, get, update, delete. They are addressed by their own key (an empty one
// reads `default` over gRPC, as Flipt's GetNamespace does); a listing addresses none. There are no
// legacy forms.

import Type from 'typebox';
import { namespacesVisibleTo } from '../../auth/authorize.js';
import type { Authentication } from '../../domain/authentication.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { Namespace, Page } from '../../domain/types.js';
import type { Services } from '../../services/index.js';
import type { NamespaceInput } from '../../services/namespaces.js';
import type { ListQuery } from '../../storage/pagination.js';
import { EmptySchema, ListQuerystring, ReferenceQuerystring, toListQuery } from '../http/schemas/common.js';
import { NamespaceBody, NamespaceListSchema, NamespaceSchema } from '../http/schemas/namespaces.js';
import { namespaceListToWire, namespaceToWire } from '../resource-shapes.js';
import { messageListQuery } from './inputs.js';
import { type AnyOperation, nothing, operation } from './operation.js';
import { namespaceListMessage, namespaceMessage } from './resource-messages.js';

const tags = ['namespaces'];
const KeyParams = Type.Object({ key: Type.String() });
const base = '/api/v1/namespaces';

/** Filtered, never refused: the namespaces the caller may read (auth/authorize.ts namespacesVisibleTo). */
export const listNamespaces = (
  services: Services,
  list: ListQuery,
  caller: Authentication | null,
): Promise<Page<Namespace>> => services.namespaces.list(list, namespacesVisibleTo(caller));

export const createNamespace = (services: Services, input: NamespaceInput): Promise<Namespace> =>
  services.namespaces.create(input);

export const getNamespace = (services: Services, key: string): Promise<Namespace> => services.namespaces.get(key);

export const updateNamespace = (
  services: Services,
  { key, input }: { key: string; input: NamespaceInput },
): Promise<Namespace> => services.namespaces.update(key, input);

export const deleteNamespace = (services: Services, { key, force }: { key: string; force: boolean }): Promise<void> =>
  services.namespaces.delete(key, force);

export const namespaceOperations: AnyOperation[] = [
  operation({
    rpc: 'ListNamespaces',
    routes: [{ method: 'GET', url: base }],
    schema: { tags, querystring: ListQuerystring, response: NamespaceListSchema },
    access: { resource: 'namespace', action: 'read', namespace: 'filtered' },
    write: false,
    fromHttp: ({ query }) => toListQuery(query),
    fromMessage: messageListQuery,
    handle: listNamespaces,
    toJson: namespaceListToWire,
    toMessage: namespaceListMessage,
  }),
  operation({
    rpc: 'CreateNamespace',
    routes: [{ method: 'POST', url: base }],
    schema: { tags, body: NamespaceBody, response: NamespaceSchema },
    access: { resource: 'namespace', action: 'create', namespace: 'key' },
    write: true,
    // The body as sent: the service reads the fields it knows.
    fromHttp: ({ body }) => body as NamespaceInput,
    fromMessage: (m) => ({ key: m.key, name: m.name, description: m.description }),
    handle: createNamespace,
    toJson: namespaceToWire,
    toMessage: namespaceMessage,
  }),
  operation({
    rpc: 'GetNamespace',
    routes: [{ method: 'GET', url: `${base}/:key` }],
    schema: { tags, params: KeyParams, querystring: ReferenceQuerystring, response: NamespaceSchema },
    access: { resource: 'namespace', action: 'read', namespace: 'key' },
    write: false,
    fromHttp: ({ params }) => params.key,
    fromMessage: (m) => namespaceKeyOrDefault(m.key),
    handle: getNamespace,
    toJson: namespaceToWire,
    toMessage: namespaceMessage,
  }),
  operation({
    rpc: 'UpdateNamespace',
    routes: [{ method: 'PUT', url: `${base}/:key` }],
    schema: { tags, params: KeyParams, body: NamespaceBody, response: NamespaceSchema },
    access: { resource: 'namespace', action: 'update', namespace: 'key' },
    write: true,
    fromHttp: ({ params, body }) => ({ key: params.key, input: body as NamespaceInput }),
    // The key as given (Flipt's UpdateNamespace does not read an empty one as `default`).
    fromMessage: (m) => ({ key: m.key, input: { name: m.name, description: m.description } }),
    handle: updateNamespace,
    toJson: namespaceToWire,
    toMessage: namespaceMessage,
  }),
  operation({
    rpc: 'DeleteNamespace',
    routes: [{ method: 'DELETE', url: `${base}/:key` }],
    schema: {
      tags,
      params: KeyParams,
      querystring: Type.Object({ force: Type.Optional(Type.String()) }),
      response: EmptySchema,
    },
    access: { resource: 'namespace', action: 'delete', namespace: 'key' },
    write: true,
    fromHttp: ({ params, query }) => ({
      key: params.key,
      force: query.force === 'true' || query.force === '1' || query.force === '',
    }),
    fromMessage: (m) => ({ key: m.key, force: m.force === true }),
    handle: deleteNamespace,
    toJson: nothing,
    toMessage: nothing,
  }),
];
