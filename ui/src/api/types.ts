// Wire shapes of the Vexil (Flipt v1 compatible) REST API as the dashboard uses them. The management
// objects come from openapi.d.ts, generated from the server's /openapi.json at build time
// (scripts/openapi-types.ts), so they cannot drift from the API; the rest are what the OpenAPI
// document leaves loose (evaluation answers, lists) or the dashboard's own names for its unions.

import type { components } from './openapi.js';

type Schemas = components['schemas'];

export type FlagType = 'VARIANT_FLAG_TYPE' | 'BOOLEAN_FLAG_TYPE';
export type MatchType = 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE';
export type SegmentOperator = 'OR_SEGMENT_OPERATOR' | 'AND_SEGMENT_OPERATOR';
export type ComparisonType =
  | 'STRING_COMPARISON_TYPE'
  | 'NUMBER_COMPARISON_TYPE'
  | 'BOOLEAN_COMPARISON_TYPE'
  | 'DATETIME_COMPARISON_TYPE'
  | 'ENTITY_ID_COMPARISON_TYPE';
export type RolloutType = 'SEGMENT_ROLLOUT_TYPE' | 'THRESHOLD_ROLLOUT_TYPE' | 'UNKNOWN_ROLLOUT_TYPE';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type Namespace = Schemas['Namespace'];

export type Variant = Schemas['Variant'];

export type Flag = Schemas['Flag'];

export type Constraint = Schemas['Constraint'];

export type Segment = Schemas['Segment'];

export type Distribution = Schemas['Distribution'];

export type Rule = Schemas['Rule'];

export interface RolloutSegment {
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  value: boolean;
}

export interface RolloutThreshold {
  percentage: number;
  value: boolean;
}

export type Rollout = Schemas['Rollout'];

export interface Page {
  nextPageToken: string;
  totalCount: number;
}
export interface NamespaceList extends Page {
  namespaces: Namespace[];
}
export interface FlagList extends Page {
  flags: Flag[];
}
export interface SegmentList extends Page {
  segments: Segment[];
}
export interface RuleList extends Page {
  rules: Rule[];
}
/** Flipt names the rollout list's array `rules` too. */
export interface RolloutList extends Page {
  rules: Rollout[];
}

export type EvaluationReason =
  | 'UNKNOWN_EVALUATION_REASON'
  | 'FLAG_DISABLED_EVALUATION_REASON'
  | 'MATCH_EVALUATION_REASON'
  | 'DEFAULT_EVALUATION_REASON';

export interface EvaluationRequest {
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: Record<string, string>;
}

interface EvaluationCommon {
  reason: EvaluationReason;
  requestId: string;
  requestDurationMillis: number;
  timestamp: string;
  flagKey: string;
  segmentKeys: string[];
  /** Present when the request asked for `?explain=true`; its shape is rendered generically. */
  explain?: Json;
}
export interface BooleanEvaluation extends EvaluationCommon {
  enabled: boolean;
}
export interface VariantEvaluation extends EvaluationCommon {
  match: boolean;
  variantKey: string;
  variantAttachment: string;
}

export type Authentication = Schemas['Authentication'];
export interface AuthenticationList {
  authentications: Authentication[];
  nextPageToken: string;
}
export interface CreatedToken {
  clientToken: string;
  authentication: Authentication;
}

export interface MetaInfo {
  version?: string;
  authentication?: { required?: boolean };
  storage?: { type?: string; readOnly?: boolean };
}

/** Flipt's error body: `{"code":<grpc code>,"message":"…","details":[]}`. */
export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}
