// Compilation of a namespace's source into the immutable snapshot evaluation reads: flags by key,
// rules and rollouts in rank order, segments resolved once and shared by reference, constraint values
// pre-parsed, distributions turned into cumulative integer buckets carrying their variant key and
// attachment. All parsing and lookup happens here, once per namespace revision.

import type { FlagType } from '../domain/types.js';
import { type CompiledConstraint, ConstraintKind, compileConstraint } from './constraints.js';
import { distributionWidth } from './hashing.js';
import type { FlagSource, NamespaceSource, RolloutSource, RuleSource, SegmentSource, VariantSource } from './source.js';

export interface CompiledVariant {
  readonly id: string;
  readonly key: string;
  readonly attachment: string;
}

export interface CompiledDistribution {
  readonly id: string;
  readonly variantId: string;
  readonly variantKey: string;
  readonly variantAttachment: string;
  /** The rollout as float32, as Flipt stores it. */
  readonly rollout: number;
  /** First bucket (inclusive) and end (exclusive) of the cumulative range this distribution owns. */
  readonly bucketStart: number;
  readonly bucketEnd: number;
}

/** Segment match types as integers; anything unrecognised never matches (as in Flipt). */
export const MatchMode = { ALL: 0, ANY: 1, UNKNOWN: 2 } as const;
export type MatchMode = (typeof MatchMode)[keyof typeof MatchMode];

/**
 * Segment operators as integers. Flipt's switch has no default case, so an unrecognised operator
 * imposes no condition at all and the rule (or rollout) is satisfied: OTHER keeps that behaviour.
 */
export const OperatorMode = { OR: 0, AND: 1, OTHER: 2 } as const;
export type OperatorMode = (typeof OperatorMode)[keyof typeof OperatorMode];

export interface CompiledSegment {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  /** As stored. */
  readonly matchType: string;
  readonly matchMode: MatchMode;
  readonly constraints: readonly CompiledConstraint[];
  /** Evaluating this segment fails the evaluation with `unknown constraint type`. */
  readonly hasUnknownConstraintType: boolean;
}

export interface CompiledRule {
  readonly id: string;
  readonly rank: number;
  /** As stored. */
  readonly segmentOperator: string;
  readonly operatorMode: OperatorMode;
  /** Resolved, de-duplicated segments (at least one: rules without segments are not evaluation rules). */
  readonly segments: readonly CompiledSegment[];
  /** Frozen keys of `segments`, returned as-is when every segment matched. */
  readonly segmentKeys: readonly string[];
  /** Distributions with rollout > 0 in creation order; empty means "match without a variant". */
  readonly distributions: readonly CompiledDistribution[];
  readonly hasUnknownConstraintType: boolean;
}

interface CompiledRolloutBase {
  readonly id: string;
  readonly rank: number;
  /** As stored; informational (Flipt decides by which rule body is present). */
  readonly type: string;
  readonly description: string;
}

export interface CompiledThresholdRollout extends CompiledRolloutBase {
  readonly kind: 'threshold';
  /** float32, compared as `float32(bucket) < percentage`. */
  readonly percentage: number;
  readonly value: boolean;
}

export interface CompiledSegmentRollout extends CompiledRolloutBase {
  readonly kind: 'segment';
  readonly segmentOperator: string;
  readonly operatorMode: OperatorMode;
  readonly segments: readonly CompiledSegment[];
  readonly segmentKeys: readonly string[];
  readonly value: boolean;
  readonly hasUnknownConstraintType: boolean;
}

/** A rollout with neither a threshold nor a segment: skipped, as Flipt does. */
export interface CompiledEmptyRollout extends CompiledRolloutBase {
  readonly kind: 'none';
}

export type CompiledRollout = CompiledThresholdRollout | CompiledSegmentRollout | CompiledEmptyRollout;

export interface CompiledFlag {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** As stored; a value outside FlagType makes evaluateFlag fail with `unknown flag type`. */
  readonly type: FlagType;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly defaultVariant: CompiledVariant | undefined;
  readonly variants: readonly CompiledVariant[];
  /** Evaluation rules: those with at least one known segment, sorted by rank (stable). */
  readonly rules: readonly CompiledRule[];
  /** Sorted by rank (stable). */
  readonly rollouts: readonly CompiledRollout[];
}

/** The immutable, compiled configuration of one namespace at one revision. */
export interface NamespaceSnapshot {
  readonly namespaceKey: string;
  readonly revision: string;
  readonly flags: ReadonlyMap<string, CompiledFlag>;
  /** Flags in source (creation) order, for listing and the client-side snapshot. */
  readonly flagList: readonly CompiledFlag[];
  readonly segments: ReadonlyMap<string, CompiledSegment>;
}

const EMPTY: readonly never[] = Object.freeze([]);

function matchModeOf(matchType: string): MatchMode {
  if (matchType === 'ALL_MATCH_TYPE') return MatchMode.ALL;
  if (matchType === 'ANY_MATCH_TYPE') return MatchMode.ANY;
  return MatchMode.UNKNOWN;
}

function operatorModeOf(operator: string): OperatorMode {
  if (operator === 'OR_SEGMENT_OPERATOR') return OperatorMode.OR;
  if (operator === 'AND_SEGMENT_OPERATOR') return OperatorMode.AND;
  return OperatorMode.OTHER;
}

function compileSegment(source: SegmentSource): CompiledSegment {
  const constraints = Object.freeze(source.constraints.map(compileConstraint));
  return Object.freeze({
    key: source.key,
    name: source.name,
    description: source.description,
    matchType: source.matchType,
    matchMode: matchModeOf(source.matchType),
    constraints,
    hasUnknownConstraintType: constraints.some((c) => c.kind === ConstraintKind.UNKNOWN),
  });
}

/**
 * Resolves segment keys the way Flipt's storage does: keys without a segment are dropped (an SQL
 * join would drop them) and duplicates collapse (Flipt holds a rule's segments in a map by key).
 */
function resolveSegments(
  keys: readonly string[],
  segments: ReadonlyMap<string, CompiledSegment>,
): { segments: readonly CompiledSegment[]; keys: readonly string[] } {
  const seen = new Set<string>();
  const resolved: CompiledSegment[] = [];
  for (const key of keys) {
    const segment = segments.get(key);
    if (segment === undefined || seen.has(key)) continue;
    seen.add(key);
    resolved.push(segment);
  }
  return { segments: Object.freeze(resolved), keys: Object.freeze(resolved.map((s) => s.key)) };
}

function compileVariant(v: VariantSource): CompiledVariant {
  return Object.freeze({ id: v.id, key: v.key, attachment: v.attachment });
}

function compileRule(
  rule: RuleSource,
  segments: ReadonlyMap<string, CompiledSegment>,
  variants: ReadonlyMap<string, CompiledVariant>,
): CompiledRule | undefined {
  const resolved = resolveSegments(rule.segmentKeys, segments);
  if (resolved.segments.length === 0) return undefined;
  const distributions: CompiledDistribution[] = [];
  let cumulative = 0;
  for (const d of rule.distributions) {
    const rollout = Math.fround(d.rollout);
    // Flipt skips 0 % (and, by the same test, negative or NaN) rollouts entirely.
    if (!(rollout > 0)) continue;
    // Flipt joins distributions with variants by id; one whose variant is gone does not exist for it.
    const variant = variants.get(d.variantId);
    if (variant === undefined) continue;
    const start = cumulative;
    cumulative += distributionWidth(rollout);
    distributions.push(
      Object.freeze({
        id: d.id,
        variantId: d.variantId,
        variantKey: variant.key,
        variantAttachment: variant.attachment,
        rollout,
        bucketStart: start,
        bucketEnd: cumulative,
      }),
    );
  }
  return Object.freeze({
    id: rule.id,
    rank: rule.rank,
    segmentOperator: rule.segmentOperator,
    operatorMode: operatorModeOf(rule.segmentOperator),
    segments: resolved.segments,
    segmentKeys: resolved.keys,
    distributions: Object.freeze(distributions),
    hasUnknownConstraintType: resolved.segments.some((s) => s.hasUnknownConstraintType),
  });
}

function compileRollout(rollout: RolloutSource, segments: ReadonlyMap<string, CompiledSegment>): CompiledRollout {
  const base = { id: rollout.id, rank: rollout.rank, type: rollout.type, description: rollout.description };
  // Flipt tests the threshold body first, whatever the declared type.
  if (rollout.threshold !== undefined) {
    return Object.freeze({
      ...base,
      kind: 'threshold' as const,
      percentage: Math.fround(rollout.threshold.percentage),
      value: rollout.threshold.value,
    });
  }
  if (rollout.segment !== undefined) {
    const resolved = resolveSegments(rollout.segment.segmentKeys, segments);
    return Object.freeze({
      ...base,
      kind: 'segment' as const,
      segmentOperator: rollout.segment.segmentOperator,
      operatorMode: operatorModeOf(rollout.segment.segmentOperator),
      segments: resolved.segments,
      segmentKeys: resolved.keys,
      value: rollout.segment.value,
      hasUnknownConstraintType: resolved.segments.some((s) => s.hasUnknownConstraintType),
    });
  }
  return Object.freeze({ ...base, kind: 'none' as const });
}

function byRank<T extends { rank: number }>(items: readonly T[]): T[] {
  // Array.prototype.sort is stable, so equal ranks keep storage order.
  return [...items].sort((a, b) => a.rank - b.rank);
}

function compileFlag(
  flag: FlagSource,
  segments: ReadonlyMap<string, CompiledSegment>,
  variantsById: ReadonlyMap<string, CompiledVariant>,
): CompiledFlag {
  const rules: CompiledRule[] = [];
  for (const rule of byRank(flag.rules)) {
    const compiled = compileRule(rule, segments, variantsById);
    if (compiled !== undefined) rules.push(compiled);
  }
  return Object.freeze({
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    type: flag.type,
    createdAt: flag.createdAt,
    updatedAt: flag.updatedAt,
    defaultVariant: flag.defaultVariant === undefined ? undefined : compileVariant(flag.defaultVariant),
    variants: Object.freeze(flag.variants.map(compileVariant)),
    rules: Object.freeze(rules),
    rollouts: Object.freeze(byRank(flag.rollouts).map((r) => compileRollout(r, segments))),
  });
}

/**
 * Compiles a namespace source into its immutable snapshot. Pure and total: bad data (unknown types,
 * unparsable values, dangling references) compiles into something that behaves as Flipt would.
 */
export function compileSnapshot(source: NamespaceSource): NamespaceSnapshot {
  const segments = new Map<string, CompiledSegment>();
  for (const s of source.segments) {
    if (!segments.has(s.key)) segments.set(s.key, compileSegment(s));
  }
  // Distributions may point at a variant of another flag of the namespace, so resolve namespace-wide.
  const variantsById = new Map<string, CompiledVariant>();
  for (const f of source.flags) {
    for (const v of f.variants) {
      if (!variantsById.has(v.id)) variantsById.set(v.id, compileVariant(v));
    }
  }
  const flags = new Map<string, CompiledFlag>();
  const flagList: CompiledFlag[] = [];
  for (const f of source.flags) {
    if (flags.has(f.key)) continue;
    const compiled = compileFlag(f, segments, variantsById);
    flags.set(f.key, compiled);
    flagList.push(compiled);
  }
  return Object.freeze({
    namespaceKey: source.namespaceKey,
    revision: source.revision,
    flags,
    flagList: Object.freeze(flagList),
    segments,
  });
}

/** A frozen empty list, shared by results that have no segment keys. */
export const NO_SEGMENT_KEYS: readonly string[] = EMPTY;
