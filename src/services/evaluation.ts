// The evaluation service: one way to get a namespace's compiled snapshot (from the cache, without
// waiting when it is held — the hot path never touches the database) and the evaluations every API
// shares, recorded in metrics and traces: typed single-flag results, batches across namespaces, and one
// flag of either type for an entity (OFREP and the like). Stamping answers is the callers' (Flipt's
// request id, end timestamp and duration, behavior.md §1.6); explain, legacy and OFREP use cases are
// modules of their own over this one. No HTTP types here.

import { randomUUID } from 'node:crypto';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import { flagNotFound, ValidationError } from '../domain/errors.js';
import { namespaceKeyOrDefault } from '../domain/namespace-key.js';
import {
  type BooleanEvaluation,
  type CompiledFlag,
  EntityEvaluator,
  type EvaluationContext,
  evaluateBoolean,
  evaluateFlag,
  evaluateVariant,
  type FlagEvaluation,
  type NamespaceSnapshot,
  type NamespaceSource,
  type VariantEvaluation,
} from '../evaluation/index.js';
import { evaluationErrorKind, type Metrics } from '../telemetry/metrics.js';
import type { Tracing } from '../telemetry/tracing.js';
import {
  type BatchEvaluation,
  type BatchEvaluationInput,
  contextOf,
  type EvaluationInput,
  orEmpty,
} from './evaluation-types.js';

export interface EvaluationServiceOptions {
  /** Most items one batch may hold (evaluation.batch_limit); more is 400. */
  batchLimit: number;
  metrics?: Metrics;
  tracing?: Tracing;
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
   * POST /evaluate/v1/batch: one result per request item, in order, across namespaces. A missing
   * flag (or namespace) is an error item; any other error fails the batch.
   */
  batch(input: BatchEvaluationInput, defaultRequestId?: string): BatchEvaluation | Promise<BatchEvaluation> {
    const requests = input.requests ?? [];
    this.checkBatchSize(requests.length);
    const requestId = input.requestId || defaultRequestId || randomUUID();
    const snapshots = this.#resolveAll(requests);
    if (snapshots instanceof Promise) {
      return snapshots.then((resolved) => ({ requestId, requests, items: this.#batchItems(requests, resolved) }));
    }
    return { requestId, requests, items: this.#batchItems(requests, snapshots) };
  }

  /**
   * The evaluator of flags for one entity: pass it to `flag` for each flag of a request, so that each
   * segment is evaluated once per request rather than once per flag.
   */
  entityEvaluator(snapshot: NamespaceSnapshot, entityId: string, context: EvaluationContext): EntityEvaluator {
    return new EntityEvaluator(snapshot, entityId, context);
  }

  /**
   * One flag of either type for the evaluator's snapshot, entity and context: the flag's type decides
   * the evaluator. `compiled`, the snapshot's flag of that key when the caller has it (its `flagList`),
   * saves the lookup by key. Throws NotFoundError (`flag "<ns>/<key>" not found`) for a missing flag.
   */
  flag(evaluator: EntityEvaluator, flagKey: string, compiled?: CompiledFlag): FlagEvaluation {
    const snapshot = evaluator.snapshot;
    const item = this.#evaluateItem(snapshot, flagKey, evaluator.entityId, evaluator.context, evaluator, compiled);
    return compiled === undefined ? this.#foundFlag(snapshot, flagKey, item) : item;
  }

  // -------------------------------------------------------------------------------------------

  /** Refuses a batch of more than `batchLimit` items (400), as every batch API does. */
  checkBatchSize(count: number): void {
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
      const key = namespaceKeyOrDefault(requests[i]?.namespaceKey);
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
          snapshots[i] = byKey.get(namespaceKeyOrDefault(requests[i]?.namespaceKey)) as NamespaceSnapshot;
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
      throw flagNotFound(snapshot.namespaceKey, flagKey);
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
}
