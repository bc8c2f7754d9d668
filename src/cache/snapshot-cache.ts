// Compiled namespace snapshots held in memory, so evaluations read no database at steady state.
// A snapshot is dropped the moment this instance writes to its namespace (ChangeFeed), and when the
// poller sees that another instance changed the namespace's revision. A load that races a write
// never installs stale data: each namespace has a generation, bumped on every invalidation, and a
// load only installs its result if the generation is unchanged.
// A dropped snapshot is kept aside as the namespace's last good one until its replacement has loaded:
// when the reload fails (the database is restarting), evaluations go on from it, marked stale, and
// the namespace is reloaded in the background with backoff until the database answers again.

import { compileSnapshotSteps } from '../evaluation/compile-snapshot.js';
import type { NamespaceSnapshot } from '../evaluation/snapshot.js';
import type { NamespaceSource } from '../evaluation/source.js';
import { inTurns } from '../runtime/in-turns.js';

export interface SnapshotLoader {
  /** The namespace's source, or undefined when it does not exist. */
  load(namespaceKey: string): Promise<NamespaceSource | undefined>;
  /** Every namespace's current revision tag. */
  revisions(): Promise<Map<string, string>>;
}

/** A second tier for sources (Redis): consulted before the database, filled after a database load. */
export interface SharedSourceStore {
  get(namespaceKey: string, revision: string): Promise<NamespaceSource | undefined>;
  set(source: NamespaceSource): Promise<void>;
}

export interface SnapshotCacheEvents {
  hit?(namespaceKey: string): void;
  miss?(namespaceKey: string): void;
  invalidated?(namespaceKey: string, why: 'write' | 'poll' | 'broadcast' | 'evict'): void;
  /** A snapshot was loaded and compiled in `millis` (both); `exists` is false for an unknown namespace. */
  compiled?(namespaceKey: string, millis: number, exists: boolean): void;
  /** A load failed and nothing could be served instead: the caller gets the error. */
  loadFailed?(namespaceKey: string, err: unknown): void;
  /** A reload failed and the namespace's last good snapshot is served instead (once per stale stretch). */
  stale?(namespaceKey: string, err: unknown): void;
  /** Every failed reload attempt that fell back to the last good snapshot, retries included. */
  staleLoad?(namespaceKey: string): void;
  /** The namespace is no longer served stale: a reload succeeded, or its snapshot was dropped. */
  fresh?(namespaceKey: string): void;
}

interface Entry {
  snapshot: NamespaceSnapshot;
  /** When the snapshot was loaded, or when a sweep (evictIdle) last found it used. */
  lastUsed: number;
  /**
   * Read since the last sweep. Evaluations only set this flag, so the hot path reads no clock; idle
   * time is measured in sweeps (cache.memory.eviction_interval), far finer than the ttl.
   */
  used: boolean;
  /** The last good snapshot, held because reloading the namespace failed; a retry is scheduled. */
  stale: boolean;
}

/** A namespace's last good snapshot, kept while its replacement loads. */
interface Fallback {
  snapshot: NamespaceSnapshot;
  since: number;
}

/** Background reloads of stale namespaces back off from the first delay to the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

/** Counters for tests, benchmarks and metrics: how often the cache had to go to the loader. */
export interface SnapshotCacheStats {
  /** Snapshot loads started (each reads the namespace's source from the shared store or the database). */
  loads: number;
  /** Snapshots compiled. */
  compiles: number;
}

export interface SnapshotCacheOptions {
  /**
   * Most snapshots of namespaces that do not exist to hold at once. Requests may name any namespace;
   * holding their (empty) snapshots spares the database, but must not let a client grow memory
   * without bound. The oldest is dropped first.
   */
  maxMissingNamespaces?: number;
}

const DEFAULT_MAX_MISSING = 1024;

/** The snapshot of a namespace that does not exist: every flag lookup in it is "not found". */
function emptySource(namespaceKey: string): NamespaceSource {
  return { namespaceKey, revision: '', flags: [], segments: [] };
}

export class SnapshotCache {
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<NamespaceSnapshot>>();
  readonly #generation = new Map<string, number>();
  /** Held snapshots of namespaces that do not exist, oldest first. */
  readonly #missing = new Set<string>();
  readonly #maxMissing: number;
  readonly #fallbacks = new Map<string, Fallback>();
  /** Namespaces served stale (their last reload failed), with their pending background reload. */
  readonly #retries = new Map<string, { timer: NodeJS.Timeout | undefined; attempt: number }>();
  #shared: SharedSourceStore | undefined;
  readonly #revisionReaders = new Set<(revisions: ReadonlyMap<string, string>) => void>();
  readonly stats: SnapshotCacheStats = { loads: 0, compiles: 0 };

  constructor(
    private readonly loader: SnapshotLoader,
    private readonly events: SnapshotCacheEvents = {},
    options: SnapshotCacheOptions = {},
  ) {
    this.#maxMissing = Math.max(0, options.maxMissingNamespaces ?? DEFAULT_MAX_MISSING);
  }

  /** Puts a shared tier (Redis) between this cache and the database. */
  useSharedStore(store: SharedSourceStore | undefined): void {
    this.#shared = store;
  }

  /** The held snapshot, without waiting: the evaluation hot path. */
  peek(namespaceKey: string): NamespaceSnapshot | undefined {
    const entry = this.#entries.get(namespaceKey);
    if (entry === undefined) return undefined;
    entry.used = true;
    this.events.hit?.(namespaceKey);
    return entry.snapshot;
  }

  /** The namespace's snapshot, loading and compiling it when it is not held. */
  get(namespaceKey: string): NamespaceSnapshot | Promise<NamespaceSnapshot> {
    return this.peek(namespaceKey) ?? this.#load(namespaceKey);
  }

  /**
   * Drops the namespace's snapshot; the next evaluation loads it again. Unless it is evicted for
   * idleness, the snapshot stays aside as the fallback should that load fail.
   */
  invalidate(namespaceKey: string, why: 'write' | 'poll' | 'broadcast' | 'evict' = 'write'): void {
    this.#generation.set(namespaceKey, (this.#generation.get(namespaceKey) ?? 0) + 1);
    this.#loading.delete(namespaceKey);
    this.#missing.delete(namespaceKey);
    const entry = this.#entries.get(namespaceKey);
    if (why === 'evict') this.#forget(namespaceKey);
    else if (entry !== undefined) this.#fallbacks.set(namespaceKey, { snapshot: entry.snapshot, since: Date.now() });
    if (entry !== undefined) {
      this.#entries.delete(namespaceKey);
      this.events.invalidated?.(namespaceKey, why);
    }
  }

  /** Namespaces answered from their last good snapshot because reloading them failed. */
  staleNamespaces(): string[] {
    return [...this.#retries.keys()];
  }

  /** Cancels background reloads (at shutdown). */
  close(): void {
    for (const retry of this.#retries.values()) clearTimeout(retry.timer);
    for (const key of [...this.#retries.keys()]) this.#markFresh(key);
  }

  /**
   * The namespace's source as the loader reads it (shared store first, then the database), without
   * compiling or holding anything: for views that need what compilation leaves out (the client-side
   * snapshot of §11). Undefined when the namespace does not exist.
   */
  source(namespaceKey: string): Promise<NamespaceSource | undefined> {
    return this.#loadSource(namespaceKey);
  }

  /** Revision of the held snapshot ('' for a namespace that did not exist), or undefined. */
  heldRevision(namespaceKey: string): string | undefined {
    return this.#entries.get(namespaceKey)?.snapshot.revision;
  }

  /** Drops every snapshot whose revision differs from the database's. Returns the namespaces dropped. */
  async refreshFromRevisions(): Promise<string[]> {
    const revisions = await this.loader.revisions();
    for (const reader of this.#revisionReaders) reader(revisions);
    const stale: string[] = [];
    for (const [key, entry] of this.#entries) {
      if ((revisions.get(key) ?? '') !== entry.snapshot.revision) stale.push(key);
    }
    for (const key of stale) this.invalidate(key, 'poll');
    return stale;
  }

  /** Also hands every revision read by refreshFromRevisions to `reader` (the change streams' watch). */
  onRevisionsRead(reader: (revisions: ReadonlyMap<string, string>) => void): () => void {
    this.#revisionReaders.add(reader);
    return () => this.#revisionReaders.delete(reader);
  }

  /** Drops snapshots unused for longer than `maxIdleMs` (a snapshot read since the last sweep is used now). */
  evictIdle(maxIdleMs: number, now = Date.now()): void {
    // A fallback nobody asked to reload within the idle time would only hold memory.
    for (const [key, fallback] of this.#fallbacks) {
      if (!this.#entries.has(key) && now - fallback.since > maxIdleMs) this.#forget(key);
    }
    for (const [key, entry] of this.#entries) {
      if (entry.used) {
        entry.used = false;
        entry.lastUsed = now;
      } else if (now - entry.lastUsed > maxIdleMs) {
        this.invalidate(key, 'evict');
      }
    }
  }

  heldNamespaces(): string[] {
    return [...this.#entries.keys()];
  }

  #load(namespaceKey: string): Promise<NamespaceSnapshot> {
    const pending = this.#loading.get(namespaceKey);
    if (pending) return pending;
    this.events.miss?.(namespaceKey);
    this.stats.loads++;
    const generation = this.#generation.get(namespaceKey) ?? 0;
    const started = performance.now();
    const promise = this.#loadSource(namespaceKey)
      .then(
        async (source) => {
          // In steps of ITEMS_PER_STEP segments and flags, with event-loop turns between (ADR 0013).
          const snapshot = await inTurns(compileSnapshotSteps(source ?? emptySource(namespaceKey)));
          this.stats.compiles++;
          this.events.compiled?.(namespaceKey, performance.now() - started, source !== undefined);
          if ((this.#generation.get(namespaceKey) ?? 0) === generation) {
            this.#fallbacks.delete(namespaceKey);
            if (source !== undefined || this.#holdMissing(namespaceKey)) {
              this.#entries.set(namespaceKey, { snapshot, lastUsed: Date.now(), used: false, stale: false });
            }
            this.#markFresh(namespaceKey);
          } else if (source !== undefined) {
            // Written meanwhile: not current, but newer than the fallback held so far.
            this.#fallbacks.set(namespaceKey, { snapshot, since: Date.now() });
          }
          return snapshot;
        },
        (err: unknown) => this.#fallBack(namespaceKey, generation, err),
      )
      .finally(() => {
        if (this.#loading.get(namespaceKey) === promise) this.#loading.delete(namespaceKey);
      });
    this.#loading.set(namespaceKey, promise);
    return promise;
  }

  /**
   * A load failed: answer from the namespace's last good snapshot, held again (stale) so evaluations
   * do not wait on a database that is away, and reload it in the background. Without one, from the
   * snapshot a newer load has put in place meanwhile; without either, the caller gets the error.
   */
  #fallBack(namespaceKey: string, generation: number, err: unknown): NamespaceSnapshot {
    const fallback = this.#fallbacks.get(namespaceKey);
    if (fallback === undefined) {
      // A load started later (for a newer write) may have succeeded while this one was failing, as
      // when a stopping database cuts one transaction after another has finished: that snapshot,
      // newer than this load's, answers its callers.
      const held = this.#entries.get(namespaceKey);
      if (held !== undefined) return held.snapshot;
      this.events.loadFailed?.(namespaceKey, err);
      throw err;
    }
    if ((this.#generation.get(namespaceKey) ?? 0) === generation) {
      this.#entries.set(namespaceKey, { snapshot: fallback.snapshot, lastUsed: Date.now(), used: false, stale: true });
    }
    this.events.staleLoad?.(namespaceKey);
    let retry = this.#retries.get(namespaceKey);
    if (retry === undefined) {
      retry = { timer: undefined, attempt: 0 };
      this.#retries.set(namespaceKey, retry);
      this.events.stale?.(namespaceKey, err);
    }
    if (retry.timer === undefined) {
      const delay = Math.min(RETRY_FIRST_MS * 2 ** retry.attempt, RETRY_MAX_MS);
      retry.attempt++;
      const pending = retry;
      pending.timer = setTimeout(() => {
        pending.timer = undefined;
        // Evicted or reloaded meanwhile: nothing left to retry.
        if (this.#retries.get(namespaceKey) !== pending) return;
        // The stale entry stays held meanwhile, so evaluations never wait on this reload.
        this.#load(namespaceKey).catch(() => {});
      }, delay);
      pending.timer.unref();
    }
    return fallback.snapshot;
  }

  #markFresh(namespaceKey: string): void {
    const retry = this.#retries.get(namespaceKey);
    if (retry === undefined) return;
    clearTimeout(retry.timer);
    this.#retries.delete(namespaceKey);
    this.events.fresh?.(namespaceKey);
  }

  /** Drops everything held for the namespace besides its entry: fallback and background reload. */
  #forget(namespaceKey: string): void {
    this.#fallbacks.delete(namespaceKey);
    this.#markFresh(namespaceKey);
  }

  /** Makes room for one more snapshot of a namespace that does not exist; false when none may be held. */
  #holdMissing(namespaceKey: string): boolean {
    if (this.#maxMissing === 0) return false;
    this.#missing.delete(namespaceKey);
    while (this.#missing.size >= this.#maxMissing) {
      const oldest = this.#missing.values().next();
      if (oldest.done) break;
      this.#missing.delete(oldest.value);
      this.#entries.delete(oldest.value);
    }
    this.#missing.add(namespaceKey);
    return true;
  }

  async #loadSource(namespaceKey: string): Promise<NamespaceSource | undefined> {
    const shared = this.#shared;
    if (shared) {
      // A failed revision read means the database is away: the load below would fail the same way.
      const revision = (await this.loader.revisions()).get(namespaceKey);
      if (revision !== undefined) {
        const cached = await shared.get(namespaceKey, revision).catch((err: unknown) => {
          this.events.loadFailed?.(namespaceKey, err);
          return undefined;
        });
        if (cached) return cached;
      }
    }
    const source = await this.loader.load(namespaceKey);
    if (source && shared) shared.set(source).catch((err) => this.events.loadFailed?.(namespaceKey, err));
    return source;
  }
}
