// Flag evaluation: a pure function of (snapshot, flag key, entity id, context) with Flipt v1's exact
// results (behavior.md §1.2 variant, §1.4 segments, §1.5 boolean). The hot path parses nothing but
// context values and allocates nothing but partial-match results: every other outcome returns a
// frozen result built once by the snapshot's compilation (shared-results.ts).
//
// Results are frozen and shared between evaluations, and the HTTP layer may cache their serialized
// JSON by object identity: never mutate a result.
//
// Loops over the snapshot's arrays are indexed on purpose: for-of over a frozen array allocates an
// iterator and its result objects on every loop in Node 20 (bench/engine.ts shows the bytes).
//
// Requests that evaluate many flags for one entity (OFREP bulk, batches) use an EntityEvaluator (at the
// end of this module), which evaluates each segment at most once; its answers are evaluateFlag's.
//
// Segment matching, flag evaluation and the EntityEvaluator stay in this one module on purpose: V8
// optimizes calls between functions of one module better than calls through imports, and split over
// three modules the many-flag path ran measurably slower (docs/performance.md, techniques).

import { flagNotFound, InvalidArgumentError } from '../domain/errors.js';
import { type CompiledConstraint, ConstraintKind } from './compile-constraint.js';
import { constraintOutcome, contextValue, Outcome } from './constraints.js';
import { thresholdBucket, variantBucketFrom } from './hashing.js';
import {
  type BooleanEvaluation,
  type BooleanOutcome,
  booleanOutcome,
  type FlagEvaluation,
  NO_SEGMENT_KEYS,
  type VariantEvaluation,
  type VariantOutcome,
  variantOutcome,
} from './results.js';
import {
  booleanDefaultResult,
  ruleNoSegmentResult,
  ruleResult,
  variantDefaultResult,
  variantDisabledResult,
} from './shared-results.js';
import {
  type CompiledDistribution,
  type CompiledFlag,
  type CompiledRollout,
  type CompiledRule,
  type CompiledSegment,
  MatchMode,
  type NamespaceSnapshot,
  OperatorMode,
  type SegmentMemo,
} from './snapshot.js';

// --- Segment matching: the primitives both evaluation paths share (this module and explain.ts) ---

/** An evaluation context: property name → string value (Flipt accepts only string values). */
export type EvaluationContext = Readonly<Record<string, string>>;

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
  const count = constraints.length;
  switch (segment.matchMode) {
    case MatchMode.ALL:
      for (let i = 0; i < count; i++) {
        const c = constraints[i] as CompiledConstraint;
        if (constraintOutcome(c, comparedValue(c, context, entityId), entityId) !== Outcome.MATCH) return false;
      }
      return true;
    case MatchMode.ANY:
      if (count === 0) return true;
      for (let i = 0; i < count; i++) {
        const c = constraints[i] as CompiledConstraint;
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
 * segmentMatches through an EntityEvaluator's memory (below): the slot holds +generation
 * when the segment matched for that evaluator, -generation when it did not, anything else when that
 * evaluator has not evaluated it yet.
 */
function rememberedMatch(
  segment: CompiledSegment,
  context: EvaluationContext,
  entityId: string,
  slots: Int32Array,
  generation: number,
): boolean {
  const slot = slots[segment.ordinal];
  if (slot === generation) return true;
  if (slot === -generation) return false;
  const matches = segmentMatches(segment, context, entityId);
  slots[segment.ordinal] = matches ? generation : -generation;
  return matches;
}

/**
 * Evaluates a rule's (or rollout's) segments and returns the keys of those that matched, or
 * undefined when the operator is not satisfied. Returns `allKeys` itself when every segment
 * matched and NO_SEGMENT_KEYS when none did, which is how callers find the shared result; only a
 * partial match allocates (a frozen list). `slots` is an EntityEvaluator's memory (with its
 * generation), undefined for a single evaluation.
 */
function matchedSegmentKeys(
  segments: readonly CompiledSegment[],
  allKeys: readonly string[],
  mode: OperatorMode,
  context: EvaluationContext,
  entityId: string,
  slots: Int32Array | undefined,
  generation: number,
): readonly string[] | undefined {
  const count = segments.length;
  let matched = 0;
  // Built only once a segment matches after a miss, so an unsatisfied OR allocates nothing.
  let firstMiss = -1;
  let partial: string[] | undefined;
  for (let i = 0; i < count; i++) {
    const segment = segments[i] as CompiledSegment;
    const matches =
      slots === undefined
        ? segmentMatches(segment, context, entityId)
        : rememberedMatch(segment, context, entityId, slots, generation);
    if (matches) {
      matched++;
      if (firstMiss >= 0) {
        // Everything before the first miss matched.
        partial ??= allKeys.slice(0, firstMiss);
        partial.push(segment.key);
      }
    } else {
      // AND cannot be satisfied any more; the answer no longer depends on the other segments.
      if (mode === OperatorMode.AND) return undefined;
      if (firstMiss < 0) firstMiss = i;
    }
  }
  if (!operatorSatisfied(mode, matched, count)) return undefined;
  if (matched === count) return allKeys;
  if (matched === 0) return NO_SEGMENT_KEYS;
  return Object.freeze(partial ?? allKeys.slice(0, firstMiss));
}

/** The result of a satisfied rule: shared unless only some of its segments matched. */
function ruleOutcome(
  flag: CompiledFlag,
  rule: CompiledRule,
  segmentKeys: readonly string[],
  index: number,
): VariantOutcome {
  const shared = ruleResult(flag, rule, index);
  if (segmentKeys === rule.segmentKeys) return shared;
  if (segmentKeys === NO_SEGMENT_KEYS) {
    const none = ruleNoSegmentResult(flag, rule, index);
    if (none !== undefined) return none;
  }
  const r = shared.variantResponse;
  return variantOutcome(r.match, segmentKeys, r.reason, r.variantKey, r.variantAttachment, r.flagKey);
}

// ---------------------------------------------------------------------------------------------
// Flag-level evaluation

/** Looks a flag up, failing like Flipt: NotFound `flag "<ns>/<key>" not found`. */
export function findFlag(snapshot: NamespaceSnapshot, flagKey: string): CompiledFlag {
  const flag = snapshot.flags.get(flagKey);
  if (flag === undefined) throw flagNotFound(snapshot.namespaceKey, flagKey);
  return flag;
}

/** Variant evaluation (§1.2) as a batch item; no type check. `slots`: see matchedSegmentKeys. */
function variantItem(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
  slots: Int32Array | undefined,
  generation: number,
): VariantOutcome {
  if (!flag.enabled) return variantDisabledResult(flag);
  const rules = flag.rules;
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r] as CompiledRule;
    // Flipt evaluates every constraint of every segment of a rule it tries, so an unknown type
    // anywhere in the rule fails the evaluation whatever the other constraints say.
    if (rule.hasUnknownConstraintType) throw unknownConstraintTypeError();
    const segmentKeys = matchedSegmentKeys(
      rule.segments,
      rule.segmentKeys,
      rule.operatorMode,
      context,
      entityId,
      slots,
      generation,
    );
    if (segmentKeys === undefined) continue;

    // Without distributions, index 0 (= length) is the MATCH without a variant (default variant's
    // key, or ""). With them, the first distribution whose range holds the bucket; none is a bucket
    // gap (index = length): no match, and later rules are NOT tried (Flipt returns here).
    const distributions = rule.distributions;
    const count = distributions.length;
    let index = count;
    if (count > 0) {
      const bucket = variantBucketFrom(flag.keyCrc, entityId);
      for (let i = 0; i < count; i++) {
        if (bucket < (distributions[i] as CompiledDistribution).bucketEnd) {
          index = i;
          break;
        }
      }
    }
    return ruleOutcome(flag, rule, segmentKeys, index);
  }
  return variantDefaultResult(flag);
}

/** Boolean evaluation (§1.5) as a batch item; no type check. `slots`: see matchedSegmentKeys. */
function booleanItem(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
  slots: Int32Array | undefined,
  generation: number,
): BooleanOutcome {
  // `enabled` is not checked first: it is only the value returned when no rollout matches.
  const rollouts = flag.rollouts;
  let bucket = -1;
  for (let i = 0; i < rollouts.length; i++) {
    const rollout = rollouts[i] as CompiledRollout;
    if (rollout.kind === 'threshold') {
      if (bucket < 0) bucket = thresholdBucket(entityId, flag.key);
      // float32(bucket) < float32(percentage); the percentage was rounded to float32 at compile time.
      if (bucket < rollout.percentage) return rollout.outcome;
    } else if (rollout.kind === 'segment') {
      if (rollout.hasUnknownConstraintType) throw unknownConstraintTypeError();
      const segmentKeys = matchedSegmentKeys(
        rollout.segments,
        rollout.segmentKeys,
        rollout.operatorMode,
        context,
        entityId,
        slots,
        generation,
      );
      if (segmentKeys === undefined) continue;
      if (segmentKeys === rollout.segmentKeys) return rollout.outcome;
      if (segmentKeys === NO_SEGMENT_KEYS && rollout.noSegmentOutcome !== undefined) return rollout.noSegmentOutcome;
      return booleanOutcome(rollout.value, 'MATCH_EVALUATION_REASON', segmentKeys, flag.key);
    }
  }
  return booleanDefaultResult(flag);
}

/** Variant evaluation of an already looked-up flag (§1.2); no type check. The result may be shared. */
export function evaluateVariantFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): VariantEvaluation {
  return variantItem(flag, entityId, context, undefined, 0).variantResponse;
}

/** Boolean evaluation of an already looked-up flag (§1.5); no type check. The result may be shared. */
export function evaluateBooleanFlag(
  flag: CompiledFlag,
  entityId: string,
  context: EvaluationContext,
): BooleanEvaluation {
  return booleanItem(flag, entityId, context, undefined, 0).booleanResponse;
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
  return flagItem(snapshot?.flags.get(flagKey), flagKey, entityId, context, undefined, 0);
}

/** evaluateFlag once the flag is looked up; `slots`: see matchedSegmentKeys. */
export function flagItem(
  flag: CompiledFlag | undefined,
  flagKey: string,
  entityId: string,
  context: EvaluationContext,
  slots: Int32Array | undefined,
  generation: number,
): FlagEvaluation {
  if (flag === undefined) {
    return {
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      errorResponse: { flagKey, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
    };
  }
  // The items of evaluated flags are frozen and may be shared, like the results they carry.
  switch (flag.type) {
    case 'VARIANT_FLAG_TYPE':
      return variantItem(flag, entityId, context, slots, generation);
    case 'BOOLEAN_FLAG_TYPE':
      return booleanItem(flag, entityId, context, slots, generation);
    default:
      throw new InvalidArgumentError(`unknown flag type: ${String(flag.type)}`);
  }
}

// --- EntityEvaluator ---

/**
 * The last generation a snapshot hands out before starting again at 1 (slots hold ±generation, and
 * -(2^31 - 1) still fits an Int32Array).
 */
const LAST_GENERATION = 0x7fff_ffff;

/** A generation no other evaluator on this snapshot holds (see EntityEvaluator). */
function nextGeneration(memo: SegmentMemo): number {
  if (memo.generation >= LAST_GENERATION) {
    // Old slots could hold the generations handed out again from now on: forget them all.
    memo.slots.fill(0);
    memo.generation = 0;
  }
  memo.generation += 1;
  return memo.generation;
}

/** What contextValue reads for `key` from a context that has it as an own property. */
function readAs(context: EvaluationContext, key: string): string {
  const v = context[key];
  return typeof v === 'string' ? v : '';
}

/**
 * Evaluates flags of one snapshot for one entity (id and context), evaluating each segment at most
 * once however many flags use it: for requests that evaluate many flags for one entity (OFREP bulk, a
 * batch). `flag(key)` returns exactly what `evaluateFlag(snapshot, key, entityId, context)` returns: the
 * same shared frozen objects, the same errors.
 *
 * What it remembers lives in the snapshot's SegmentMemo, one slot per segment, so that creating an
 * evaluator allocates nothing proportional to the namespace. Each evaluator takes a generation no other
 * evaluator of the snapshot holds and writes +generation (matched) or -generation (did not) into the
 * slot of each segment it evaluates; any other value means "not evaluated by me". Evaluators on the
 * same snapshot may therefore interleave freely: one that finds another's value in a slot evaluates the
 * segment again and overwrites it. A snapshot hands out 2^31 - 1 generations before it clears its slots
 * and starts again at 1, so an evaluator must not be kept that long (evaluators live for one request).
 *
 * Sharing the slots between evaluators is safe because JavaScript is single-threaded: between reading
 * a slot and writing it back, segment evaluation runs synchronously (no await, no callback), so no
 * other evaluator runs in between; and a snapshot never crosses threads (its Int32Array is an ordinary
 * buffer, copied if ever posted to a worker, never a SharedArrayBuffer).
 *
 * The context is read when a segment is first evaluated: it must not change while the evaluator is
 * in use.
 */
export class EntityEvaluator {
  readonly snapshot: NamespaceSnapshot;
  readonly entityId: string;
  readonly context: EvaluationContext;
  readonly #slots: Int32Array;
  readonly #generation: number;
  /** The context's own keys and what the engine reads for each, once `serves` compares another context. */
  #keys: readonly string[] | undefined;
  #readings: readonly string[] | undefined;

  constructor(snapshot: NamespaceSnapshot, entityId: string, context: EvaluationContext) {
    this.snapshot = snapshot;
    this.entityId = entityId;
    this.context = context;
    this.#slots = snapshot.segmentMemo.slots;
    this.#generation = nextGeneration(snapshot.segmentMemo);
  }

  /** evaluateFlag(snapshot, flagKey, entityId, context), each segment evaluated at most once. */
  flag(flagKey: string): FlagEvaluation {
    return flagItem(
      this.snapshot.flags.get(flagKey),
      flagKey,
      this.entityId,
      this.context,
      this.#slots,
      this.#generation,
    );
  }

  /** `flag(flag.key)` for a flag of this evaluator's snapshot already at hand: no lookup by key. */
  compiledFlag(flag: CompiledFlag): FlagEvaluation {
    return flagItem(flag, flag.key, this.entityId, this.context, this.#slots, this.#generation);
  }

  /**
   * Whether this evaluator answers for (snapshot, entityId, context) exactly as a new one would: the
   * same snapshot and entity id, and the same context object or one with the same keys whose values
   * the engine reads the same.
   */
  serves(snapshot: NamespaceSnapshot, entityId: string, context: EvaluationContext): boolean {
    return (
      snapshot === this.snapshot && entityId === this.entityId && (context === this.context || this.#readsSame(context))
    );
  }

  /**
   * Whether `other` has the same own keys as this evaluator's context, and the engine reads the same
   * value for each (a non-string, i.e. JSON null, reads as "", exactly as contextValue reads it): then
   * contextValue reads the same from both for every property. Batch items usually carry contexts
   * parsed from the same JSON text, with their keys in the same order: keys are compared in order,
   * and only another order costs a lookup by key.
   */
  #readsSame(other: EvaluationContext): boolean {
    let keys = this.#keys;
    let readings = this.#readings;
    if (keys === undefined || readings === undefined) {
      const context = this.context;
      keys = Object.getOwnPropertyNames(context);
      readings = keys.map((key) => readAs(context, key));
      this.#keys = keys;
      this.#readings = readings;
    }
    // Own property names, enumerable or not: every property contextValue can read.
    const otherKeys = Object.getOwnPropertyNames(other);
    const count = keys.length;
    if (otherKeys.length !== count) return false;
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string;
      // As many names on each side: all of ours among the other's means the same names.
      if (otherKeys[i] !== key && !Object.hasOwn(other, key)) return false;
      if (readAs(other, key) !== readings[i]) return false;
    }
    return true;
  }
}
