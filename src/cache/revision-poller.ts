// Polls the namespaces' revisions so this instance sees writes made by other instances within one
// interval, even without Redis, and (through `alsoPoll`) re-reads the tokens it remembers. A failed
// poll (database down) keeps the held snapshots and tokens: evaluations go on answering from the
// last known configuration.

import type { SnapshotCache } from './snapshot-cache.js';

export interface RevisionPollerOptions {
  intervalMs: number;
  /** Snapshots unused for longer than this are dropped (0 or absent: never). */
  maxIdleMs?: number;
  /** How often idle snapshots are looked for (cache.memory.eviction_interval); 0 or absent: every poll. */
  evictEveryMs?: number;
  /** More to re-read on every poll, after the revisions (the remembered tokens). */
  alsoPoll?(): Promise<void>;
  onError?(err: unknown): void;
  onRecovered?(): void;
}

export class RevisionPoller {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #failing = false;
  #lastEviction = Date.now();

  constructor(
    private readonly cache: SnapshotCache,
    private readonly options: RevisionPollerOptions,
  ) {}

  start(): void {
    if (this.#timer || this.options.intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.pollOnce(), this.options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One poll; overlapping calls are skipped. */
  async pollOnce(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      await this.cache.refreshFromRevisions();
      await this.options.alsoPoll?.();
      const maxIdle = this.options.maxIdleMs ?? 0;
      const now = Date.now();
      if (maxIdle > 0 && now - this.#lastEviction >= (this.options.evictEveryMs ?? 0)) {
        this.#lastEviction = now;
        this.cache.evictIdle(maxIdle, now);
      }
      if (this.#failing) {
        this.#failing = false;
        this.options.onRecovered?.();
      }
    } catch (err) {
      if (!this.#failing) this.options.onError?.(err);
      this.#failing = true;
    } finally {
      this.#running = false;
    }
  }
}
