// The shapes of evaluation requests and answers as the services take and give them (Flipt's fields,
// wire order), and the request-independent helpers every evaluation use case shares: Flipt's end
// timestamp, the request duration, and reading an input's optional fields.

import type { EvaluationContext, EvaluationReason, FlagEvaluation } from '../evaluation/index.js';

/** A context as decoded from JSON: null values read as "" (the engine reads non-strings as ""). */
export type InputContext = Readonly<Record<string, string | null>>;

const EMPTY_CONTEXT: EvaluationContext = Object.freeze({});

/** One evaluation request item, as Flipt's decoder would leave it (null = absent). */
export interface EvaluationInput {
  readonly requestId?: string | null;
  readonly namespaceKey?: string | null;
  readonly flagKey?: string | null;
  readonly entityId?: string | null;
  readonly context?: InputContext | null;
}

export interface BatchEvaluationInput {
  readonly requestId?: string | null;
  readonly requests?: readonly EvaluationInput[] | null;
}

export interface LegacyBatchEvaluationInput {
  readonly requestId?: string | null;
  readonly requests?: readonly EvaluationInput[] | null;
  readonly excludeNotFound?: boolean | null;
  readonly namespaceKey?: string | null;
}

interface Stamped {
  requestId: string;
  requestDurationMillis: number;
  timestamp: string;
}

/** Flipt's BooleanEvaluationResponse (wire order), plus `explain` when asked for. */
export interface BooleanEvaluationResponse extends Stamped {
  enabled: boolean;
  reason: EvaluationReason;
  flagKey: string;
  segmentKeys: readonly string[];
  explain?: unknown;
}

/** Flipt's VariantEvaluationResponse (wire order), plus `explain` when asked for. */
export interface VariantEvaluationResponse extends Stamped {
  match: boolean;
  segmentKeys: readonly string[];
  reason: EvaluationReason;
  variantKey: string;
  variantAttachment: string;
  flagKey: string;
  explain?: unknown;
}

/**
 * A batch's results before they are written out (api/http/evaluation-json.ts): one engine result per
 * request item, in order; a missing flag is an error item.
 */
export interface BatchEvaluation {
  requestId: string;
  requests: readonly EvaluationInput[];
  items: FlagEvaluation[];
}

/** Flipt's legacy flipt.EvaluationResponse (§1.7), wire order. */
export interface LegacyEvaluationResponse {
  requestId: string;
  entityId: string;
  requestContext: Record<string, string>;
  match: boolean;
  flagKey: string;
  segmentKey: string;
  timestamp: string;
  value: string;
  requestDurationMillis: number;
  attachment: string;
  reason: EvaluationReason;
  namespaceKey: string;
  segmentKeys: readonly string[];
}

export interface LegacyBatchEvaluationResponse {
  requestId: string;
  responses: LegacyEvaluationResponse[];
  requestDurationMillis: number;
}

/**
 * Whole milliseconds since `started` (performance.now()), rounded: what every answer reports as
 * requestDurationMillis, an integer in interface.md (the cached-text answers write the same, see
 * evaluation-json.ts millisText).
 */
export function millisSince(started: number): number {
  return Math.round(performance.now() - started);
}

// The timestamp is the same string for every request that ends within one millisecond, and its
// first 20 characters for every request within one second: V8's toISOString formats through
// snprintf (about 7,000 instructions), so it runs once a second and the milliseconds come from a table.
let stampMillis = -1;
let stampSecond = -1;
let stampPrefix = '';
let stampText = '';
/** `000Z` … `999Z`. */
const MILLIS_SUFFIX: readonly string[] = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/** The current time as RFC 3339 UTC, millisecond precision (protojson accepts 0/3/6/9 digits). */
export function currentTimestamp(): string {
  const now = Date.now();
  if (now !== stampMillis) {
    stampMillis = now;
    const second = Math.floor(now / 1000);
    if (second !== stampSecond) {
      stampSecond = second;
      stampPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    stampText = stampPrefix + (MILLIS_SUFFIX[now - second * 1000] as string);
  }
  return stampText;
}

export function orEmpty(value: string | null | undefined): string {
  return value ?? '';
}

export function contextOf(input: EvaluationInput): EvaluationContext {
  // null values stay as they are: the engine reads a non-string value as "" (Flipt's null → "").
  return (input.context ?? EMPTY_CONTEXT) as EvaluationContext;
}

/** A context with null values turned into "", for echoing it back (legacy `requestContext`). */
export function echoContext(context: InputContext | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (context) for (const key of Object.keys(context)) out[key] = context[key] ?? '';
  return out;
}
