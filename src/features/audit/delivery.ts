// Delivers the changes table to one audit sink, as an outbox: read the changes after the sink's saved
// position, send each selected one as Flipt's event, save the position after each, in id order. Every
// instance with the sink configured runs `deliver` as a job of the jobs room (app/jobs/list.ts), but only
// the holder of the sink's lease on the `operation_lock` row `audit_delivery_<sink>` delivers (renewed
// while held; saves are fenced on it), so with many instances each event is sent by one. A failed send
// is retried with exponential backoff up to max_backoff_duration, for as long as it takes: an event is
// delivered at least once. The lease is held across runs, unlike the jobs whose lease the scheduler
// wins per run: delivering in order needs one holder for as long as it stays up.

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Change } from '../../domain/changes.js';
import { releaseLock, renewLock, tryAcquireLock } from '../../storage/operation-lock.js';
import type { Database } from '../../storage/schema.js';
import { auditEventOf } from './events.js';
import { expireGaps, markHandled } from './gaps.js';
import type { AuditSink, DeliveryResult } from './sinks.js';
import {
  type DeliveryState,
  ensureDeliveryState,
  oldestPendingChange,
  readDeliveryState,
  readPendingChanges,
  saveDeliveryState,
} from './store.js';

export interface DeliveryOptions {
  db: Kysely<Database>;
  sink: AuditSink;
  /** `type:action` pairs to send; others are passed over. */
  events: ReadonlySet<string>;
  maxBackoffMs: number;
  logger: Logger;
  /** How often to look for other instances' writes when nothing else says there are some (local writes and the revision poll wake the job). */
  pollMs?: number;
  /** Lease length; renewed every third of it. */
  leaseMs?: number;
  /** Changes read per pass. */
  batchSize?: number;
  onResult?: (sink: AuditSink, result: DeliveryResult) => void;
  /** The age of the oldest change not yet handled (0 when none), after every look. */
  onLag?: (sink: AuditSink, seconds: number) => void;
}

const FIRST_BACKOFF_MS = 1000;

export function deliveryOperation(sink: string): string {
  return `audit_delivery_${sink}`;
}

export class SinkDelivery {
  readonly instance = randomUUID();
  readonly operation: string;
  /** Aborted when the scheduler stops: no new send starts, a backoff wait ends. */
  #stop: AbortSignal | undefined;
  #lease: { version: number } | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  /** Aborted when the lease is lost or the scheduler stops: a send under way is given up. */
  #abort = new AbortController();
  /** Gaps in the ids were open after the last pass: a late commit may fill one without a newer change. */
  #watchingGaps = false;

  constructor(private readonly options: DeliveryOptions) {
    this.operation = deliveryOperation(options.sink.name);
  }

  get pollMs(): number {
    return this.options.pollMs ?? 1000;
  }

  get leaseMs(): number {
    return this.options.leaseMs ?? 10_000;
  }

  /** After a run that failed (the database away), the next comes this long after. */
  get retryMs(): number {
    return Math.min(this.options.maxBackoffMs, 5_000);
  }

  /** Creates the sink's state (starting after the newest change) before any request is served. */
  async prepare(): Promise<void> {
    await ensureDeliveryState(this.options.db, this.options.sink.name);
  }

  /** Whether this instance holds the sink's lease (only then is waking it worth a run). */
  get holding(): boolean {
    return this.#lease !== undefined;
  }

  /** Whether ids below the newest are still awaited (a transaction that has not committed yet). */
  get watchingGaps(): boolean {
    return this.#watchingGaps;
  }

  /**
   * One run: win or keep the lease, then deliver until nothing is pending. 'skipped' when another
   * instance holds the lease (this one reports the lag from the saved state meanwhile).
   */
  async deliver(stop: AbortSignal): Promise<'ok' | 'skipped'> {
    this.#stop = stop;
    if (stop.aborted) return 'ok';
    const onStop = () => this.#abort.abort();
    stop.addEventListener('abort', onStop, { once: true });
    try {
      if (!this.#lease && !(await this.#acquire())) {
        await this.#reportLag();
        return 'skipped';
      }
      while (!stop.aborted && this.#lease && (await this.#pass())) {
        // A full batch: there may be more right away.
      }
      return 'ok';
    } finally {
      stop.removeEventListener('abort', onStop);
    }
  }

  /** Lets the lease go (a clean stop), so another instance may take over at once. */
  async release(): Promise<void> {
    clearInterval(this.#renewTimer);
    const lease = this.#lease;
    this.#lease = undefined;
    if (lease) await releaseLock(this.options.db, this.operation, lease.version).catch(() => {});
  }

  get #stopped(): boolean {
    return this.#stop?.aborted ?? false;
  }

  /** Waits up to `ms`, or until the lease is lost or the scheduler stops. */
  #sleep(ms: number): Promise<void> {
    const signal = this.#abort.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  async #acquire(): Promise<boolean> {
    const attempt = await tryAcquireLock(this.options.db, this.operation, this.leaseMs);
    if (!attempt.acquired) return false;
    const version = attempt.entry.version;
    this.#lease = { version };
    this.#abort = new AbortController();
    if (this.#stopped) this.#abort.abort();
    this.#renewTimer = setInterval(() => void this.#renew(version), Math.max(10, this.leaseMs / 3));
    this.#renewTimer.unref();
    this.options.logger.debug({ sink: this.options.sink.name, version }, 'audit delivery lease won');
    return true;
  }

  async #renew(version: number): Promise<void> {
    try {
      if (this.#lease?.version !== version) return;
      if (!(await renewLock(this.options.db, this.operation, version, this.leaseMs))) this.#lose();
    } catch {
      // The database is away: keep the lease until it runs out; the next renewal tries again.
    }
  }

  #lose(): void {
    if (!this.#lease) return;
    this.options.logger.warn({ sink: this.options.sink.name }, 'audit delivery lease lost to another instance');
    this.#lease = undefined;
    clearInterval(this.#renewTimer);
    this.#abort.abort();
  }

  async #state(): Promise<DeliveryState> {
    const { db, sink } = this.options;
    let state = await readDeliveryState(db, sink.name);
    if (!state) {
      await ensureDeliveryState(db, sink.name);
      state = await readDeliveryState(db, sink.name);
    }
    if (!state) throw new Error(`no delivery state for ${sink.name}`);
    return state;
  }

  /** Handles one batch of pending changes; true when there may be more right away. */
  async #pass(): Promise<boolean> {
    const { db, batchSize = 100 } = this.options;
    let state = expireGaps(await this.#state(), Date.now());
    const changes = await readPendingChanges(db, state, batchSize);
    for (const change of changes) {
      if (!(await this.#handle(change))) return false;
      state = markHandled(state, Number(change.id), Date.now());
      const lease = this.#lease;
      if (!lease || !(await saveDeliveryState(db, state, { operation: this.operation, version: lease.version }))) {
        this.#lose();
        return false;
      }
    }
    if (changes.length === 0 && state.gaps.length > 0) {
      const lease = this.#lease;
      if (lease) await saveDeliveryState(db, state, { operation: this.operation, version: lease.version });
    }
    this.#watchingGaps = state.gaps.length > 0;
    this.#lag(state, changes.length === batchSize ? undefined : 0);
    return changes.length === batchSize;
  }

  /** Sends one change until it is done; false when the lease was lost or the loop stopped meanwhile. */
  async #handle(change: Change): Promise<boolean> {
    const { sink, events, maxBackoffMs, logger, onResult } = this.options;
    const event = auditEventOf(change);
    if (!events.has(`${event.type}:${event.action}`)) return true;
    for (let attempt = 1; ; attempt++) {
      if (this.#stopped || !this.#lease) return false;
      let result: DeliveryResult;
      try {
        result = await sink.deliver(event, this.#abort.signal);
      } catch (err) {
        logger.warn({ sink: sink.name, error: (err as Error).message }, 'audit sink failed');
        result = 'retry';
      }
      if (this.#stopped || !this.#lease) return false;
      onResult?.(sink, result);
      if (result !== 'retry') {
        if (result !== 'delivered')
          logger.error({ sink: sink.name, change: change.id, result }, 'audit event not delivered');
        return true;
      }
      this.#lagOf(change);
      await this.#sleep(Math.min(maxBackoffMs, FIRST_BACKOFF_MS * 2 ** (attempt - 1)));
    }
  }

  #lagOf(change: Change): void {
    this.options.onLag?.(this.options.sink, Math.max(0, (Date.now() - Date.parse(change.createdAt)) / 1000));
  }

  #lag(state: DeliveryState, knownSeconds: number | undefined): void {
    if (knownSeconds !== undefined) {
      this.options.onLag?.(this.options.sink, knownSeconds);
      return;
    }
    void this.#lagFromDb(state);
  }

  async #lagFromDb(state: DeliveryState): Promise<void> {
    const oldest = await oldestPendingChange(this.options.db, state).catch(() => undefined);
    this.options.onLag?.(this.options.sink, oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0);
  }

  /** Instances that do not hold the lease still report the lag, from the saved state. */
  async #reportLag(): Promise<void> {
    if (!this.options.onLag) return;
    const state = await readDeliveryState(this.options.db, this.options.sink.name);
    if (state) await this.#lagFromDb(state);
  }
}
