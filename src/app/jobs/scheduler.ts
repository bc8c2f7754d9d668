// The one scheduler of an app's background jobs (job.ts; list.ts names them). Each job runs on its
// own timer, one run at a time: the next run is timed from the end of the last, so a slow run never
// overlaps itself. A run that throws is counted and logged (once when a job starts failing, once when
// it recovers, so an outage does not fill the log) and the job tries again later; nothing a job does
// can end the process. `stop` aborts the runs under way and waits for them to end.
//
// A `one instance` job with a `lease` runs only after winning the lease on its `operation_lock` row
// for one interval (storage/operation-lock.ts); when another instance holds it, the run counts as
// skipped and the next attempt waits for that lease to end.

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Job, JobOutcome } from '../../services/job.js';
import { type LockEntry, tryAcquireLock } from '../../storage/operation-lock.js';
import type { Database } from '../../storage/schema.js';
import type { JobRunResult } from '../../telemetry/metrics.js';

export interface SchedulerOptions {
  /** The database the leases are won on. */
  db: Kysely<Database>;
  logger: Logger;
  /** False: jobs of scope `one instance` are not run here at all (jobs.leased). */
  leased: boolean;
  /** Every run's end (the metrics). */
  onRun?(job: string, result: JobRunResult, endedAtMs: number): void;
}

const MAX_RETRY_MS = 5 * 60_000;
/** Never come back sooner than this, whatever the clocks say about a lease's end. */
const MIN_WAIT_MS = 10;

interface Scheduled {
  readonly job: Job;
  timer: NodeJS.Timeout | undefined;
  running: Promise<JobRunResult> | undefined;
  /** Woken while running: run again as soon as this run ends. */
  again: boolean;
  failing: boolean;
}

export class JobScheduler {
  readonly #scheduled = new Map<string, Scheduled>();
  readonly #options: SchedulerOptions;
  readonly #abort = new AbortController();
  #state: 'new' | 'started' | 'stopped' = 'new';
  #stopping: Promise<void> | undefined;

  constructor(jobs: readonly Job[], options: SchedulerOptions) {
    this.#options = options;
    for (const job of jobs) {
      if (!options.leased && job.scope === 'one instance') continue;
      if (this.#scheduled.has(job.name)) throw new Error(`two jobs named ${job.name}`);
      if (!(job.intervalMs > 0)) throw new Error(`job ${job.name}: the interval must be greater than 0`);
      this.#scheduled.set(job.name, { job, timer: undefined, running: undefined, again: false, failing: false });
    }
  }

  /** The jobs this scheduler runs (those of scope `one instance` only when leased jobs run here). */
  get jobs(): Job[] {
    return [...this.#scheduled.values()].map((s) => s.job);
  }

  start(): void {
    if (this.#state !== 'new') return;
    this.#state = 'started';
    for (const s of this.#scheduled.values()) this.#schedule(s, s.job.firstRunMs ?? s.job.intervalMs);
  }

  /** Runs the job now rather than at its next time (or right after the run under way). */
  wake(name: string): void {
    const s = this.#scheduled.get(name);
    if (s === undefined || this.#state !== 'started') return;
    if (s.running !== undefined) {
      s.again = true;
      return;
    }
    this.#schedule(s, 0);
  }

  /** One run now, after the one under way if any, as the timer would run it; for tests and tools. */
  async runNow(name: string): Promise<JobRunResult> {
    const s = this.#scheduled.get(name);
    if (s === undefined) throw new Error(`no job named ${name}`);
    while (s.running !== undefined) await s.running;
    return this.#begin(s);
  }

  /** Stops every timer, aborts the runs under way and waits for them; then lets each job let go. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#state = 'stopped';
      this.#abort.abort();
      for (const s of this.#scheduled.values()) clearTimeout(s.timer);
      await Promise.allSettled([...this.#scheduled.values()].map((s) => s.running));
      await Promise.allSettled(this.jobs.map((job) => job.stopped?.()));
    })();
    return this.#stopping;
  }

  #schedule(s: Scheduled, delayMs: number): void {
    clearTimeout(s.timer);
    if (this.#state !== 'started') return;
    s.timer = setTimeout(
      () => {
        s.timer = undefined;
        void this.#begin(s);
      },
      Math.max(0, delayMs),
    );
    // A job never keeps a stopping process alive.
    s.timer.unref();
  }

  #begin(s: Scheduled): Promise<JobRunResult> {
    const running = this.#run(s).finally(() => {
      if (s.running === running) s.running = undefined;
    });
    s.running = running;
    return running;
  }

  async #run(s: Scheduled): Promise<JobRunResult> {
    const { job } = s;
    const { logger } = this.#options;
    let result: JobRunResult;
    let nextMs: number;
    try {
      const outcome = await this.#attempt(job);
      result = outcome.result;
      nextMs = outcome.nextMs;
      if (s.failing) {
        s.failing = false;
        logger.info({ job: job.name }, job.messages?.recovered ?? 'job recovered');
      }
    } catch (err) {
      result = 'error';
      nextMs = job.retryMs ?? Math.min(job.intervalMs, MAX_RETRY_MS);
      const error = err instanceof Error ? err.message : String(err);
      if (!s.failing && !this.#abort.signal.aborted) {
        logger.warn({ job: job.name, error }, job.messages?.failing ?? 'job failed; retrying later');
      } else {
        logger.debug({ job: job.name, error }, 'job failed again');
      }
      s.failing = true;
    }
    this.#options.onRun?.(job.name, result, Date.now());
    const again = s.again;
    s.again = false;
    this.#schedule(s, again ? 0 : Math.max(MIN_WAIT_MS, nextMs));
    return result;
  }

  async #attempt(job: Job): Promise<{ result: JobRunResult; nextMs: number }> {
    const now = new Date();
    let lease: LockEntry | undefined;
    if (job.lease !== undefined) {
      const attempt = await tryAcquireLock(this.#options.db, job.lease, job.intervalMs, now);
      if (!attempt.acquired) {
        this.#options.logger.debug(
          { job: job.name, until: attempt.entry.acquiredUntil },
          'job held by another instance',
        );
        const until = attempt.entry.acquiredUntil?.getTime() ?? Date.now();
        return { result: 'skipped', nextMs: until - Date.now() };
      }
      lease = attempt.entry;
    }
    const outcome: JobOutcome = (await job.run({ now, lease, signal: this.#abort.signal })) ?? 'ok';
    return { result: outcome, nextMs: job.nextRunMs?.(outcome) ?? job.intervalMs };
  }
}
