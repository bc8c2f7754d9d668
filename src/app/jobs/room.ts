// The jobs room of an app: its jobs (list.ts) on one scheduler (scheduler.ts), counted in the metrics
// (`vexil_job_runs_total`, `vexil_job_last_run_timestamp_seconds`). build-app.ts starts it when the app
// listens and stops it when the app closes. With `jobs.leased: false` (an evaluation-only instance) the
// `one instance` jobs do not run here at all: another instance on the database runs them.

import { wakeHeldDeliveries } from '../../features/audit/index.js';
import type { Metrics } from '../../telemetry/metrics.js';
import { type JobParts, listJobs } from './list.js';
import { JobScheduler } from './scheduler.js';

export interface JobsRoom {
  readonly scheduler: JobScheduler;
  start(): void;
  /** A change recorded on this instance: the audit deliveries it holds look at once. */
  recorded(): void;
  /** Stops every job, waits for the runs under way, and lets the held leases go. */
  stop(): Promise<void>;
}

export function createJobsRoom(parts: JobParts & { metrics: Metrics }): JobsRoom {
  const { metrics } = parts;
  let scheduler: JobScheduler | undefined;
  const wake = (job: string) => scheduler?.wake(job);
  const jobs = listJobs(parts, wake);
  const built = new JobScheduler(jobs, {
    db: parts.db,
    logger: parts.logger,
    leased: parts.config.jobs.leased,
    ...(metrics.enabled ? { onRun: (job, result, endedAtMs) => metrics.jobRun(job, result, endedAtMs) } : {}),
  });
  scheduler = built;
  return {
    scheduler: built,
    start: () => built.start(),
    recorded() {
      wakeHeldDeliveries(parts.deliveries, (job) => built.wake(job));
    },
    stop: () => built.stop(),
  };
}
