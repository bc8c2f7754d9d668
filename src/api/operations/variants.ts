// Variants of a flag: create, update, delete (no get or list: flags embed their variants), each also
// in Flipt's legacy form without the namespace prefix.

import Type from 'typebox';
import type { Services } from '../../services/index.js';
import type { VariantInput } from '../../services/variants.js';
import { EmptySchema } from '../http/schemas/common.js';
import { VariantBody, VariantSchema } from '../http/schemas/flags.js';
import { variantToWire } from '../resource-shapes.js';
import { addressedByBody, addressedByMessage, addressedByQuery, NamespaceOnlyQuery } from './inputs.js';
import { type AnyOperation, nothing, operation, withLegacy } from './operation.js';
import { variantMessage } from './resource-messages.js';

const tags = ['variants'];
const FlagParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), flagKey: Type.String() });
const VariantParams = Type.Object({
  namespaceKey: Type.Optional(Type.String()),
  flagKey: Type.String(),
  id: Type.String(),
});

/** A variant by its flag and id. */
export interface VariantRef {
  namespaceKey: string;
  flagKey: string;
  id: string;
}

export const createVariant = (
  services: Services,
  { namespaceKey, flagKey, variant }: { namespaceKey: string; flagKey: string; variant: VariantInput },
) => services.variants.create(namespaceKey, flagKey, variant);

export const updateVariant = (
  services: Services,
  { namespaceKey, flagKey, id, variant }: VariantRef & { variant: VariantInput },
) => services.variants.update(namespaceKey, flagKey, id, variant);

export const deleteVariant = (services: Services, { namespaceKey, flagKey, id }: VariantRef): Promise<void> =>
  services.variants.delete(namespaceKey, flagKey, id);

interface VariantFields {
  key?: string | null;
  name?: string | null;
  description?: string | null;
  attachment?: string | null;
}

/** A body and a request message name a variant's fields alike (a body may send null for absent). */
const variantInput = (fields: VariantFields): VariantInput => ({
  key: fields.key ?? undefined,
  name: fields.name,
  description: fields.description,
  attachment: fields.attachment,
});

export const variantOperations: AnyOperation[] = [
  operation({
    rpc: 'CreateVariant',
    routes: withLegacy('POST', '/flags/:flagKey/variants'),
    schema: { tags, params: FlagParams, body: VariantBody, response: VariantSchema },
    access: { resource: 'variant', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      variant: variantInput(body),
    }),
    fromMessage: (m) => ({ ...addressedByMessage(m, 'flagKey'), variant: variantInput(m) }),
    handle: createVariant,
    toJson: variantToWire,
    toMessage: variantMessage,
  }),
  operation({
    rpc: 'UpdateVariant',
    routes: withLegacy('PUT', '/flags/:flagKey/variants/:id'),
    schema: { tags, params: VariantParams, body: VariantBody, response: VariantSchema },
    access: { resource: 'variant', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      variant: variantInput(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'flagKey', 'id'),
      variant: variantInput(m),
    }),
    handle: updateVariant,
    toJson: variantToWire,
    toMessage: variantMessage,
  }),
  operation({
    rpc: 'DeleteVariant',
    routes: withLegacy('DELETE', '/flags/:flagKey/variants/:id'),
    schema: { tags, params: VariantParams, querystring: NamespaceOnlyQuery, response: EmptySchema },
    access: { resource: 'variant', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'flagKey', 'id'),
    handle: deleteVariant,
    toJson: nothing,
    toMessage: nothing,
  }),
];
