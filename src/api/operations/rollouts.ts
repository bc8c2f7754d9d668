// Rollouts of a flag: list, create, order, get, update, delete. Unlike every other resource, Flipt
// serves rollouts only in the namespaced form (no legacy routes). A rollout carries one rule, a
// segment or a threshold.

import Type from 'typebox';
import { SEGMENT_OPERATORS, type SegmentOperator } from '../../domain/types.js';
import type { Services } from '../../services/index.js';
import type { RolloutInput } from '../../services/rollouts.js';
import type { ListQuery } from '../../storage/pagination.js';
import {
  EmptySchema,
  enumName,
  ListQuerystring,
  ReferenceQuerystring,
  toListQuery,
  toNumber,
} from '../http/schemas/common.js';
import { OrderRolloutsBody, RolloutBody, RolloutListSchema, RolloutSchema } from '../http/schemas/rollouts.js';
import { rolloutListToWire, rolloutToWire } from '../resource-shapes.js';
import { listOrAbsent, messageListQuery, messageNamespace, textOrAbsent } from './inputs.js';
import { type AnyOperation, nothing, operation, type RequestMessage } from './operation.js';
import { rolloutListMessage, rolloutMessage } from './resource-messages.js';
import type { FlagScope } from './rules.js';

const tags = ['rollouts'];
const base = '/api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts';
const FlagParams = Type.Object({ namespaceKey: Type.String(), flagKey: Type.String() });
const RolloutParams = Type.Object({ namespaceKey: Type.String(), flagKey: Type.String(), id: Type.String() });

export interface RolloutRef extends FlagScope {
  id: string;
}

export const listRollouts = (services: Services, { namespaceKey, flagKey, list }: FlagScope & { list: ListQuery }) =>
  services.rollouts.list(namespaceKey, flagKey, list);

export const createRollout = (
  services: Services,
  { namespaceKey, flagKey, rollout }: FlagScope & { rollout: RolloutInput },
) => services.rollouts.create(namespaceKey, flagKey, rollout);

export const orderRollouts = (
  services: Services,
  { namespaceKey, flagKey, rolloutIds }: FlagScope & { rolloutIds: string[] | undefined },
): Promise<void> => services.rollouts.order(namespaceKey, flagKey, rolloutIds);

export const getRollout = (services: Services, { namespaceKey, flagKey, id }: RolloutRef) =>
  services.rollouts.get(namespaceKey, flagKey, id);

export const updateRollout = (
  services: Services,
  { namespaceKey, flagKey, id, rollout }: RolloutRef & { rollout: RolloutInput },
) => services.rollouts.update(namespaceKey, flagKey, id, rollout);

export const deleteRollout = (services: Services, { namespaceKey, flagKey, id }: RolloutRef): Promise<void> =>
  services.rollouts.delete(namespaceKey, flagKey, id);

type Maybe<T> = T | null | undefined;

interface RolloutBodyValue {
  rank?: Maybe<number | string>;
  description?: Maybe<string>;
  segment?: Maybe<{
    segmentKey?: Maybe<string>;
    segmentKeys?: Maybe<string[]>;
    segmentOperator?: Maybe<SegmentOperator | number>;
    value?: Maybe<boolean>;
  }>;
  threshold?: Maybe<{ percentage?: Maybe<number | string>; value?: Maybe<boolean> }>;
}

/** A rollout from a body: null means absent, quoted numbers become numbers (update ignores `rank`). */
function rolloutFromBody(body: RolloutBodyValue): RolloutInput {
  const { segment, threshold } = body;
  return {
    rank: toNumber(body.rank ?? undefined),
    description: body.description ?? undefined,
    segment: segment
      ? {
          segmentKey: segment.segmentKey ?? undefined,
          segmentKeys: segment.segmentKeys ?? undefined,
          segmentOperator: enumName(SEGMENT_OPERATORS, segment.segmentOperator, 'OR_SEGMENT_OPERATOR'),
          value: segment.value ?? undefined,
        }
      : undefined,
    threshold: threshold
      ? { percentage: toNumber(threshold.percentage ?? undefined), value: threshold.value ?? undefined }
      : undefined,
  };
}

/** A rollout from a request message: empty keys mean absent; the unset member of the oneof is null. */
function rolloutFromMessage(m: RequestMessage): RolloutInput {
  const { segment, threshold } = m;
  return {
    rank: m.rank,
    description: m.description,
    segment: segment
      ? {
          segmentKey: textOrAbsent(segment.segmentKey),
          segmentKeys: listOrAbsent(segment.segmentKeys),
          segmentOperator: segment.segmentOperator,
          value: segment.value,
        }
      : undefined,
    threshold: threshold ? { percentage: threshold.percentage, value: threshold.value } : undefined,
  };
}

const rolloutRef = (params: { namespaceKey: string; flagKey: string; id: string }): RolloutRef => ({
  namespaceKey: params.namespaceKey,
  flagKey: params.flagKey,
  id: params.id,
});

const messageRolloutRef = (m: RequestMessage): RolloutRef => ({
  namespaceKey: messageNamespace(m),
  flagKey: m.flagKey,
  id: m.id,
});

export const rolloutOperations: AnyOperation[] = [
  operation({
    rpc: 'ListRollouts',
    routes: [{ method: 'GET', url: base }],
    schema: { tags, params: FlagParams, querystring: ListQuerystring, response: RolloutListSchema },
    access: { resource: 'rollout', action: 'read', namespace: 'request' },
    write: false,
    // The rollout list request has no offset field: only limit and pageToken count.
    fromHttp: ({ params, query }) => ({
      namespaceKey: params.namespaceKey,
      flagKey: params.flagKey,
      list: toListQuery({ ...query, offset: undefined }),
    }),
    fromMessage: (m) => ({
      namespaceKey: messageNamespace(m),
      flagKey: m.flagKey,
      list: messageListQuery({ limit: m.limit, pageToken: m.pageToken }),
    }),
    handle: listRollouts,
    toJson: rolloutListToWire,
    toMessage: rolloutListMessage,
  }),
  operation({
    rpc: 'CreateRollout',
    routes: [{ method: 'POST', url: base }],
    schema: { tags, params: FlagParams, body: RolloutBody, response: RolloutSchema },
    access: { resource: 'rollout', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      namespaceKey: params.namespaceKey,
      flagKey: params.flagKey,
      rollout: rolloutFromBody(body),
    }),
    fromMessage: (m) => ({ namespaceKey: messageNamespace(m), flagKey: m.flagKey, rollout: rolloutFromMessage(m) }),
    handle: createRollout,
    toJson: rolloutToWire,
    toMessage: rolloutMessage,
  }),
  operation({
    rpc: 'OrderRollouts',
    routes: [{ method: 'PUT', url: `${base}/order` }],
    schema: { tags, params: FlagParams, body: OrderRolloutsBody, response: EmptySchema },
    access: { resource: 'rollout', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body }) => ({
      namespaceKey: params.namespaceKey,
      flagKey: params.flagKey,
      rolloutIds: body?.rolloutIds ?? undefined,
    }),
    fromMessage: (m) => ({ namespaceKey: messageNamespace(m), flagKey: m.flagKey, rolloutIds: m.rolloutIds }),
    handle: orderRollouts,
    toJson: nothing,
    toMessage: nothing,
  }),
  operation({
    rpc: 'GetRollout',
    routes: [{ method: 'GET', url: `${base}/:id` }],
    schema: { tags, params: RolloutParams, querystring: ReferenceQuerystring, response: RolloutSchema },
    access: { resource: 'rollout', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: ({ params }) => rolloutRef(params),
    fromMessage: messageRolloutRef,
    handle: getRollout,
    toJson: rolloutToWire,
    toMessage: rolloutMessage,
  }),
  operation({
    rpc: 'UpdateRollout',
    routes: [{ method: 'PUT', url: `${base}/:id` }],
    schema: { tags, params: RolloutParams, body: RolloutBody, response: RolloutSchema },
    access: { resource: 'rollout', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({ ...rolloutRef(params), rollout: rolloutFromBody(body) }),
    fromMessage: (m) => ({ ...messageRolloutRef(m), rollout: rolloutFromMessage(m) }),
    handle: updateRollout,
    toJson: rolloutToWire,
    toMessage: rolloutMessage,
  }),
  operation({
    rpc: 'DeleteRollout',
    routes: [{ method: 'DELETE', url: `${base}/:id` }],
    schema: { tags, params: RolloutParams, response: EmptySchema },
    access: { resource: 'rollout', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: ({ params }) => rolloutRef(params),
    fromMessage: messageRolloutRef,
    handle: deleteRollout,
    toJson: nothing,
    toMessage: nothing,
  }),
];
