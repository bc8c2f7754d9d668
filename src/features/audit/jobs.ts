// Audit's jobs for the jobs room (app/jobs/list.ts): one delivery job per sink, and what the revision
// poll reads along to wake them when another instance recorded a change.

import type { Kysely } from 'kysely';
import type { Job } from '../../services/job.js';
import { newestChangeId } from '../../storage/changes.js';
import type { Database } from '../../storage/schema.js';
import type { SinkDelivery } from './delivery.js';

/**
 * A sink's delivery. Local writes wake it, and so does the revision poll when it sees a newer change
 * (another instance's write): with the poll at least as often as a lease, the job's own look is only a
 * safety net, once a lease; without it (poll off or slower), the job looks every `pollMs` itself, as
 * it does while ids below the newest are still awaited. An instance without the lease tries again
 * every quarter lease.
 */
function deliveryJob(delivery: SinkDelivery, fedByPoll: boolean): Job {
  const ownLookMs = fedByPoll ? delivery.leaseMs : delivery.pollMs;
  return {
    name: delivery.operation,
    scope: 'one instance',
    intervalMs: ownLookMs,
    firstRunMs: 0,
    retryMs: delivery.retryMs,
    messages: { failing: 'audit delivery failed; retrying', recovered: 'audit delivery recovered' },
    run: ({ signal }) => delivery.deliver(signal),
    nextRunMs: (outcome) =>
      outcome === 'skipped'
        ? Math.min(delivery.pollMs * 2, delivery.leaseMs / 4)
        : delivery.watchingGaps
          ? delivery.pollMs
          : ownLookMs,
    stopped: () => delivery.release(),
  };
}

/** The delivery jobs, given the revision poll's interval (0: off). */
export function auditJobs(deliveries: readonly SinkDelivery[], revisionPollMs: number): Job[] {
  const fedByPoll = revisionPollMs > 0 && deliveries.every((d) => revisionPollMs <= d.leaseMs);
  return deliveries.map((delivery) => deliveryJob(delivery, fedByPoll));
}

/** Wakes the deliveries this instance holds the lease of (`wake` runs a job now: the scheduler's). */
export function wakeHeldDeliveries(deliveries: readonly SinkDelivery[], wake: (job: string) => void): void {
  for (const delivery of deliveries) if (delivery.holding) wake(delivery.operation);
}

/**
 * What the revision poll reads along for audit delivery: the newest change's id, one index read. A
 * newer one than last time wakes the deliveries this instance holds the lease of.
 */
export function changeFeed(
  parts: { db: Kysely<Database>; deliveries: readonly SinkDelivery[] },
  wake: (job: string) => void,
) {
  let newest: number | undefined;
  return async (): Promise<void> => {
    const id = await newestChangeId(parts.db);
    if (newest !== undefined && id <= newest) return;
    newest = id;
    wakeHeldDeliveries(parts.deliveries, wake);
  };
}
