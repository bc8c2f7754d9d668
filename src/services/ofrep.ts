// OFREP's evaluations (behavior.md §6), for every transport: which entity a request is about (the
// context's targetingKey, or a random id as in Flipt), which flags a bulk request evaluates
// (`context.flags`, as an array or Flipt's comma-separated string, else every boolean flag and every
// enabled variant flag, in creation order), and the bulk answer's ETag. The transport reads the
// namespace from its own headers or metadata and writes each evaluated flag in its own encoding
// (`encode`), so no flag's result is kept longer than it takes to write it.
//
// Beyond Flipt: with a targetingKey, the bulk answer has an ETag computed from the namespace, its
// revision and the canonical request context, so a 304 is never stale. Without one the entity is
// random, and so may the answer be: no ETag.

import { randomUUID } from 'node:crypto';
import type {
  CompiledFlag,
  EntityEvaluator,
  EvaluationContext,
  FlagEvaluation,
  NamespaceSnapshot,
} from '../evaluation/index.js';
import type { EvaluationService } from './evaluation.js';
import { Fingerprint } from './fingerprint.js';

const TARGETING_KEY = 'targetingKey';
const FLAGS_KEY = 'flags';

/** An OFREP request's context as decoded from JSON (`flags` may be an array, interface.md). */
export type OfrepContext = Readonly<Record<string, string | null | readonly string[]>>;

/** A failure that knows which flag it is about (the `key` of OFREP's error body). */
export class FlagFailure extends Error {
  constructor(
    readonly key: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What a bulk request asks for, read from its context before the namespace's snapshot is at hand. */
export interface OfrepBulkQuery {
  /** The context constraints see: `flags` as Flipt's comma-separated string. */
  context: EvaluationContext;
  /** The flags named by `context.flags`, or undefined for the namespace's flags. */
  keys: string[] | undefined;
  /** context.targetingKey, when the request has one (the ETag needs it). */
  targetingKey: string | undefined;
  entityId: string;
}

export interface OfrepBulkAnswer<T> {
  flags: T[];
  /** The answer's ETag (only with a targetingKey). */
  etag: string | undefined;
}

/**
 * context.targetingKey when present (even ""; null reads as ""), else undefined: the entity is then a
 * random id (Flipt), so the same request may be answered differently each time.
 */
function targetingKeyOf(context: Readonly<Record<string, unknown>>): string | undefined {
  if (!Object.hasOwn(context, TARGETING_KEY)) return undefined;
  const key = context[TARGETING_KEY];
  return typeof key === 'string' ? key : '';
}

/**
 * The ETag of a bulk answer: a fingerprint of the namespace, its revision and the context in canonical
 * form (keys sorted, each followed by its value; the fingerprint keeps every part apart).
 */
export function bulkEtag(
  namespaceKey: string,
  revision: string,
  context: Readonly<Record<string, string | null>>,
  variant?: string,
): string {
  // A variant (event streams on, their ticket window) joins the revision: revision tags hold no '|'.
  const print = new Fingerprint().add(namespaceKey).add(variant === undefined ? revision : `${revision}|${variant}`);
  const keys = Object.keys(context);
  // Clients usually send the same keys in the same order; sort only when they are not in order.
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      keys.sort();
      break;
    }
  }
  for (const key of keys) print.add(key).add(context[key] ?? '');
  return `"${print.digest()}"`;
}

export class OfrepService {
  readonly #evaluation: EvaluationService;

  constructor(evaluation: EvaluationService) {
    this.#evaluation = evaluation;
  }

  /** The namespace's snapshot (EvaluationService.snapshot). */
  snapshot(namespaceKey: string): NamespaceSnapshot | Promise<NamespaceSnapshot> {
    return this.#evaluation.snapshot(namespaceKey);
  }

  /** The entity a request with this context is about: its targetingKey, else a random id. */
  entityOf(context: Readonly<Record<string, unknown>>): string {
    return targetingKeyOf(context) ?? randomUUID();
  }

  /** One flag (single-flag evaluation); a failure is a FlagFailure naming the flag. */
  evaluate<T>(
    snapshot: NamespaceSnapshot,
    key: string,
    entityId: string,
    context: EvaluationContext,
    encode: (item: FlagEvaluation) => T,
  ): T {
    try {
      return encode(this.#evaluation.flag(this.#evaluation.entityEvaluator(snapshot, entityId, context), key));
    } catch (err) {
      throw new FlagFailure(key, err);
    }
  }

  /** Reads a bulk request's context: the flags it names, its entity, the context constraints see. */
  bulkQuery(raw: OfrepContext): OfrepBulkQuery {
    let context = raw as Record<string, string | null>;
    let keys: string[] | undefined;
    if (Object.hasOwn(raw, FLAGS_KEY)) {
      const flags = raw[FLAGS_KEY];
      // The array form (interface.md) is evaluated exactly like Flipt's comma-separated string,
      // which stays in the context that constraints see.
      const list = Array.isArray(flags) ? flags : ((flags as string | null) ?? '').split(',');
      if (Array.isArray(flags)) context = { ...raw, [FLAGS_KEY]: flags.join(',') } as Record<string, string | null>;
      keys = [];
      for (const k of list) {
        const trimmed = (k as string).trim();
        if (trimmed !== '') keys.push(trimmed);
      }
    }
    const targetingKey = targetingKeyOf(context);
    return {
      context: context as EvaluationContext,
      keys,
      targetingKey,
      entityId: targetingKey ?? randomUUID(),
    };
  }

  /**
   * The bulk evaluation: the flags the query names, else every boolean flag and the enabled variant
   * flags in creation order (Flipt), each written by `encode`; a failure is a FlagFailure naming the
   * flag. The ETag comes only once every flag has been evaluated, so it never stands for an error.
   */
  bulk<T>(
    snapshot: NamespaceSnapshot,
    query: OfrepBulkQuery,
    encode: (item: FlagEvaluation) => T,
    etagVariant?: string,
  ): OfrepBulkAnswer<T> {
    // One evaluator for the whole request: each segment is evaluated once, not once per flag.
    const evaluator = this.#evaluation.entityEvaluator(snapshot, query.entityId, query.context);
    const flags: T[] = [];
    const keys = query.keys;
    // Indexed loops: for-of allocates an iterator per loop (evaluation/evaluate.ts).
    if (keys !== undefined) {
      for (let i = 0; i < keys.length; i++) flags.push(this.#bulkOne(evaluator, keys[i] as string, encode));
    } else {
      const flagList = snapshot.flagList;
      for (let i = 0; i < flagList.length; i++) {
        const flag = flagList[i] as CompiledFlag;
        if (flag.type === 'BOOLEAN_FLAG_TYPE' || flag.enabled)
          flags.push(this.#bulkOne(evaluator, flag.key, encode, flag));
      }
    }
    const etag =
      query.targetingKey === undefined
        ? undefined
        : bulkEtag(
            snapshot.namespaceKey,
            snapshot.revision,
            query.context as Readonly<Record<string, string | null>>,
            etagVariant,
          );
    return { flags, etag };
  }

  #bulkOne<T>(
    evaluator: EntityEvaluator,
    key: string,
    encode: (item: FlagEvaluation) => T,
    compiled?: CompiledFlag,
  ): T {
    try {
      return encode(this.#evaluation.flag(evaluator, key, compiled));
    } catch (err) {
      throw new FlagFailure(key, err);
    }
  }
}
