// Domain model of Vexil: the resources of the management API as the rest of the program sees them.
// Enums are their Flipt wire names; storage converts to and from the integers Flipt stores.

export const FLAG_TYPES = ['VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const MATCH_TYPES = ['ALL_MATCH_TYPE', 'ANY_MATCH_TYPE'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export const SEGMENT_OPERATORS = ['OR_SEGMENT_OPERATOR', 'AND_SEGMENT_OPERATOR'] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

export const COMPARISON_TYPES = [
  'UNKNOWN_COMPARISON_TYPE',
  'STRING_COMPARISON_TYPE',
  'NUMBER_COMPARISON_TYPE',
  'BOOLEAN_COMPARISON_TYPE',
  'DATETIME_COMPARISON_TYPE',
  'ENTITY_ID_COMPARISON_TYPE',
] as const;
export type ComparisonType = (typeof COMPARISON_TYPES)[number];

export const ROLLOUT_TYPES = ['UNKNOWN_ROLLOUT_TYPE', 'SEGMENT_ROLLOUT_TYPE', 'THRESHOLD_ROLLOUT_TYPE'] as const;
export type RolloutType = (typeof ROLLOUT_TYPES)[number];

/** Timestamps travel as Date inside the program; the HTTP layer formats them (RFC 3339, UTC). */
export interface Namespace {
  key: string;
  name: string;
  description: string;
  protected: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface Variant {
  id: string;
  flagKey: string;
  key: string;
  name: string;
  description: string;
  /** Compact JSON text, or '' when there is none. */
  attachment: string;
  namespaceKey: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface Flag {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  namespaceKey: string;
  type: FlagType;
  variants: Variant[];
  defaultVariant?: Variant;
  /** Free-form JSON object; undefined when none is stored. */
  metadata?: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface Constraint {
  id: string;
  segmentKey: string;
  namespaceKey: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface Segment {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
  namespaceKey: string;
  constraints: Constraint[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Distribution {
  id: string;
  ruleId: string;
  variantId: string;
  /** A float32 percentage in [0, 100]. */
  rollout: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface Rule {
  id: string;
  flagKey: string;
  namespaceKey: string;
  rank: number;
  /** Every segment of the rule, in the order they were stored. */
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  distributions: Distribution[];
  createdAt: Date;
  updatedAt: Date;
}

export interface RolloutSegment {
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
  createdAt: Date;
  updatedAt: Date;
}

/** A page of a list: `nextPageToken` is '' on the last page. */
export interface Page<T> {
  items: T[];
  nextPageToken: string;
  totalCount: number;
}

/** An empty namespace key means the default namespace everywhere (behavior.md §1.1). */
export const DEFAULT_NAMESPACE = 'default';

/**
 * The characters of a namespace, flag or segment key, as Flipt accepts them (commas included:
 * behavior.md, key format). One pattern for every check of a key, so what can be created can be named
 * everywhere else (a role binding's namespace among them).
 */
export const KEY_PATTERN = /^[-_,A-Za-z0-9]+$/;
