// The management resources as their flipt.* messages, straight from the domain objects, with proto/'s
// own (snake_case) names: what grpc-js encodes without a renaming pass (the RPC entries say
// `answersInProtoNames`). The same quirks as Flipt's JSON (api/resource-shapes.ts): one segment is shown
// in `segment_key` with `segment_keys` empty, several in `segment_keys`; a listed flag without metadata
// shows an empty Struct, a single one none. Float fields need no float32 rounding here: the encoder
// writes float32 anyway.

import type {
  Constraint,
  Distribution,
  Flag,
  Namespace,
  Page,
  Rollout,
  Rule,
  Segment,
  Variant,
} from '../../domain/types.js';
import { jsonToStruct, timestampMessage } from '../grpc/messages.js';
import { segmentKeyFields } from '../resource-shapes.js';

function listMessage<T>(field: string, page: Page<T>, item: (value: T) => unknown) {
  return { [field]: page.items.map(item), next_page_token: page.nextPageToken, total_count: page.totalCount };
}

export function namespaceMessage(ns: Namespace) {
  return {
    key: ns.key,
    name: ns.name,
    description: ns.description,
    protected: ns.protected,
    created_at: timestampMessage(ns.createdAt),
    updated_at: timestampMessage(ns.updatedAt),
  };
}

export const namespaceListMessage = (page: Page<Namespace>) => listMessage('namespaces', page, namespaceMessage);

export function variantMessage(v: Variant) {
  return {
    id: v.id,
    flag_key: v.flagKey,
    key: v.key,
    name: v.name,
    description: v.description,
    created_at: timestampMessage(v.createdAt),
    updated_at: timestampMessage(v.updatedAt),
    attachment: v.attachment,
    namespace_key: v.namespaceKey,
  };
}

export function flagMessage(f: Flag, listed = false) {
  const metadata = f.metadata ?? (listed ? {} : undefined);
  return {
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    created_at: timestampMessage(f.createdAt),
    updated_at: timestampMessage(f.updatedAt),
    variants: f.variants.map(variantMessage),
    namespace_key: f.namespaceKey,
    type: f.type,
    ...(f.defaultVariant ? { default_variant: variantMessage(f.defaultVariant) } : {}),
    ...(metadata ? { metadata: jsonToStruct(metadata) } : {}),
  };
}

export const flagListMessage = (page: Page<Flag>) => listMessage('flags', page, (f) => flagMessage(f, true));

export function constraintMessage(c: Constraint) {
  return {
    id: c.id,
    segment_key: c.segmentKey,
    type: c.type,
    property: c.property,
    operator: c.operator,
    value: c.value,
    created_at: timestampMessage(c.createdAt),
    updated_at: timestampMessage(c.updatedAt),
    namespace_key: c.namespaceKey,
    description: c.description,
  };
}

export function segmentMessage(s: Segment) {
  return {
    key: s.key,
    name: s.name,
    description: s.description,
    created_at: timestampMessage(s.createdAt),
    updated_at: timestampMessage(s.updatedAt),
    constraints: s.constraints.map(constraintMessage),
    match_type: s.matchType,
    namespace_key: s.namespaceKey,
  };
}

export const segmentListMessage = (page: Page<Segment>) => listMessage('segments', page, segmentMessage);

export function distributionMessage(d: Distribution) {
  return {
    id: d.id,
    rule_id: d.ruleId,
    variant_id: d.variantId,
    rollout: d.rollout,
    created_at: timestampMessage(d.createdAt),
    updated_at: timestampMessage(d.updatedAt),
  };
}

export function ruleMessage(r: Rule) {
  const segments = segmentKeyFields(r.segmentKeys);
  return {
    id: r.id,
    flag_key: r.flagKey,
    segment_key: segments.key,
    distributions: r.distributions.map(distributionMessage),
    rank: r.rank,
    created_at: timestampMessage(r.createdAt),
    updated_at: timestampMessage(r.updatedAt),
    namespace_key: r.namespaceKey,
    segment_keys: segments.keys,
    segment_operator: r.segmentOperator,
  };
}

export const ruleListMessage = (page: Page<Rule>) => listMessage('rules', page, ruleMessage);

export function rolloutMessage(r: Rollout) {
  const base = {
    id: r.id,
    namespace_key: r.namespaceKey,
    flag_key: r.flagKey,
    type: r.type,
    rank: r.rank,
    description: r.description,
    created_at: timestampMessage(r.createdAt),
    updated_at: timestampMessage(r.updatedAt),
  };
  if (r.segment) {
    const segments = segmentKeyFields(r.segment.segmentKeys);
    return {
      ...base,
      segment: {
        segment_key: segments.key,
        value: r.segment.value,
        segment_keys: segments.keys,
        segment_operator: r.segment.segmentOperator,
      },
    };
  }
  if (r.threshold) return { ...base, threshold: { percentage: r.threshold.percentage, value: r.threshold.value } };
  return base;
}

/** Flipt names a rollout list's items `rules`. */
export const rolloutListMessage = (page: Page<Rollout>) => listMessage('rules', page, rolloutMessage);
