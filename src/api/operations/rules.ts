// Rules of a flag: list, create, order, get, update, delete, each also in Flipt's legacy form without
// the namespace prefix. `PUT …/rules/order` is a static segment, so the router prefers it to
// `PUT …/rules/:id`. A rule's distributions are in distributions.ts.

import Type from 'typebox';
import { SEGMENT_OPERATORS } from '../../domain/types.js';
import type { Services } from '../../services/index.js';
import type { DistributionInput, RuleInput } from '../../services/rules.js';
import type { ListQuery } from '../../storage/pagination.js';
import { EmptySchema, enumName, toListQuery, toNumber } from '../http/schemas/common.js';
import { RuleCreateBody, RuleListSchema, RuleOrderBody, RuleSchema, RuleUpdateBody } from '../http/schemas/rules.js';
import { ruleListToWire, ruleToWire } from '../resource-shapes.js';
import {
  addressedByBody,
  addressedByMessage,
  addressedByQuery,
  int32,
  ListWithNamespaceQuery,
  listOrAbsent,
  messageListQuery,
  NamespaceOnlyQuery,
  ReferenceWithNamespaceQuery,
  textOrAbsent,
} from './inputs.js';
import { type AnyOperation, nothing, operation, type RequestMessage, withLegacy } from './operation.js';
import { ruleListMessage, ruleMessage } from './resource-messages.js';

const tags = ['rules'];
const ns = { namespaceKey: Type.Optional(Type.String()) };
const FlagParams = Type.Object({ ...ns, flagKey: Type.String() });
const RuleParams = Type.Object({ ...ns, flagKey: Type.String(), id: Type.String() });

/** A flag's rules, or one of them by id. */
export interface FlagScope {
  namespaceKey: string;
  flagKey: string;
}
export interface RuleRef extends FlagScope {
  id: string;
}

export const listRules = (services: Services, { namespaceKey, flagKey, list }: FlagScope & { list: ListQuery }) =>
  services.rules.list(namespaceKey, flagKey, list);

export const createRule = (services: Services, { namespaceKey, flagKey, rule }: FlagScope & { rule: RuleInput }) =>
  services.rules.create(namespaceKey, flagKey, rule);

export const orderRules = (
  services: Services,
  { namespaceKey, flagKey, ruleIds }: FlagScope & { ruleIds: readonly string[] | null | undefined },
): Promise<void> => services.rules.order(namespaceKey, flagKey, ruleIds);

export const getRule = (services: Services, { namespaceKey, flagKey, id }: RuleRef) =>
  services.rules.get(namespaceKey, flagKey, id);

export const updateRule = (services: Services, { namespaceKey, flagKey, id, rule }: RuleRef & { rule: RuleInput }) =>
  services.rules.update(namespaceKey, flagKey, id, rule);

export const deleteRule = (services: Services, { namespaceKey, flagKey, id }: RuleRef): Promise<void> =>
  services.rules.delete(namespaceKey, flagKey, id);

type Maybe<T> = T | null | undefined;

interface RuleBodyValue {
  segmentKey?: Maybe<string>;
  segmentKeys?: Maybe<string[]>;
  segmentOperator?: Maybe<string | number>;
  distributions?: Maybe<{ variantId?: Maybe<string>; rollout?: Maybe<number | string> }[]>;
}

/** A rule from a body: null means absent, numbers may be quoted; the split is the Vexil extension (ADR 0036). */
function ruleFromBody(body: RuleBodyValue): RuleInput {
  return {
    segmentKey: body.segmentKey,
    segmentKeys: body.segmentKeys,
    segmentOperator: enumName(SEGMENT_OPERATORS, body.segmentOperator, 'OR_SEGMENT_OPERATOR'),
    distributions: body.distributions?.map((d) => ({
      variantId: d.variantId ?? null,
      rollout: toNumber(d.rollout ?? undefined) ?? null,
    })),
  };
}

/** A rule from a request message: empty means absent; the split is `vexil_split` (ADR 0036), null when unset. */
function ruleFromMessage(m: RequestMessage): RuleInput {
  const split: DistributionInput[] | undefined = m.vexilSplit?.distributions.map(
    (d: { variantId: string; rollout: number }) => ({ variantId: d.variantId, rollout: d.rollout }),
  );
  return {
    segmentKey: textOrAbsent(m.segmentKey),
    segmentKeys: listOrAbsent(m.segmentKeys),
    segmentOperator: m.segmentOperator,
    distributions: split,
  };
}

export const ruleOperations: AnyOperation[] = [
  operation({
    rpc: 'ListRules',
    routes: withLegacy('GET', '/flags/:flagKey/rules'),
    schema: { tags, params: FlagParams, querystring: ListWithNamespaceQuery, response: RuleListSchema },
    access: { resource: 'rule', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: ({ params, query }) => ({
      ...addressedByQuery({ params, query }),
      list: toListQuery(query),
    }),
    fromMessage: (m) => ({ ...addressedByMessage(m, 'flagKey'), list: messageListQuery(m) }),
    handle: listRules,
    toJson: ruleListToWire,
    toMessage: ruleListMessage,
  }),
  operation({
    rpc: 'CreateRule',
    routes: withLegacy('POST', '/flags/:flagKey/rules'),
    schema: { tags, params: FlagParams, body: RuleCreateBody, response: RuleSchema },
    access: { resource: 'rule', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      rule: { rank: int32('rank', body.rank), ...ruleFromBody(body) },
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'flagKey'),
      rule: { rank: m.rank, ...ruleFromMessage(m) },
    }),
    handle: createRule,
    toJson: ruleToWire,
    toMessage: ruleMessage,
  }),
  operation({
    rpc: 'OrderRules',
    routes: withLegacy('PUT', '/flags/:flagKey/rules/order'),
    schema: { tags, params: FlagParams, body: RuleOrderBody, response: EmptySchema },
    access: { resource: 'rule', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      ruleIds: body.ruleIds,
    }),
    fromMessage: (m) => ({ ...addressedByMessage(m, 'flagKey'), ruleIds: m.ruleIds }),
    handle: orderRules,
    toJson: nothing,
    toMessage: nothing,
  }),
  operation({
    rpc: 'GetRule',
    routes: withLegacy('GET', '/flags/:flagKey/rules/:id'),
    schema: { tags, params: RuleParams, querystring: ReferenceWithNamespaceQuery, response: RuleSchema },
    access: { resource: 'rule', action: 'read', namespace: 'request' },
    write: false,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'flagKey', 'id'),
    handle: getRule,
    toJson: ruleToWire,
    toMessage: ruleMessage,
  }),
  operation({
    rpc: 'UpdateRule',
    routes: withLegacy('PUT', '/flags/:flagKey/rules/:id'),
    schema: { tags, params: RuleParams, body: RuleUpdateBody, response: RuleSchema },
    access: { resource: 'rule', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      rule: ruleFromBody(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'flagKey', 'id'),
      rule: ruleFromMessage(m),
    }),
    handle: updateRule,
    toJson: ruleToWire,
    toMessage: ruleMessage,
  }),
  operation({
    rpc: 'DeleteRule',
    routes: withLegacy('DELETE', '/flags/:flagKey/rules/:id'),
    schema: { tags, params: RuleParams, querystring: NamespaceOnlyQuery, response: EmptySchema },
    access: { resource: 'rule', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: addressedByQuery,
    fromMessage: (m) => addressedByMessage(m, 'flagKey', 'id'),
    handle: deleteRule,
    toJson: nothing,
    toMessage: nothing,
  }),
];
