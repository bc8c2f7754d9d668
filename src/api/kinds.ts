// What each API entry point is, for both transports: its kind (an HTTP route's `config.kind`, a gRPC
// method's table entry), and what follows from the kind: who may call it (authentication), which tier
// serves it, how its calls are logged. Also the tier refusals themselves (`server.mode`,
// `storage.read_only`) and the revision header/metadata name, so HTTP and gRPC refuse and answer alike.

import type { AuthGroup } from '../auth/access-groups.js';
import type { Config } from '../config/schema.js';

export type RouteKind =
  /** /evaluate/v1: boolean, variant and batch evaluation. */
  | 'evaluation'
  /** OFREP's evaluations (single and bulk). */
  | 'ofrep'
  /** OFREP's provider configuration. */
  | 'ofrep-configuration'
  /** Flipt's deprecated /api/v1/evaluate and batch-evaluate (management's credentials, as in Flipt). */
  | 'legacy-evaluation'
  /** The client-side SDKs' namespace snapshot. */
  | 'client-snapshot'
  /** OFREP's event stream of a namespace (server-sent events; opened with a stream ticket when authentication is required). */
  | 'ofrep-events'
  /** The native change stream of a namespace (server-sent events, gRPC server streaming). */
  | 'change-stream'
  /** The management API under /api/v1: reads and writes, told apart by method. */
  | 'management'
  /** Token endpoints: self, tokens, token creation. */
  | 'auth'
  /** The list of authentication methods, which a login page reads before it has a token. */
  | 'auth-methods'
  /** /meta/*. */
  | 'meta'
  /** Load balancers' and Prometheus's probes: /health, /metrics. */
  | 'probe'
  /** The OpenAPI document. */
  | 'openapi'
  /** The dashboard's page and files. */
  | 'ui'
  /** CORS preflights (`OPTIONS *`, with `cors.enabled`): browsers send them without credentials. */
  | 'preflight';

/** Who may call a route: anyone, or a caller with a credential of a group (unclassified: never excluded). */
export type RouteAccess = { open: true } | { open: false; group: AuthGroup | 'unclassified' };

/** Which tier setting can refuse a route: evaluation never, management writes and auth writes by mode. */
export type TierClass = 'evaluation' | 'management' | 'auth' | 'other';

/** How a successful request's log line is levelled (telemetry): evaluations and probes below info. */
export type LogClass = 'evaluation' | 'probe' | 'other';

export interface KindPolicy {
  access: RouteAccess;
  tier: TierClass;
  log: LogClass;
  /**
   * The handler sends JSON text it wrote itself (evaluation answers): it sets the request id header,
   * indents for `?pretty` and compresses (evaluation-answer.ts), and reads a missing body as empty, so
   * the route gets none of the hooks that do this for the other routes.
   */
  writesOwnAnswer: boolean;
  /** A stream ticket in the query (`?ticket=`) may stand in for the bearer token (features/event-streams/tickets.ts). */
  acceptsStreamTicket?: true;
}

const OPEN: RouteAccess = { open: true };
const needs = (group: AuthGroup): RouteAccess => ({ open: false, group });

export const KIND_POLICIES: Readonly<Record<RouteKind, KindPolicy>> = {
  evaluation: { access: needs('evaluation'), tier: 'evaluation', log: 'evaluation', writesOwnAnswer: true },
  ofrep: { access: needs('ofrep'), tier: 'evaluation', log: 'evaluation', writesOwnAnswer: true },
  'ofrep-configuration': { access: needs('ofrep'), tier: 'evaluation', log: 'evaluation', writesOwnAnswer: false },
  'legacy-evaluation': { access: needs('management'), tier: 'evaluation', log: 'evaluation', writesOwnAnswer: false },
  'client-snapshot': { access: needs('evaluation'), tier: 'other', log: 'evaluation', writesOwnAnswer: false },
  'ofrep-events': {
    access: needs('ofrep'),
    tier: 'evaluation',
    log: 'other',
    writesOwnAnswer: true,
    acceptsStreamTicket: true,
  },
  'change-stream': { access: needs('evaluation'), tier: 'evaluation', log: 'other', writesOwnAnswer: true },
  management: { access: needs('management'), tier: 'management', log: 'other', writesOwnAnswer: false },
  auth: { access: needs('auth'), tier: 'auth', log: 'other', writesOwnAnswer: false },
  'auth-methods': { access: OPEN, tier: 'other', log: 'other', writesOwnAnswer: false },
  meta: { access: needs('meta'), tier: 'other', log: 'other', writesOwnAnswer: false },
  probe: { access: OPEN, tier: 'other', log: 'probe', writesOwnAnswer: false },
  openapi: { access: OPEN, tier: 'other', log: 'other', writesOwnAnswer: false },
  ui: { access: OPEN, tier: 'other', log: 'other', writesOwnAnswer: false },
  preflight: { access: OPEN, tier: 'other', log: 'other', writesOwnAnswer: false },
};

/** A route that declared no kind: protected, and in no group an exclude switch can open. */
export const UNDECLARED_POLICY: KindPolicy = {
  access: { open: false, group: 'unclassified' },
  tier: 'other',
  log: 'other',
  writesOwnAnswer: false,
};

export const READ_ONLY_MESSAGE = 'modification is not allowed in read-only mode';

/** Names the revision an answer was computed from (HTTP header, gRPC response metadata). */
export const REVISION_HEADER = 'x-vexil-revision';

/**
 * - evaluation: evaluation, legacy evaluation and OFREP (POST included: evaluating changes nothing);
 * - management-read / management-write: the management API by method;
 * - auth-write: token create, delete and expire;
 * - other: health, metrics, meta, auth reads, the snapshot, the dashboard, OpenAPI.
 */
export type RouteTier = 'evaluation' | 'management-read' | 'management-write' | 'auth-write' | 'other';

/** The tier of an entry point of the class, reading or writing. */
export function tierOfClass(tier: TierClass, writes: boolean): RouteTier {
  switch (tier) {
    case 'evaluation':
      return 'evaluation';
    case 'management':
      return writes ? 'management-write' : 'management-read';
    case 'auth':
      return writes ? 'auth-write' : 'other';
    default:
      return 'other';
  }
}

/** Whether this instance refuses entry points of the tier. */
export function refusesTier(config: Pick<Config, 'server' | 'storage'>, tier: RouteTier): boolean {
  if (tier === 'management-write') return config.server.mode === 'read' || config.storage.read_only;
  if (tier === 'auth-write') return config.server.mode === 'read';
  return false;
}
