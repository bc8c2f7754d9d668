// The management resources in Flipt's JSON shape (and the authentication ones, which gRPC also sends,
// converted by api/grpc/messages.ts). The management messages are built straight from the domain by
// api/operations/resource-messages.ts, with the same quirks: a rule or segment rollout with one segment
// names it in `segmentKey` (and `segmentKeys` is empty), several in `segmentKeys`; float fields print
// as float32.

import type { Config } from '../config/schema.js';
import type { Authentication, AuthMethod } from '../domain/authentication.js';
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
} from '../domain/types.js';
import type { CreatedToken } from '../services/auth.js';
import { float32 } from './float32.js';

function timestamp(date: Date): string {
  return date.toISOString();
}

export function namespaceToWire(ns: Namespace) {
  return {
    key: ns.key,
    name: ns.name,
    description: ns.description,
    protected: ns.protected,
    createdAt: timestamp(ns.createdAt),
    updatedAt: timestamp(ns.updatedAt),
  };
}

export function namespaceListToWire(page: Page<Namespace>) {
  return {
    namespaces: page.items.map(namespaceToWire),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

export function variantToWire(v: Variant) {
  return {
    id: v.id,
    flagKey: v.flagKey,
    key: v.key,
    name: v.name,
    description: v.description,
    createdAt: timestamp(v.createdAt),
    updatedAt: timestamp(v.updatedAt),
    attachment: v.attachment,
    namespaceKey: v.namespaceKey,
  };
}

/**
 * One flag as Flipt shows it. `listed`: list responses show `metadata: {}` for a flag without
 * metadata, while a single flag omits it (Flipt's quirk, kept because clients see it).
 */
export function flagToWire(f: Flag, listed = false) {
  return {
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    createdAt: timestamp(f.createdAt),
    updatedAt: timestamp(f.updatedAt),
    variants: f.variants.map(variantToWire),
    namespaceKey: f.namespaceKey,
    type: f.type,
    ...(f.defaultVariant ? { defaultVariant: variantToWire(f.defaultVariant) } : {}),
    ...(f.metadata ? { metadata: f.metadata } : listed ? { metadata: {} } : {}),
  };
}

export function flagListToWire(page: Page<Flag>) {
  return {
    flags: page.items.map((f) => flagToWire(f, true)),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

export function constraintToWire(c: Constraint) {
  return {
    id: c.id,
    segmentKey: c.segmentKey,
    type: c.type,
    property: c.property,
    operator: c.operator,
    value: c.value,
    createdAt: timestamp(c.createdAt),
    updatedAt: timestamp(c.updatedAt),
    namespaceKey: c.namespaceKey,
    description: c.description,
  };
}

export function segmentToWire(s: Segment) {
  return {
    key: s.key,
    name: s.name,
    description: s.description,
    createdAt: timestamp(s.createdAt),
    updatedAt: timestamp(s.updatedAt),
    constraints: s.constraints.map(constraintToWire),
    matchType: s.matchType,
    namespaceKey: s.namespaceKey,
  };
}

export function segmentListToWire(page: Page<Segment>) {
  return { segments: page.items.map(segmentToWire), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
}

export function distributionToWire(d: Distribution) {
  return {
    id: d.id,
    ruleId: d.ruleId,
    variantId: d.variantId,
    rollout: float32(d.rollout),
    createdAt: timestamp(d.createdAt),
    updatedAt: timestamp(d.updatedAt),
  };
}

/** Flipt names one segment in `segmentKey` and two or more in `segmentKeys`, leaving the other empty. */
export function segmentKeyFields(keys: readonly string[]): { key: string; keys: readonly string[] } {
  return keys.length === 1 ? { key: keys[0] as string, keys: [] } : { key: '', keys };
}

export function ruleToWire(r: Rule) {
  const segments = segmentKeyFields(r.segmentKeys);
  return {
    id: r.id,
    flagKey: r.flagKey,
    segmentKey: segments.key,
    distributions: r.distributions.map(distributionToWire),
    rank: r.rank,
    createdAt: timestamp(r.createdAt),
    updatedAt: timestamp(r.updatedAt),
    namespaceKey: r.namespaceKey,
    segmentKeys: segments.keys,
    segmentOperator: r.segmentOperator,
  };
}

export function ruleListToWire(page: Page<Rule>) {
  return { rules: page.items.map(ruleToWire), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
}

export function rolloutToWire(r: Rollout) {
  const base = {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type,
    rank: r.rank,
    description: r.description,
    createdAt: timestamp(r.createdAt),
    updatedAt: timestamp(r.updatedAt),
  };
  if (r.segment) {
    const segments = segmentKeyFields(r.segment.segmentKeys);
    return {
      ...base,
      segment: {
        segmentKey: segments.key,
        value: r.segment.value,
        segmentKeys: segments.keys,
        segmentOperator: r.segment.segmentOperator,
      },
    };
  }
  if (r.threshold) {
    return { ...base, threshold: { percentage: float32(r.threshold.percentage), value: r.threshold.value } };
  }
  return base;
}

export function rolloutListToWire(page: Page<Rollout>) {
  return { rules: page.items.map(rolloutToWire), nextPageToken: page.nextPageToken, totalCount: page.totalCount };
}

/** Metadata keys sorted, so the output is stable whatever order the database kept. */
export function authenticationToWire(auth: Authentication) {
  const metadata: Record<string, string> = {};
  for (const key of Object.keys(auth.metadata).sort()) metadata[key] = auth.metadata[key] as string;
  return {
    id: auth.id,
    method: auth.method,
    ...(auth.expiresAt ? { expiresAt: timestamp(auth.expiresAt) } : {}),
    createdAt: timestamp(auth.createdAt),
    updatedAt: timestamp(auth.updatedAt),
    metadata,
    // Vexil's extension (issue 41): only an authentication with roles shows them.
    ...(auth.roles !== undefined ? { roles: auth.roles.map(({ role, namespace }) => ({ role, namespace })) } : {}),
  };
}

export function createdTokenToWire(created: CreatedToken) {
  return { clientToken: created.clientToken, authentication: authenticationToWire(created.authentication) };
}

/** Flipt's authentication methods in its order, with whether each can back a browser session. */
const METHOD_INFO: readonly { method: AuthMethod; sessionCompatible: boolean }[] = [
  { method: 'METHOD_TOKEN', sessionCompatible: false },
  { method: 'METHOD_GITHUB', sessionCompatible: true },
  { method: 'METHOD_OIDC', sessionCompatible: true },
  { method: 'METHOD_KUBERNETES', sessionCompatible: false },
  { method: 'METHOD_JWT', sessionCompatible: false },
];

/** Which methods `authentication.methods` switches on, with the metadata Flipt lists for each. */
export type EnabledAuthMethods = Readonly<Partial<Record<AuthMethod, { metadata?: Record<string, unknown> }>>>;

/** The methods this config enables (the others are refused at start, config/flipt-sections.ts). */
export function enabledMethods(config: Config): EnabledAuthMethods {
  const methods = config.authentication.methods;
  const enabled: Partial<Record<AuthMethod, { metadata?: Record<string, unknown> }>> = {};
  if (methods.token.enabled) enabled.METHOD_TOKEN = {};
  if (methods.jwt.enabled) enabled.METHOD_JWT = {};
  if (methods.kubernetes.enabled) enabled.METHOD_KUBERNETES = {};
  if (methods.oidc.enabled) {
    const providers: Record<string, unknown> = {};
    for (const name of Object.keys(methods.oidc.providers)) {
      providers[name] = {
        authorize_url: `/auth/v1/method/oidc/${name}/authorize`,
        callback_url: `/auth/v1/method/oidc/${name}/callback`,
      };
    }
    enabled.METHOD_OIDC = { metadata: { providers } };
  }
  if (methods.github.enabled) {
    enabled.METHOD_GITHUB = {
      metadata: { authorize_url: '/auth/v1/method/github/authorize', callback_url: '/auth/v1/method/github/callback' },
    };
  }
  return enabled;
}

/** The public list of authentication methods, with whether each is enabled here. */
export function authMethodsToWire(enabled: EnabledAuthMethods) {
  return {
    methods: METHOD_INFO.map(({ method, sessionCompatible }) => {
      const on = enabled[method];
      return {
        method,
        enabled: on !== undefined,
        sessionCompatible,
        ...(on?.metadata ? { metadata: on.metadata } : {}),
      };
    }),
  };
}
