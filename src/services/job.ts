// What a background job is to the jobs room (app/jobs/): list.ts there names every job of an app and
// scheduler.ts runs them; a feature (features/) builds its own jobs against this type, so it lives below both.

import type { LockEntry } from '../storage/operation-lock.js';

/**
 * Where a job runs. `one instance`: under a database lease, once per interval across every instance
 * on the database. `every instance`: once per instance. `every worker process`: in every process of an
 * instance, because what it tends lives in the process's memory (held snapshots, remembered tokens,
 * open streams); today an instance is one process, so the last two run alike.
 */
export type JobScope = 'one instance' | 'every instance' | 'every worker process';

/** How one run ended, as a job reports it: `skipped` when it was not this instance's turn. */
export type JobOutcome = 'ok' | 'skipped';

export interface JobRun {
  /** When the run began (the lease, when there is one, starts here). */
  now: Date;
  /** The lease the scheduler won for this run (jobs with `lease`). */
  lease: LockEntry | undefined;
  /** Aborted when the scheduler stops: a long run gives up at its next step. */
  signal: AbortSignal;
}

export interface Job {
  /** Names the job in metrics (`job` label) and logs: snake_case, one per job of an app. */
  readonly name: string;
  readonly scope: JobScope;
  /** Time between the end of one run and the start of the next. */
  readonly intervalMs: number;
  /**
   * The `operation_lock` row of a `one instance` job whose lease the scheduler wins, for one
   * interval, before each run; when another instance holds it the run is skipped until that lease
   * ends. Absent on a job that holds a lease of its own between runs (audit delivery).
   */
  readonly lease?: string;
  /** The first run comes this long after start; one interval when absent. */
  readonly firstRunMs?: number;
  /** After a run that threw, the next comes this long after; min(interval, 5 min) when absent. */
  readonly retryMs?: number;
  /** Logged when runs start failing, and when one succeeds again. */
  readonly messages?: { failing: string; recovered: string };
  /** Resolves with the outcome; nothing stands for 'ok'. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a job that has nothing to report returns nothing
  run(run: JobRun): Promise<JobOutcome | void> | JobOutcome | void;
  /** The delay before the next run after this outcome, when it is not the interval. */
  nextRunMs?(outcome: JobOutcome): number;
  /** Called once the scheduler has stopped and no run is left (releases what the job holds). */
  stopped?(): Promise<void>;
}
