// Constraints of a segment: create, update, delete (they are read through their segment), each also in
// Flipt's legacy form without the namespace prefix.

import Type from 'typebox';
import type { ConstraintInput } from '../../services/constraints.js';
import type { Services } from '../../services/index.js';
import { EmptySchema } from '../http/schemas/common.js';
import { ConstraintBody, ConstraintSchema } from '../http/schemas/segments.js';
import { constraintToWire } from '../resource-shapes.js';
import { addressedByBody, addressedByMessage, addressedByQuery, NamespaceOnlyQuery } from './inputs.js';
import { type AnyOperation, nothing, operation, withLegacy } from './operation.js';
import { constraintMessage } from './resource-messages.js';
import { constraintInput } from './segments.js';

const tags = ['constraints'];
const SegmentParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), segmentKey: Type.String() });
const ConstraintParams = Type.Object({
  namespaceKey: Type.Optional(Type.String()),
  segmentKey: Type.String(),
  id: Type.String(),
});

/** A constraint by its segment and id. */
export interface ConstraintRef {
  namespaceKey: string;
  segmentKey: string;
  id: string;
}

export const createConstraint = (
  services: Services,
  { namespaceKey, segmentKey, constraint }: { namespaceKey: string; segmentKey: string; constraint: ConstraintInput },
) => services.constraints.create(namespaceKey, segmentKey, constraint);

export const updateConstraint = (
  services: Services,
  { namespaceKey, segmentKey, id, constraint }: ConstraintRef & { constraint: ConstraintInput },
) => services.constraints.update(namespaceKey, segmentKey, id, constraint);

export const deleteConstraint = (services: Services, { namespaceKey, segmentKey, id }: ConstraintRef): Promise<void> =>
  services.constraints.delete(namespaceKey, segmentKey, id);

export const constraintOperations: AnyOperation[] = [
  operation({
    rpc: 'CreateConstraint',
    routes: withLegacy('POST', '/segments/:segmentKey/constraints'),
    schema: { tags, params: SegmentParams, body: ConstraintBody, response: ConstraintSchema },
    access: { resource: 'constraint', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      constraint: constraintInput(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'segmentKey'),
      constraint: constraintInput(m),
    }),
    handle: createConstraint,
    toJson: constraintToWire,
    toMessage: constraintMessage,
  }),
  operation({
    rpc: 'UpdateConstraint',
    routes: withLegacy('PUT', '/segments/:segmentKey/constraints/:id'),
    schema: { tags, params: ConstraintParams, body: ConstraintBody, response: ConstraintSchema },
    access: { resource: 'constraint', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      constraint: constraintInput(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'segmentKey', 'id'),
      constraint: constraintInput(m),
    }),
    handle: updateConstraint,
    toJson: constraintToWire,
    toMessage: constraintMessage,
  }),
  operation({
    rpc: 'DeleteConstraint',
    routes: withLegacy('DELETE', '/segments/:segmentKey/constraints/:id'),
    schema: { tags, params: ConstraintParams, querystring: NamespaceOnlyQuery, response: EmptySchema },
    access: { resource: 'constraint', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'segmentKey', 'id'),
    handle: deleteConstraint,
    toJson: nothing,
    toMessage: nothing,
  }),
];
