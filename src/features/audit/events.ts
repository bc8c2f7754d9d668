// A stored change as Flipt's audit event (version 0.2): `type` and `action` as Flipt names them, the
// actor's fields, and the payload in Flipt's audit shapes (internal/server/audit/types.go): creates and
// updates carry the resource as it is after the change in those snake_case shapes, deletes carry what
// Flipt's Delete…Request held (keys and ids), a reorder its Order…Request, a new token its metadata.
// The stored before/after states are the resources as the API shows them (camelCase). Vexil adds one
// actor field, `role`: the role an actor with roles made the change in (issue 41, ADR 48).

import type { Change } from '../../domain/changes.js';
import { GoStruct } from './go-template.js';

export const EVENT_VERSION = '0.2';

export interface AuditActor {
  authentication?: string;
  ip?: string;
  email?: string;
  name?: string;
  picture?: string;
  /** Vexil's: the role an actor with roles acted in (ADR 48); absent for actors without roles. */
  role?: string;
}

export interface AuditEvent {
  version: string;
  type: string;
  action: string;
  metadata: { actor: AuditActor };
  payload: unknown;
  timestamp: string;
  status: string;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0) || 0;
}

/** Go's json omitempty on strings: the key only when the value is not empty. */
function optional(key: string, value: string): Json {
  return value === '' ? {} : { [key]: value };
}

/** A rule's or rollout segment's keys as Flipt's audit types show them: one key, or several joined. */
function segmentKeyOf(state: Json): { key: string; operator: string } {
  const single = str(state.segmentKey);
  if (single !== '') return { key: single, operator: '' };
  const keys = Array.isArray(state.segmentKeys) ? state.segmentKeys.map(str) : [];
  if (keys.length === 1) return { key: keys[0] as string, operator: '' };
  if (keys.length === 0) return { key: '', operator: '' };
  return { key: keys.join(','), operator: str(state.segmentOperator) };
}

function flagPayload(s: Json, ns: string): Json {
  const defaultVariant = s.defaultVariant;
  const defaultKey = typeof defaultVariant === 'string' ? defaultVariant : str(obj(defaultVariant).key);
  return {
    key: str(s.key),
    name: str(s.name),
    description: str(s.description),
    enabled: s.enabled === true,
    namespace_key: str(s.namespaceKey) || ns,
    ...optional('default_variant', defaultKey),
  };
}

function variantPayload(s: Json, ns: string, parent: string): Json {
  return {
    id: str(s.id),
    flag_key: str(s.flagKey) || parent,
    key: str(s.key),
    name: str(s.name),
    description: str(s.description),
    attachment: str(s.attachment),
    namespace_key: str(s.namespaceKey) || ns,
  };
}

function constraintPayload(s: Json, ns: string, parent: string): Json {
  return {
    id: str(s.id),
    segment_key: str(s.segmentKey) || parent,
    type: str(s.type),
    property: str(s.property),
    operator: str(s.operator),
    value: str(s.value),
    namespace_key: str(s.namespaceKey) || ns,
  };
}

function distributionPayload(s: Json, parent: string): Json {
  return { id: str(s.id), rule_id: str(s.ruleId) || parent, variant_id: str(s.variantId), rollout: num(s.rollout) };
}

function segmentPayload(s: Json, ns: string): Json {
  const constraints = Array.isArray(s.constraints) ? s.constraints : [];
  const key = str(s.key);
  return {
    key,
    name: str(s.name),
    description: str(s.description),
    constraints: constraints.map((c) => constraintPayload(obj(c), ns, key)),
    match_type: str(s.matchType),
    namespace_key: str(s.namespaceKey) || ns,
  };
}

function rulePayload(s: Json, ns: string, parent: string): Json {
  const distributions = Array.isArray(s.distributions) ? s.distributions : [];
  const id = str(s.id);
  const segment = segmentKeyOf(s);
  return {
    id,
    flag_key: str(s.flagKey) || parent,
    segment_key: segment.key,
    distributions: distributions.map((d) => distributionPayload(obj(d), id)),
    rank: num(s.rank),
    namespace_key: str(s.namespaceKey) || ns,
    ...optional('segment_operator', segment.operator),
  };
}

function rolloutPayload(s: Json, ns: string, parent: string): Json {
  const base: Json = {
    namespace_key: str(s.namespaceKey) || ns,
    flag_key: str(s.flagKey) || parent,
    rank: num(s.rank),
    description: str(s.description),
  };
  if (s.threshold !== undefined && s.threshold !== null) {
    const t = obj(s.threshold);
    base.threshold = { percentage: num(t.percentage), value: t.value === true };
  }
  if (s.segment !== undefined && s.segment !== null) {
    const seg = obj(s.segment);
    const segment = segmentKeyOf(seg);
    base.segment = { key: segment.key, value: seg.value === true, ...optional('operator', segment.operator) };
  }
  return { ...base, ...optional('id', str(s.id)) };
}

/** Vexil's own type (issue 41), in the snake_case of Flipt's payloads; `*` stands for every namespace. */
function roleBindingPayload(s: Json): Json {
  const match = obj(s.match);
  return {
    id: str(s.id),
    match: {
      ...optional('method', str(match.method)),
      ...optional('metadata', str(match.metadata)),
      ...optional('claim', str(match.claim)),
      pattern: str(match.pattern),
    },
    role: str(s.role),
    namespace_key: str(s.namespace),
  };
}

function namespacePayload(s: Json): Json {
  return { key: str(s.key), name: str(s.name), description: str(s.description), protected: s.protected === true };
}

/** What Flipt's Delete…Request of the resource held, in its field order, empty fields left out. */
function deletePayload(change: Change, before: Json): Json {
  const ns = change.namespaceKey ?? '';
  const parent = change.parentKey ?? '';
  const fields: [string, string][] = [];
  switch (change.resourceType) {
    case 'namespace':
      fields.push(['key', str(before.key) || change.resourceKey]);
      break;
    case 'flag':
    case 'segment':
      fields.push(['key', str(before.key) || change.resourceKey], ['namespace_key', ns]);
      break;
    case 'variant':
    case 'rule':
      fields.push(['id', str(before.id) || change.resourceKey], ['flag_key', str(before.flagKey) || parent]);
      fields.push(['namespace_key', ns]);
      break;
    case 'constraint':
      fields.push(['id', str(before.id) || change.resourceKey], ['segment_key', str(before.segmentKey) || parent]);
      fields.push(['namespace_key', ns]);
      break;
    case 'rollout':
      fields.push(['id', str(before.id) || change.resourceKey], ['namespace_key', ns]);
      fields.push(['flag_key', str(before.flagKey) || parent]);
      break;
    case 'distribution':
      fields.push(['id', str(before.id) || change.resourceKey], ['flag_key', str(before.flagKey)]);
      fields.push(['rule_id', str(before.ruleId) || parent], ['variant_id', str(before.variantId)]);
      fields.push(['namespace_key', ns]);
      break;
    case 'token':
      fields.push(['id', str(before.id) || change.resourceKey]);
      break;
    case 'role_binding':
      fields.push(['id', str(before.id) || change.resourceKey], ['namespace_key', str(before.namespace)]);
      break;
  }
  return Object.fromEntries(fields.filter(([, v]) => v !== ''));
}

/** A reorder is stored as the ordered lists before and after: Flipt's Order…Request. */
function orderPayload(change: Change, after: unknown[]): Json {
  const ids = after.map((item) => str(obj(item).id));
  const flagKey = change.parentKey ?? change.resourceKey;
  const ns = change.namespaceKey ?? '';
  return change.resourceType === 'rollout'
    ? { flag_key: flagKey, ...optional('namespace_key', ns), rollout_ids: ids }
    : { flag_key: flagKey, rule_ids: ids, ...optional('namespace_key', ns) };
}

function statePayload(change: Change, state: Json): unknown {
  const ns = change.namespaceKey ?? '';
  const parent = change.parentKey ?? '';
  switch (change.resourceType) {
    case 'namespace':
      return namespacePayload(state);
    case 'flag':
      return flagPayload(state, ns);
    case 'variant':
      return variantPayload(state, ns, parent);
    case 'segment':
      return segmentPayload(state, ns);
    case 'constraint':
      return constraintPayload(state, ns, parent);
    case 'rule':
      return rulePayload(state, ns, parent);
    case 'distribution':
      return distributionPayload(state, parent);
    case 'rollout':
      return rolloutPayload(state, ns, parent);
    case 'role_binding':
      return roleBindingPayload(state);
    case 'token': {
      // Flipt's CreateTokenResponse.authentication.metadata; Go writes a map's keys sorted.
      const metadata = obj(state.metadata);
      return Object.fromEntries(
        Object.keys(metadata)
          .sort()
          .map((k) => [k, str(metadata[k])]),
      );
    }
  }
}

/** Flipt's time.RFC3339 text of the change's time (seconds, UTC). */
function rfc3339(time: string): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? time : `${date.toISOString().slice(0, 19)}Z`;
}

export function auditEventOf(change: Change): AuditEvent {
  let payload: unknown;
  if (change.action === 'deleted') payload = deletePayload(change, obj(change.before));
  else if (Array.isArray(change.after)) payload = orderPayload(change, change.after);
  else payload = statePayload(change, obj(change.after));
  const a = change.actor;
  const actor: AuditActor = {
    ...optional('authentication', str(a.authentication)),
    ...optional('ip', str(a.ip)),
    ...optional('email', str(a.email)),
    ...optional('name', str(a.name)),
    ...optional('picture', str(a.picture)),
    ...optional('role', str(a.role)),
  };
  return {
    version: EVENT_VERSION,
    type: change.resourceType,
    action: change.action,
    metadata: { actor },
    payload,
    timestamp: rfc3339(change.createdAt),
    status: 'success',
  };
}

/** The fields a template may name, as Flipt's audit.Event has them. */
export const EVENT_FIELDS = {
  Version: 'scalar',
  Type: 'scalar',
  Action: 'scalar',
  Metadata: {
    Actor: {
      Authentication: 'scalar',
      IP: 'scalar',
      Email: 'scalar',
      Name: 'scalar',
      Picture: 'scalar',
      Role: 'scalar',
    },
  },
  Payload: 'any',
  Timestamp: 'scalar',
  Status: 'scalar',
} as const;

/** The event as a template sees it: Go's field names, and encoding/json's shape under toJson. */
export function templateDataOf(event: AuditEvent): GoStruct {
  const a = event.metadata.actor;
  const actor = new GoStruct(
    {
      Authentication: a.authentication ?? '',
      IP: a.ip ?? '',
      Email: a.email ?? '',
      Name: a.name ?? '',
      Picture: a.picture ?? '',
      Role: a.role ?? '',
    },
    a,
  );
  const metadata = new GoStruct({ Actor: actor }, event.metadata);
  return new GoStruct(
    {
      Version: event.version,
      Type: event.type,
      Action: event.action,
      Metadata: metadata,
      Payload: event.payload,
      Timestamp: event.timestamp,
      Status: event.status,
    },
    event,
  );
}

/** The event's fields in the order Flipt's log sink writes them (its zap encoder puts status earlier). */
export function logLineOf(event: AuditEvent): Json {
  return {
    version: event.version,
    type: event.type,
    action: event.action,
    status: event.status,
    metadata: event.metadata,
    payload: event.payload,
    timestamp: event.timestamp,
  };
}
