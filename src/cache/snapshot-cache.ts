// Compiled namespace snapshots held in memory, so evaluations read no database at steady state.
// A snapshot is dropped the moment this instance writes to its namespace (ChangeFeed), and when the
// poller sees that another instance changed the namespace's revision. A load that races a write
// never installs stale data: each namespace has a generation, bumped on every invalidation, and a
// load only installs its result if the generation is unchanged.

import { compileSnapshot } from '../evaluation/snapshot.js';
import type { NamespaceSnapshot } from '../evaluation/snapshot.js';
import type { NamespaceSource } from '../evaluation/source.js';

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
  compiled?(namespaceKey: string, millis: number): void;
  loadFailed?(namespaceKey: string, err: unknown): void;
}

interface Entry {
  snapshot: NamespaceSnapshot;
  lastUsed: number;
}

/** The snapshot of a namespace that does not exist: every flag lookup in it is "not found". */
function emptySource(namespaceKey: string): NamespaceSource {
  return { namespaceKey, revision: '', flags: [], segments: [] };
}

export class SnapshotCache {
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<NamespaceSnapshot>>();
  readonly #generation = new Map<string, number>();
  #shared: SharedSourceStore | undefined;

  constructor(
    private readonly loader: SnapshotLoader,
    private readonly events: SnapshotCacheEvents = {},
  ) {}

  /** Puts a shared tier (Redis) between this cache and the database. */
  useSharedStore(store: SharedSourceStore | undefined): void {
    this.#shared = store;
  }

  /** The held snapshot, without waiting: the evaluation hot path. */
  peek(namespaceKey: string): NamespaceSnapshot | undefined {
    const entry = this.#entries.get(namespaceKey);
    if (entry === undefined) return undefined;
    entry.lastUsed = Date.now();
    this.events.hit?.(namespaceKey);
    return entry.snapshot;
  }

  /** The namespace's snapshot, loading and compiling it when it is not held. */
  get(namespaceKey: string): NamespaceSnapshot | Promise<NamespaceSnapshot> {
    return this.peek(namespaceKey) ?? this.#load(namespaceKey);
  }

  /** Drops the namespace's snapshot; the next evaluation loads it again. */
  invalidate(namespaceKey: string, why: 'write' | 'poll' | 'broadcast' | 'evict' = 'write'): void {
    this.#generation.set(namespaceKey, (this.#generation.get(namespaceKey) ?? 0) + 1);
    this.#loading.delete(namespaceKey);
    if (this.#entries.delete(namespaceKey)) this.events.invalidated?.(namespaceKey, why);
  }

  /** Revision of the held snapshot ('' for a namespace that did not exist), or undefined. */
  heldRevision(namespaceKey: string): string | undefined {
    return this.#entries.get(namespaceKey)?.snapshot.revision;
  }

  /** Drops every snapshot whose revision differs from the database's. Returns the namespaces dropped. */
  async refreshFromRevisions(): Promise<string[]> {
    const revisions = await this.loader.revisions();
    const stale: string[] = [];
    for (const [key, entry] of this.#entries) {
      if ((revisions.get(key) ?? '') !== entry.snapshot.revision) stale.push(key);
    }
    for (const key of stale) this.invalidate(key, 'poll');
    return stale;
  }

  /** Drops snapshots unused for longer than `maxIdleMs`. */
  evictIdle(maxIdleMs: number, now = Date.now()): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.lastUsed > maxIdleMs) this.invalidate(key, 'evict');
    }
  }

  heldNamespaces(): string[] {
    return [...this.#entries.keys()];
  }

  #load(namespaceKey: string): Promise<NamespaceSnapshot> {
    const pending = this.#loading.get(namespaceKey);
    if (pending) return pending;
    this.events.miss?.(namespaceKey);
    const generation = this.#generation.get(namespaceKey) ?? 0;
    const promise = this.#loadSource(namespaceKey)
      .then((source) => {
        const started = performance.now();
        const snapshot = compileSnapshot(source ?? emptySource(namespaceKey));
        this.events.compiled?.(namespaceKey, performance.now() - started);
        if ((this.#generation.get(namespaceKey) ?? 0) === generation) {
          this.#entries.set(namespaceKey, { snapshot, lastUsed: Date.now() });
        }
        return snapshot;
      })
      .finally(() => {
        if (this.#loading.get(namespaceKey) === promise) this.#loading.delete(namespaceKey);
      });
    this.#loading.set(namespaceKey, promise);
    return promise;
  }

  async #loadSource(namespaceKey: string): Promise<NamespaceSource | undefined> {
    const shared = this.#shared;
    if (shared) {
      try {
        const revision = (await this.loader.revisions()).get(namespaceKey);
        if (revision !== undefined) {
          const cached = await shared.get(namespaceKey, revision);
          if (cached) return cached;
        }
      } catch (err) {
        this.events.loadFailed?.(namespaceKey, err);
      }
    }
    const source = await this.loader.load(namespaceKey);
    if (source && shared) shared.set(source).catch((err) => this.events.loadFailed?.(namespaceKey, err));
    return source;
  }
}
