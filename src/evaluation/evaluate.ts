// Flag evaluation: a pure function of (snapshot, flag key, entity id, context) with Flipt v1's exact
// results (behavior.md §1.2 variant, §1.4 segments, §1.5 boolean). The hot path parses nothing but
// context values and allocates only the result (shared frozen arrays stand in for segmentKeys
// whenever every segment of the matched rule matched or none did).

import { InvalidArgumentError, NotFoundError } from '../domain/errors.js';
import { type CompiledConstraint, ConstraintKind, constraintOutcome, contextValue, Outcome } from './constraints.js';
import { thresholdBucket, variantBucket } from './hashing.js';
import {
  type CompiledFlag,
  type CompiledSegment,
  MatchMode,
  type NamespaceSnapshot,
  NO_SEGMENT_KEYS,
  OperatorMode,
} from './snapshot.js';

/** An evaluation context: property name → string value (Flipt accepts only string values). */
export type EvaluationContext = Readonly<Record<string, string>>;

export type EvaluationReason =
  | 'UNKNOWN_EVALUATION_REASON'
  | 'FLAG_DISABLED_EVALUATION_REASON'
  | 'MATCH_EVALUATION_REASON'
  | 'DEFAULT_EVALUATION_REASON';

/** The body of Flipt's VariantEvaluationResponse, minus request id, timestamp and duration. */
export interface VariantEvaluation {
  readonly match: boolean;
  /** Keys of the matching segments of the matched rule; [] when none. May be a shared frozen array. */
  readonly segmentKeys: readonly string[];
  readonly reason: EvaluationReason;
  readonly variantKey: string;
  /** Compact JSON text, '' when none. */
  readonly variantAttachment: string;
  readonly flagKey: string;
}

/** The body of Flipt's BooleanEvaluationResponse, minus request id, timestamp and duration. */
export interface BooleanEvaluation {
  readonly enabled: boolean;
  readonly reason: EvaluationReason;
  /** Matching segments of the matched segment rollout; [] otherwise. May be a shared frozen array. */
  readonly segmentKeys: readonly string[];
  readonly flagKey: string;
}

/** One item of a batch evaluation, shaped like Flipt's EvaluationResponse oneof. */
export type FlagEvaluation =
  | { readonly type: 'VARIANT_EVALUATION_RESPONSE_TYPE'; readonly variantResponse: VariantEvaluation }
  | { readonly type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE'; readonly booleanResponse: BooleanEvaluation }
  | {
      readonly type: 'ERROR_EVALUATION_RESPONSE_TYPE';
      /** The HTTP layer adds `namespaceKey` as the request sent it (possibly ""). */
      readonly errorResponse: { readonly flagKey: string; readonly reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' };
    };

// ---------------------------------------------------------------------------------------------
// Shared primitives (also used by explain.ts)

/** The value a constraint compares: the entity id for ENTITY_ID constraints, else the context value. */
export function comparedValue(c: CompiledConstraint, context: EvaluationContext, entityId: string): string {
  return c.kind === ConstraintKind.ENTITY_ID ? entityId : contextValue(context, c.property);
}

/**
 * Whether a segment matches (§1.4). Flipt evaluates every constraint, but matchers are pure, so
 * stopping at the first decisive one gives the same answer. Callers have already rejected segments
 * with constraints of unknown type.
 */
export function segmentMatches(segment: CompiledSegment, context: EvaluationContext, entityId: string): boolean {
  const constraints = segment.constraints;
  switch (segment.matchMode) {
    case MatchMode.ALL:
      for (const c of constraints) {
        if (constraintOutcome(c, comparedValue(c, context, entityId), entityId) !== Outcome.MATCH) return false;
      }
      return true;
    case MatchMode.ANY:
      if (constraints.length === 0) return true;
      for (const c of constraints) {
        if (constraintOutcome(c, comparedValue(c, context, entityId), entityId) === Outcome.MATCH) return true;
      }
      return false;
    default:
      return false;
  }
}

/** Whether an OR/AND (or unrecognised) segment operator is satisfied by `matched` of `total`. */
export function operatorSatisfied(mode: OperatorMode, matched: number, total: number): boolean {
  if (mode === OperatorMode.OR) return matched >= 1;
  if (mode === OperatorMode.AND) return matched === total;
  return true;
}

export function unknownConstraintTypeError(): InvalidArgumentError {
  return new InvalidArgumentError('unknown constraint type');
}

/**
 * Evaluates a rule's (or rollout's) segments and returns the keys of those that matched, or
 * undefined when the operator is not satisfied. Returns `allKeys` itself when every segment
 * matched and NO_SEGMENT_KEYS when none did, so the common cases allocate nothing.
 */
function matchedSegmentKeys(
  segments: readonly CompiledSegment[],
  allKeys: readonly string[],
  mode: OperatorMode,
  context: EvaluationContext,
  entityId: string,
): readonly string[] | undefined {
  let matched = 0;
  let partial: string[] | undefined;
  let i = 0;
  for (const segment of segments) {
    if (segmentMatches(segment, context, entityId)) {
      matched++;
      partial?.push(segment.key);
    } else {
      // AND cannot be satisfied any more; the answer no longer depends on the other segments.
      if (mode === OperatorMode.AND) return undefined;
      // First miss: everything before it matched.
      partial ??= allKeys.slice(0, i);
    }
    i++;
  }
  if (!operatorSatisfied(mode, matched, segments.length)) return undefined;
  if (matched === segments.length) return allKeys;
  if (matched === 0) return NO_SEGMENT_KEYS;
  return partial;
}

function variantResult(
  match: boolean,
  segmentKeys: readonly string[],
  reason: EvaluationReason,
  variantKey: string,
  variantAttachment: string,
  flagKey: string,
): VariantEvaluation {
  // One constructor so every result has the same property order (wire order) and object shape.
  return { match, segmentKeys, reason, variantKey, variantAttachment, flagKey };
}

function booleanResult(
  enabled: boolean,
  reason: EvaluationReason,
  segmentKeys: readonly string[],
  flagKey: string,
): BooleanEvaluation {
  return { enabled, reason, segmentKeys, flagKey };
}

// ---------------------------------------------------------------------------------------------
// Flag-level evaluation

/** Looks a flag up, failing like Flipt: NotFound `flag "<ns>/<key>" not found`. */
export function findFlag(snapshot: NamespaceSnapshot, flagKey: string): CompiledFlag {
  const flag = snapshot.flags.get(flagKey);
  if (flag === undefined) throw new NotFoundError(`flag "${snapshot.namespaceKey}/${flagKey}"`);
  return flag;
}

/** Variant evaluation of an already looked-up flag (§1.2); no type check. */
export function evaluateVariantFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): VariantEvaluation {
  const defaultVariant = flag.defaultVariant;
  const fallbackReason: EvaluationReason =
    defaultVariant === undefined ? 'UNKNOWN_EVALUATION_REASON' : 'DEFAULT_EVALUATION_REASON';
  const fallbackKey = defaultVariant === undefined ? '' : defaultVariant.key;
  const fallbackAttachment = defaultVariant === undefined ? '' : defaultVariant.attachment;

  if (!flag.enabled) {
    return variantResult(
      false,
      NO_SEGMENT_KEYS,
      'FLAG_DISABLED_EVALUATION_REASON',
      fallbackKey,
      fallbackAttachment,
      flag.key,
    );
  }

  for (const rule of flag.rules) {
    // Flipt evaluates every constraint of every segment of a rule it tries, so an unknown type
    // anywhere in the rule fails the evaluation whatever the other constraints say.
    if (rule.hasUnknownConstraintType) throw unknownConstraintTypeError();
    const segmentKeys = matchedSegmentKeys(rule.segments, rule.segmentKeys, rule.operatorMode, context, entityId);
    if (segmentKeys === undefined) continue;

    const distributions = rule.distributions;
    if (distributions.length === 0) {
      // Matched without a variant: MATCH, with the default variant's key (or "").
      return variantResult(true, segmentKeys, 'MATCH_EVALUATION_REASON', fallbackKey, fallbackAttachment, flag.key);
    }
    const bucket = variantBucket(flag.key, entityId);
    for (const d of distributions) {
      if (bucket < d.bucketEnd) {
        return variantResult(true, segmentKeys, 'MATCH_EVALUATION_REASON', d.variantKey, d.variantAttachment, flag.key);
      }
    }
    // A bucket no distribution covers: no match, and later rules are NOT tried (Flipt returns here).
    return variantResult(false, segmentKeys, fallbackReason, fallbackKey, fallbackAttachment, flag.key);
  }

  return variantResult(false, NO_SEGMENT_KEYS, fallbackReason, fallbackKey, fallbackAttachment, flag.key);
}

/** Boolean evaluation of an already looked-up flag (§1.5); no type check. */
export function evaluateBooleanFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): BooleanEvaluation {
  // `enabled` is not checked first: it is only the value returned when no rollout matches.
  let bucket = -1;
  for (const rollout of flag.rollouts) {
    if (rollout.kind === 'threshold') {
      if (bucket < 0) bucket = thresholdBucket(entityId, flag.key);
      // float32(bucket) < float32(percentage); the percentage was rounded to float32 at compile time.
      if (bucket < rollout.percentage) {
        return booleanResult(rollout.value, 'MATCH_EVALUATION_REASON', NO_SEGMENT_KEYS, flag.key);
      }
    } else if (rollout.kind === 'segment') {
      if (rollout.hasUnknownConstraintType) throw unknownConstraintTypeError();
      const segmentKeys = matchedSegmentKeys(
        rollout.segments,
        rollout.segmentKeys,
        rollout.operatorMode,
        context,
        entityId,
      );
      if (segmentKeys !== undefined) {
        return booleanResult(rollout.value, 'MATCH_EVALUATION_REASON', segmentKeys, flag.key);
      }
    }
  }
  return booleanResult(flag.enabled, 'DEFAULT_EVALUATION_REASON', NO_SEGMENT_KEYS, flag.key);
}

/**
 * Evaluates a variant flag. Throws NotFoundError (`flag "<ns>/<key>" not found`) for an unknown key,
 * InvalidArgumentError (`flag type BOOLEAN_FLAG_TYPE invalid`) for a boolean flag, and
 * InvalidArgumentError (`unknown constraint type`) when a tried rule has a constraint of unknown type.
 */
export function evaluateVariant(
  snapshot: NamespaceSnapshot,
  flagKey: string,
  entityId: string,
  context: EvaluationContext,
): VariantEvaluation {
  const flag = findFlag(snapshot, flagKey);
  if (flag.type !== 'VARIANT_FLAG_TYPE') throw new InvalidArgumentError(`flag type ${flag.type} invalid`);
  return evaluateVariantFlag(flag, entityId, context);
}

/**
 * Evaluates a boolean flag. Throws NotFoundError for an unknown key, InvalidArgumentError
 * (`flag type VARIANT_FLAG_TYPE invalid`) for a variant flag, and InvalidArgumentError
 * (`unknown constraint type`) when a tried segment rollout has a constraint of unknown type.
 */
export function evaluateBoolean(
  snapshot: NamespaceSnapshot,
  flagKey: string,
  entityId: string,
  context: EvaluationContext,
): BooleanEvaluation {
  const flag = findFlag(snapshot, flagKey);
  if (flag.type !== 'BOOLEAN_FLAG_TYPE') throw new InvalidArgumentError(`flag type ${flag.type} invalid`);
  return evaluateBooleanFlag(flag, entityId, context);
}

/**
 * One batch item: dispatches on the flag's type, so the wrong-type error cannot happen. A missing
 * flag — or a missing namespace, passed as `undefined` — is an ERROR item, not an exception. Other
 * errors (`unknown constraint type`, `unknown flag type: X`) throw: in Flipt they fail the whole batch.
 */
export function evaluateFlag(
  snapshot: NamespaceSnapshot | undefined,
  flagKey: string,
  entityId: string,
  context: EvaluationContext,
): FlagEvaluation {
  const flag = snapshot?.flags.get(flagKey);
  if (flag === undefined) {
    return {
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      errorResponse: { flagKey, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
    };
  }
  switch (flag.type) {
    case 'VARIANT_FLAG_TYPE':
      return {
        type: 'VARIANT_EVALUATION_RESPONSE_TYPE',
        variantResponse: evaluateVariantFlag(flag, entityId, context),
      };
    case 'BOOLEAN_FLAG_TYPE':
      return {
        type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
        booleanResponse: evaluateBooleanFlag(flag, entityId, context),
      };
    default:
      throw new InvalidArgumentError(`unknown flag type: ${String(flag.type)}`);
  }
}
