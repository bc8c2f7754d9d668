// The evaluation use cases behind /evaluate/v1, the legacy /api/v1/evaluate, and OFREP: resolve the
// namespace's compiled snapshot from the cache (synchronously when it is held — the hot path never
// touches the database), evaluate with the pure engine, and stamp Flipt's request id, end timestamp and
// duration (behavior.md §1.6). Results are plain objects in wire field order; no HTTP types here.

import { randomUUID } from 'node:crypto';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import {
  type BooleanEvaluation,
  type CompiledFlag,
  EntityEvaluator,
  type EvaluationContext,
  type EvaluationReason,
  evaluateBoolean,
  evaluateFlag,
  evaluateVariant,
  explainBoolean,
  explainVariant,
  type FlagEvaluation,
  type NamespaceSnapshot,
  type NamespaceSource,
  type VariantEvaluation,
} from '../evaluation/index.js';
import { evaluationErrorKind, type Metrics } from '../telemetry/metrics.js';
import type { Tracing } from '../telemetry/tracing.js';

/** An empty namespace key means the default namespace everywhere (§1.1). */
export const DEFAULT_NAMESPACE = 'default';

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

export interface EvaluationServiceOptions {
  /** Most items one batch may hold (evaluation.batch_limit); more is 400. */
  batchLimit: number;
  metrics?: Metrics;
  tracing?: Tracing;
}

/**
 * Whole milliseconds since `started` (performance.now()), rounded: what every answer reports as
 * requestDurationMillis, an integer in interface.md (the cached-text answers write the same, see
 * evaluation-json.ts millisText).
 */
export function millisSince(started: number): number {
  return Math.round(performance.now() - started);
}

// The timestamp is the same string for every request that ends within one millisecond: build it
// once per millisecond instead of once per request.
let stampMillis = -1;
let stampText = '';

/** The current time as RFC 3339 UTC, millisecond precision (protojson accepts 0/3/6/9 digits). */
export function currentTimestamp(): string {
  const now = Date.now();
  if (now !== stampMillis) {
    stampMillis = now;
    stampText = new Date(now).toISOString();
  }
  return stampText;
}

function orEmpty(value: string | null | undefined): string {
  return value ?? '';
}

function contextOf(input: EvaluationInput): EvaluationContext {
  // null values stay as they are: the engine reads a non-string value as "" (Flipt's null → "").
  return (input.context ?? EMPTY_CONTEXT) as EvaluationContext;
}

/** A context with null values turned into "", for echoing it back (legacy `requestContext`). */
function echoContext(context: InputContext | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (context) for (const key of Object.keys(context)) out[key] = context[key] ?? '';
  return out;
}

/** The explanation without its `result`: the response's own fields already carry it. */
function withoutResult<T extends { result: unknown }>(explanation: T): Omit<T, 'result'> {
  const { result: _result, ...rest } = explanation;
  return rest;
}

export class EvaluationService {
  readonly #snapshots: SnapshotCache;
  readonly #batchLimit: number;
  /** Undefined when metrics are off, so the hot path does not even build label objects. */
  readonly #metrics: Metrics | undefined;
  readonly #tracing: Tracing | undefined;
  readonly #counters = new WeakMap<object, { value: number }>();

  constructor(snapshots: SnapshotCache, options: EvaluationServiceOptions) {
    this.#snapshots = snapshots;
    this.#batchLimit = options.batchLimit;
    this.#metrics = options.metrics?.enabled ? options.metrics : undefined;
    this.#tracing = options.tracing?.enabled ? options.tracing : undefined;
  }

  get batchLimit(): number {
    return this.#batchLimit;
  }

  /**
   * The namespace's snapshot: the held one without waiting (the hot path), else a promise of it
   * loaded and compiled. A namespace that does not exist has an empty snapshot (revision '').
   */
  snapshot(namespaceKey: string): NamespaceSnapshot | Promise<NamespaceSnapshot> {
    return this.#snapshots.get(namespaceKey);
  }

  /** The namespace's snapshot as a promise: loads and compiles it unless it is held. */
  loadSnapshot(namespaceKey: string): Promise<NamespaceSnapshot> {
    return Promise.resolve(this.#snapshots.get(namespaceKey));
  }

  /** The snapshot held right now, or undefined (never loads). */
  heldSnapshot(namespaceKey: string): NamespaceSnapshot | undefined {
    return this.#snapshots.peek(namespaceKey);
  }

  /**
   * The namespace's uncompiled source (shared store, else the database): for the client-side
   * snapshot, which shows what compilation leaves out. Undefined when the namespace does not exist.
   */
  source(namespaceKey: string): Promise<NamespaceSource | undefined> {
    return this.#snapshots.source(namespaceKey);
  }

  /** The boolean result of one request (metrics and, when tracing, a span), without request fields. */
  booleanResult(snapshot: NamespaceSnapshot, input: EvaluationInput): BooleanEvaluation {
    return this.#typed(snapshot, input, 'boolean', evaluateBoolean);
  }

  /** The variant result of one request (metrics and, when tracing, a span), without request fields. */
  variantResult(snapshot: NamespaceSnapshot, input: EvaluationInput): VariantEvaluation {
    return this.#typed(snapshot, input, 'variant', evaluateVariant);
  }

  /** One typed evaluation; the evaluator is a module function, so no closure is made unless tracing. */
  #typed<T extends BooleanEvaluation | VariantEvaluation>(
    snapshot: NamespaceSnapshot,
    input: EvaluationInput,
    type: 'boolean' | 'variant',
    evaluate: (snapshot: NamespaceSnapshot, flagKey: string, entityId: string, context: EvaluationContext) => T,
  ): T {
    const flagKey = orEmpty(input.flagKey);
    const entityId = orEmpty(input.entityId);
    const context = contextOf(input);
    let result: T;
    try {
      result =
        this.#tracing === undefined
          ? evaluate(snapshot, flagKey, entityId, context)
          : this.#tracing.withEvaluationSpan({ namespace: snapshot.namespaceKey, flag: flagKey, type }, () =>
              evaluate(snapshot, flagKey, entityId, context),
            );
    } catch (err) {
      this.#metrics?.evaluationError(evaluationErrorKind(err));
      throw err;
    }
    if (this.#metrics !== undefined) this.#count(this.#metrics, snapshot, type, result);
    return result;
  }

  /**
   * POST /evaluate/v1/boolean?explain=true: the answer with its `explain` member, as an object (plain
   * answers are written from the result by api/http/evaluation-json.ts). `started` is
   * performance.now() at request start.
   */
  explainedBoolean(
    snapshot: NamespaceSnapshot,
    input: EvaluationInput,
    started: number,
    defaultRequestId?: string,
  ): BooleanEvaluationResponse {
    const result = this.booleanResult(snapshot, input);
    const response: BooleanEvaluationResponse = {
      enabled: result.enabled,
      reason: result.reason,
      requestId: input.requestId || defaultRequestId || randomUUID(),
      requestDurationMillis: 0,
      timestamp: '',
      flagKey: result.flagKey,
      segmentKeys: result.segmentKeys,
    };
    const flagKey = orEmpty(input.flagKey);
    response.explain = withoutResult(explainBoolean(snapshot, flagKey, orEmpty(input.entityId), contextOf(input)));
    response.requestDurationMillis = millisSince(started);
    response.timestamp = currentTimestamp();
    return response;
  }

  /** POST /evaluate/v1/variant?explain=true (see `explainedBoolean`). */
  explainedVariant(
    snapshot: NamespaceSnapshot,
    input: EvaluationInput,
    started: number,
    defaultRequestId?: string,
  ): VariantEvaluationResponse {
    const result = this.variantResult(snapshot, input);
    const response: VariantEvaluationResponse = {
      match: result.match,
      segmentKeys: result.segmentKeys,
      reason: result.reason,
      variantKey: result.variantKey,
      variantAttachment: result.variantAttachment,
      requestId: input.requestId || defaultRequestId || randomUUID(),
      requestDurationMillis: 0,
      timestamp: '',
      flagKey: result.flagKey,
    };
    const flagKey = orEmpty(input.flagKey);
    response.explain = withoutResult(explainVariant(snapshot, flagKey, orEmpty(input.entityId), contextOf(input)));
    response.requestDurationMillis = millisSince(started);
    response.timestamp = currentTimestamp();
    return response;
  }

  /**
   * POST /evaluate/v1/batch: one result per request item, in order, across namespaces. A missing
   * flag (or namespace) is an error item; any other error fails the batch.
   */
  batch(input: BatchEvaluationInput, defaultRequestId?: string): BatchEvaluation | Promise<BatchEvaluation> {
    const requests = input.requests ?? [];
    this.#checkBatchSize(requests.length);
    const requestId = input.requestId || defaultRequestId || randomUUID();
    const snapshots = this.#resolveAll(requests);
    if (snapshots instanceof Promise) {
      return snapshots.then((resolved) => ({ requestId, requests, items: this.#batchItems(requests, resolved) }));
    }
    return { requestId, requests, items: this.#batchItems(requests, snapshots) };
  }

  /**
   * One flag of either type (OFREP): the type decides the evaluator. Throws NotFoundError
   * (`flag "<ns>/<key>" not found`) for a missing flag.
   */
  flag(snapshot: NamespaceSnapshot, flagKey: string, entityId: string, context: EvaluationContext): FlagEvaluation {
    return this.#foundFlag(snapshot, flagKey, this.#evaluateItem(snapshot, flagKey, entityId, context, undefined));
  }

  /**
   * The evaluator of many flags for one entity (OFREP bulk): pass it to `entityFlag` for each flag, so
   * that each segment is evaluated once per request rather than once per flag.
   */
  entityEvaluator(snapshot: NamespaceSnapshot, entityId: string, context: EvaluationContext): EntityEvaluator {
    return new EntityEvaluator(snapshot, entityId, context);
  }

  /** `flag` for the evaluator's snapshot, entity and context, with the same metrics, span and errors. */
  entityFlag(evaluator: EntityEvaluator, flagKey: string): FlagEvaluation {
    const snapshot = evaluator.snapshot;
    return this.#foundFlag(
      snapshot,
      flagKey,
      this.#evaluateItem(snapshot, flagKey, evaluator.entityId, evaluator.context, evaluator),
    );
  }

  /**
   * `entityFlag` for a flag of the evaluator's snapshot (from its `flagList`): the same result, metrics
   * and span, without looking the flag up by key (OFREP bulk evaluates every flag this way).
   */
  entityCompiledFlag(evaluator: EntityEvaluator, flag: CompiledFlag): FlagEvaluation {
    return this.#evaluateItem(evaluator.snapshot, flag.key, evaluator.entityId, evaluator.context, evaluator, flag);
  }

  /** POST /api/v1/evaluate (legacy, variant flags only): validates flagKey and entityId first. */
  legacy(
    snapshot: NamespaceSnapshot,
    input: EvaluationInput,
    started: number,
    defaultRequestId?: string,
  ): LegacyEvaluationResponse {
    const flagKey = orEmpty(input.flagKey);
    const entityId = orEmpty(input.entityId);
    if (flagKey === '') throw new ValidationError('flagKey', 'must not be empty');
    if (entityId === '') throw new ValidationError('entityId', 'must not be empty');
    const result = this.variantResult(snapshot, input);
    const response = this.#legacyResponse(
      input,
      orEmpty(input.namespaceKey),
      result,
      input.requestId || defaultRequestId || randomUUID(),
    );
    response.requestDurationMillis = millisSince(started);
    response.timestamp = currentTimestamp();
    return response;
  }

  /**
   * POST /api/v1/batch-evaluate (legacy): one namespace for all items (an item may only repeat it), a
   * missing flag fails the batch unless `excludeNotFound`, items carry no request id or duration.
   */
  legacyBatch(
    snapshot: NamespaceSnapshot,
    input: LegacyBatchEvaluationInput,
    started: number,
    defaultRequestId?: string,
  ): LegacyBatchEvaluationResponse {
    const namespaceKey = snapshot.namespaceKey;
    const requests = input.requests ?? [];
    this.#checkBatchSize(requests.length);
    const responses: LegacyEvaluationResponse[] = [];
    for (const item of requests) {
      const itemNamespace = orEmpty(item.namespaceKey);
      if (itemNamespace !== '' && itemNamespace !== namespaceKey) {
        throw new ValidationError('namespace_key', 'must be the same for all requests if specified');
      }
      const flagKey = orEmpty(item.flagKey);
      if (input.excludeNotFound && !snapshot.flags.has(flagKey)) continue;
      const result = this.variantResult(snapshot, item);
      responses.push(this.#legacyResponse(item, namespaceKey, result, ''));
    }
    const timestamp = currentTimestamp();
    for (const r of responses) r.timestamp = timestamp;
    return {
      requestId: input.requestId || defaultRequestId || randomUUID(),
      responses,
      requestDurationMillis: millisSince(started),
    };
  }

  // -------------------------------------------------------------------------------------------

  #checkBatchSize(count: number): void {
    if (count > this.#batchLimit) {
      throw new ValidationError('requests', `must contain at most ${this.#batchLimit} items (got ${count})`);
    }
  }

  /** Each item's snapshot, without waiting when every namespace is held. */
  #resolveAll(requests: readonly EvaluationInput[]): NamespaceSnapshot[] | Promise<NamespaceSnapshot[]> {
    const snapshots = new Array<NamespaceSnapshot>(requests.length);
    let missing: Set<string> | undefined;
    let lastKey: string | undefined;
    let last: NamespaceSnapshot | undefined;
    for (let i = 0; i < requests.length; i++) {
      const key = requests[i]?.namespaceKey || DEFAULT_NAMESPACE;
      if (key !== lastKey) {
        lastKey = key;
        last = this.#snapshots.peek(key);
      }
      if (last !== undefined) snapshots[i] = last;
      else {
        missing ??= new Set();
        missing.add(key);
      }
    }
    if (missing === undefined) return snapshots;
    const keys = [...missing];
    return Promise.all(keys.map((key) => this.#snapshots.get(key))).then((loaded) => {
      const byKey = new Map(keys.map((key, i) => [key, loaded[i] as NamespaceSnapshot]));
      for (let i = 0; i < requests.length; i++) {
        if (snapshots[i] === undefined) {
          snapshots[i] = byKey.get(requests[i]?.namespaceKey || DEFAULT_NAMESPACE) as NamespaceSnapshot;
        }
      }
      return snapshots;
    });
  }

  /**
   * A found flag's item; a missing flag throws NotFoundError (`flag`). #evaluateItem has already
   * counted it as a flag_not_found error, once.
   */
  #foundFlag(snapshot: NamespaceSnapshot, flagKey: string, item: FlagEvaluation): FlagEvaluation {
    if (item.type === 'ERROR_EVALUATION_RESPONSE_TYPE') {
      throw new NotFoundError(`flag "${snapshot.namespaceKey}/${flagKey}"`);
    }
    return item;
  }

  #batchItems(requests: readonly EvaluationInput[], snapshots: readonly NamespaceSnapshot[]): FlagEvaluation[] {
    const count = requests.length;
    const items = new Array<FlagEvaluation>(count);
    // Items usually share one entity and context: an item reuses the previous item's evaluator when
    // it would answer the same (EntityEvaluator.serves), so each segment is evaluated once per run of
    // such items rather than once per flag.
    let evaluator: EntityEvaluator | undefined;
    for (let i = 0; i < count; i++) {
      const request = requests[i] as EvaluationInput;
      const snapshot = snapshots[i] as NamespaceSnapshot;
      const entityId = orEmpty(request.entityId);
      const context = contextOf(request);
      if (evaluator === undefined || !evaluator.serves(snapshot, entityId, context)) {
        evaluator = new EntityEvaluator(snapshot, entityId, context);
      }
      items[i] = this.#evaluateItem(snapshot, orEmpty(request.flagKey), entityId, context, evaluator);
    }
    return items;
  }

  /**
   * One flag of either type; a missing flag is an ERROR item. Records metrics (and a span when tracing).
   * With an evaluator (which must serve snapshot, entityId and context), evaluates through it, and
   * with `compiled` (the snapshot's flag of that key) without looking the flag up.
   */
  #evaluateItem(
    snapshot: NamespaceSnapshot,
    flagKey: string,
    entityId: string,
    context: EvaluationContext,
    evaluator: EntityEvaluator | undefined,
    compiled?: CompiledFlag,
  ): FlagEvaluation {
    const tracing = this.#tracing;
    let item: FlagEvaluation;
    try {
      if (evaluator === undefined) {
        item =
          tracing === undefined
            ? evaluateFlag(snapshot, flagKey, entityId, context)
            : tracing.withEvaluationSpan({ namespace: snapshot.namespaceKey, flag: flagKey }, () =>
                evaluateFlag(snapshot, flagKey, entityId, context),
              );
      } else if (tracing === undefined) {
        item = compiled === undefined ? evaluator.flag(flagKey) : evaluator.compiledFlag(compiled);
      } else {
        item = tracing.withEvaluationSpan({ namespace: snapshot.namespaceKey, flag: flagKey }, () =>
          compiled === undefined ? evaluator.flag(flagKey) : evaluator.compiledFlag(compiled),
        );
      }
    } catch (err) {
      this.#metrics?.evaluationError(evaluationErrorKind(err));
      throw err;
    }
    const metrics = this.#metrics;
    if (metrics !== undefined) {
      if (item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE')
        this.#count(metrics, snapshot, 'boolean', item.booleanResponse);
      else if (item.type === 'VARIANT_EVALUATION_RESPONSE_TYPE')
        this.#count(metrics, snapshot, 'variant', item.variantResponse);
      else metrics.evaluationError('flag_not_found');
    }
    return item;
  }

  /**
   * Counts one evaluation. The engine shares result objects between evaluations with the same
   * outcome, so each result's counter is found once and kept with it (gone with its snapshot).
   */
  #count(
    metrics: Metrics,
    snapshot: NamespaceSnapshot,
    type: 'boolean' | 'variant',
    result: BooleanEvaluation | VariantEvaluation,
  ): void {
    let counter = this.#counters.get(result);
    if (counter === undefined) {
      counter = metrics.evaluationCounter({
        namespace: snapshot.namespaceKey,
        flag: result.flagKey,
        type,
        reason: result.reason,
        match: 'match' in result ? result.match : result.reason === 'MATCH_EVALUATION_REASON',
      });
      if (counter === undefined) return;
      this.#counters.set(result, counter);
    }
    counter.value += 1;
  }

  #legacyResponse(
    input: EvaluationInput,
    namespaceKey: string,
    result: VariantEvaluation,
    requestId: string,
  ): LegacyEvaluationResponse {
    return {
      requestId,
      entityId: orEmpty(input.entityId),
      requestContext: echoContext(input.context),
      match: result.match,
      flagKey: orEmpty(input.flagKey),
      segmentKey: result.segmentKeys[0] ?? '',
      timestamp: '',
      value: result.variantKey,
      requestDurationMillis: 0,
      attachment: result.variantAttachment,
      reason: result.reason,
      namespaceKey,
      segmentKeys: result.segmentKeys,
    };
  }
}
