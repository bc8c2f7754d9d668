// Wire shapes of the Vexil (Flipt v1 compatible) REST API as the dashboard uses them
// (behavior.md §3.2 management objects, §1.6 evaluation responses, §5.2 authentications).

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

export interface Namespace {
  key: string;
  name: string;
  description: string;
  protected: boolean;
  createdAt?: string;
  updatedAt?: string;
}

export interface Variant {
  id: string;
  flagKey: string;
  key: string;
  name: string;
  description: string;
  /** Compact JSON text, or "" when there is none. */
  attachment: string;
  namespaceKey: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface Flag {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  variants: Variant[];
  namespaceKey: string;
  defaultVariant?: Variant;
  metadata?: Record<string, Json>;
  createdAt?: string;
  updatedAt?: string;
}

export interface Constraint {
  id: string;
  segmentKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
  namespaceKey: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface Segment {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
  constraints: Constraint[];
  namespaceKey: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface Distribution {
  id: string;
  ruleId: string;
  variantId: string;
  rollout: number;
  createdAt?: string;
  updatedAt?: string;
}

export interface Rule {
  id: string;
  flagKey: string;
  /** Set when the rule has exactly one segment; then segmentKeys is []. */
  segmentKey: string;
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  distributions: Distribution[];
  rank: number;
  namespaceKey: string;
  createdAt?: string;
  updatedAt?: string;
}

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

export interface Rollout {
  id: string;
  namespaceKey: string;
  flagKey: string;
  type: RolloutType;
  rank: number;
  description: string;
  segment?: RolloutSegment;
  threshold?: RolloutThreshold;
  createdAt?: string;
  updatedAt?: string;
}

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

export interface Authentication {
  id: string;
  method: string;
  expiresAt?: string;
  createdAt?: string;
  updatedAt?: string;
  metadata: Record<string, string>;
}
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
