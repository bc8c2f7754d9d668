// flipt.Flipt: the management RPCs and the deprecated Evaluate/BatchEvaluate. Management RPCs are
// one adapter per method over the same service call the REST route makes
// (api/http/routes/*), answering the same resource shape (api/resource-shapes.ts) as its message.
// Requests come with proto3 defaults filled in: an empty namespace key is `default` (namespaceKeyOrDefault, at this edge),
// an unset message is null.

import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { Services } from '../../services/index.js';
import type { RolloutInput } from '../../services/rollouts.js';
import type { DistributionInput } from '../../services/rules.js';
import type { SegmentInput } from '../../services/segments.js';
import type { ListQuery } from '../../storage/pagination.js';
import {
  constraintToWire,
  distributionToWire,
  flagListToWire,
  flagToWire,
  rolloutListToWire,
  rolloutToWire,
  ruleListToWire,
  ruleToWire,
  segmentListToWire,
  segmentToWire,
  variantToWire,
} from '../resource-shapes.js';
import { type StructMessage, structToJson, wireToMessage } from './messages.js';
import type { Rpc } from './rpc.js';

// biome-ignore lint/suspicious/noExplicitAny: decoded messages; each adapter reads the fields its proto declares
type Req = any;

const EMPTY = Object.freeze({});

function listQuery(request: { limit?: number; offset?: number; pageToken?: string }): ListQuery {
  return { limit: request.limit ?? 0, offset: request.offset ?? 0, pageToken: request.pageToken ?? '' };
}

/** A repeated field: proto3 cannot tell empty from absent; the services read absent. */
function listOrAbsent(values: readonly string[] | null | undefined): string[] | undefined {
  return values && values.length > 0 ? [...values] : undefined;
}

function textOrAbsent(value: string | null | undefined): string | undefined {
  return value ? value : undefined;
}

/** The Vexil extension field of the rule requests (ADR 0036): the whole split, or absent (null). */
function splitOf(request: Req): DistributionInput[] | undefined {
  const split = request.vexilSplit;
  if (!split) return undefined;
  return split.distributions.map((d: Req) => ({ variantId: d.variantId, rollout: d.rollout }));
}

/** The Vexil extension field of the segment requests (ADR 0036): the whole constraint list, or absent. */
function constraintsOf(request: Req): SegmentInput['constraints'] {
  const list = request.vexilConstraints;
  if (!list) return undefined;
  return list.constraints.map((c: Req) => ({
    id: textOrAbsent(c.id),
    type: c.type,
    property: c.property,
    operator: c.operator,
    value: c.value,
    description: c.description,
  }));
}

function metadataOf(value: StructMessage | null | undefined): Record<string, unknown> | undefined {
  return value ? structToJson(value) : undefined;
}

function rolloutInput(request: Req): RolloutInput {
  const { segment, threshold } = request;
  return {
    rank: request.rank,
    description: request.description,
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

const ns = (request: Req): string => namespaceKeyOrDefault(request.namespaceKey);

/** An RPC of the management API; `write` for the methods REST serves with POST, PUT and DELETE. */
function management(method: string, write: boolean, handle: (request: Req) => Promise<unknown>): Rpc<Req> {
  return {
    method,
    kind: 'management',
    write,
    handle: async (request) => wireToMessage(await handle(request)),
  };
}

export function fliptRpcs(services: Services): Rpc<never>[] {
  const { flags, variants, segments, constraints, rules, distributions, rollouts } = services;
  const { evaluation, legacyEvaluation } = services;

  const rpcs: Rpc<Req>[] = [
    management('GetRule', false, async (r) => ruleToWire(await rules.get(ns(r), r.flagKey, r.id))),
    management('ListRules', false, async (r) => ruleListToWire(await rules.list(ns(r), r.flagKey, listQuery(r)))),
    management('CreateRule', true, async (r) =>
      ruleToWire(
        await rules.create(ns(r), r.flagKey, {
          rank: r.rank,
          segmentKey: textOrAbsent(r.segmentKey),
          segmentKeys: listOrAbsent(r.segmentKeys),
          segmentOperator: r.segmentOperator,
          distributions: splitOf(r),
        }),
      ),
    ),
    management('UpdateRule', true, async (r) =>
      ruleToWire(
        await rules.update(ns(r), r.flagKey, r.id, {
          segmentKey: textOrAbsent(r.segmentKey),
          segmentKeys: listOrAbsent(r.segmentKeys),
          segmentOperator: r.segmentOperator,
          distributions: splitOf(r),
        }),
      ),
    ),
    management('OrderRules', true, async (r) => {
      await rules.order(ns(r), r.flagKey, r.ruleIds);
      return EMPTY;
    }),
    management('DeleteRule', true, async (r) => {
      await rules.delete(ns(r), r.flagKey, r.id);
      return EMPTY;
    }),

    management('GetRollout', false, async (r) => rolloutToWire(await rollouts.get(ns(r), r.flagKey, r.id))),
    management('ListRollouts', false, async (r) =>
      // The rollout list request has no offset field: only limit and pageToken count.
      rolloutListToWire(await rollouts.list(ns(r), r.flagKey, listQuery({ limit: r.limit, pageToken: r.pageToken }))),
    ),
    management('CreateRollout', true, async (r) =>
      rolloutToWire(await rollouts.create(ns(r), r.flagKey, rolloutInput(r))),
    ),
    management('UpdateRollout', true, async (r) =>
      rolloutToWire(await rollouts.update(ns(r), r.flagKey, r.id, rolloutInput(r))),
    ),
    management('DeleteRollout', true, async (r) => {
      await rollouts.delete(ns(r), r.flagKey, r.id);
      return EMPTY;
    }),
    management('OrderRollouts', true, async (r) => {
      await rollouts.order(ns(r), r.flagKey, r.rolloutIds);
      return EMPTY;
    }),

    management('CreateDistribution', true, async (r) =>
      distributionToWire(
        await distributions.create(ns(r), r.flagKey, r.ruleId, { variantId: r.variantId, rollout: r.rollout }),
      ),
    ),
    management('UpdateDistribution', true, async (r) =>
      distributionToWire(
        await distributions.update(ns(r), r.flagKey, r.ruleId, r.id, { variantId: r.variantId, rollout: r.rollout }),
      ),
    ),
    management('DeleteDistribution', true, async (r) => {
      await distributions.delete(ns(r), r.flagKey, r.ruleId, r.id, r.variantId);
      return EMPTY;
    }),

    management('GetSegment', false, async (r) => segmentToWire(await segments.get(ns(r), r.key))),
    management('ListSegments', false, async (r) => segmentListToWire(await segments.list(ns(r), listQuery(r)))),
    management('CreateSegment', true, async (r) =>
      segmentToWire(
        await segments.create(ns(r), {
          key: r.key,
          name: r.name,
          description: r.description,
          matchType: r.matchType,
          constraints: constraintsOf(r),
        }),
      ),
    ),
    management('UpdateSegment', true, async (r) =>
      segmentToWire(
        await segments.update(ns(r), r.key, {
          name: r.name,
          description: r.description,
          matchType: r.matchType,
          constraints: constraintsOf(r),
        }),
      ),
    ),
    management('DeleteSegment', true, async (r) => {
      await segments.delete(ns(r), r.key);
      return EMPTY;
    }),

    management('CreateConstraint', true, async (r) =>
      constraintToWire(
        await constraints.create(ns(r), r.segmentKey, {
          type: r.type,
          property: r.property,
          operator: r.operator,
          value: r.value,
          description: r.description,
        }),
      ),
    ),
    management('UpdateConstraint', true, async (r) =>
      constraintToWire(
        await constraints.update(ns(r), r.segmentKey, r.id, {
          type: r.type,
          property: r.property,
          operator: r.operator,
          value: r.value,
          description: r.description,
        }),
      ),
    ),
    management('DeleteConstraint', true, async (r) => {
      await constraints.delete(ns(r), r.segmentKey, r.id);
      return EMPTY;
    }),

    // Flipt's deprecated Evaluate and BatchEvaluate (variant flags), over the legacy evaluation use case.
    {
      method: 'Evaluate',
      kind: 'legacy-evaluation',
      async handle(r, context) {
        const started = performance.now();
        const snapshot = await evaluation.snapshot(ns(r));
        context.setRevision(snapshot.revision);
        return wireToMessage(legacyEvaluation.evaluate(snapshot, r, started));
      },
    },
    {
      method: 'BatchEvaluate',
      kind: 'legacy-evaluation',
      namespaces: (r) => {
        const keys = new Set<string>(r.requests.map((item: Req) => namespaceKeyOrDefault(item.namespaceKey)));
        if (r.namespaceKey) keys.add(r.namespaceKey);
        return keys.size ? [...keys] : [namespaceKeyOrDefault('')];
      },
      async handle(r, context) {
        const started = performance.now();
        const snapshot = await evaluation.snapshot(ns(r));
        context.setRevision(snapshot.revision);
        return wireToMessage(legacyEvaluation.batch(snapshot, r, started));
      },
    },
  ];
  return rpcs as Rpc<never>[];
}
