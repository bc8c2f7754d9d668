// Distributions of a rule: create, update, delete, each also in Flipt's legacy form without the
// namespace prefix. A delete names the variant too (Flipt's DeleteDistributionRequest), in the query.

import Type from 'typebox';
import type { Services } from '../../services/index.js';
import type { DistributionInput } from '../../services/rules.js';
import { EmptySchema, toNumber } from '../http/schemas/common.js';
import { DistributionBody, DistributionDeleteQuery, DistributionSchema } from '../http/schemas/rules.js';
import { distributionToWire } from '../resource-shapes.js';
import { addressedByBody, addressedByMessage, addressedByQuery } from './inputs.js';
import { type AnyOperation, nothing, operation, withLegacy } from './operation.js';
import { distributionMessage } from './resource-messages.js';
import type { FlagScope } from './rules.js';

const tags = ['distributions'];
const ns = { namespaceKey: Type.Optional(Type.String()) };
const RuleParams = Type.Object({ ...ns, flagKey: Type.String(), ruleId: Type.String() });
const DistributionParams = Type.Object({ ...ns, flagKey: Type.String(), ruleId: Type.String(), id: Type.String() });

/** A rule's distributions, or one of them by id. */
export interface RuleScope extends FlagScope {
  ruleId: string;
}
export interface DistributionRef extends RuleScope {
  id: string;
}

export const createDistribution = (
  services: Services,
  { namespaceKey, flagKey, ruleId, distribution }: RuleScope & { distribution: DistributionInput },
) => services.distributions.create(namespaceKey, flagKey, ruleId, distribution);

export const updateDistribution = (
  services: Services,
  { namespaceKey, flagKey, ruleId, id, distribution }: DistributionRef & { distribution: DistributionInput },
) => services.distributions.update(namespaceKey, flagKey, ruleId, id, distribution);

export const deleteDistribution = (
  services: Services,
  { namespaceKey, flagKey, ruleId, id, variantId }: DistributionRef & { variantId: string | undefined },
): Promise<void> => services.distributions.delete(namespaceKey, flagKey, ruleId, id, variantId);

/** A body's fields: null means absent, the rollout may be quoted. */
const distributionFromBody = (body: {
  variantId?: string | null;
  rollout?: number | string | null;
}): DistributionInput => ({ variantId: body.variantId, rollout: toNumber(body.rollout ?? undefined) });

export const distributionOperations: AnyOperation[] = [
  operation({
    rpc: 'CreateDistribution',
    routes: withLegacy('POST', '/flags/:flagKey/rules/:ruleId/distributions'),
    schema: { tags, params: RuleParams, body: DistributionBody, response: DistributionSchema },
    access: { resource: 'distribution', action: 'create', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      distribution: distributionFromBody(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'flagKey', 'ruleId'),
      distribution: { variantId: m.variantId, rollout: m.rollout },
    }),
    handle: createDistribution,
    toJson: distributionToWire,
    toMessage: distributionMessage,
  }),
  operation({
    rpc: 'UpdateDistribution',
    routes: withLegacy('PUT', '/flags/:flagKey/rules/:ruleId/distributions/:id'),
    schema: { tags, params: DistributionParams, body: DistributionBody, response: DistributionSchema },
    access: { resource: 'distribution', action: 'update', namespace: 'request' },
    write: true,
    fromHttp: ({ params, body = {} }) => ({
      ...addressedByBody(params, body),
      distribution: distributionFromBody(body),
    }),
    fromMessage: (m) => ({
      ...addressedByMessage(m, 'flagKey', 'ruleId', 'id'),
      distribution: { variantId: m.variantId, rollout: m.rollout },
    }),
    handle: updateDistribution,
    toJson: distributionToWire,
    toMessage: distributionMessage,
  }),
  operation({
    rpc: 'DeleteDistribution',
    routes: withLegacy('DELETE', '/flags/:flagKey/rules/:ruleId/distributions/:id'),
    schema: { tags, params: DistributionParams, querystring: DistributionDeleteQuery, response: EmptySchema },
    access: { resource: 'distribution', action: 'delete', namespace: 'request' },
    write: true,
    fromHttp: ({ params, query }) => ({
      ...addressedByQuery({ params, query }),
      variantId: query.variantId ?? query.variant_id,
    }),
    fromMessage: (m) => addressedByMessage(m, 'flagKey', 'ruleId', 'id', 'variantId'),
    handle: deleteDistribution,
    toJson: nothing,
    toMessage: nothing,
  }),
];
