// The jobs room's list: every background job of an app, with its interval and scope (job.ts), built
// from the config and the parts build-app.ts made. One scheduler (scheduler.ts) runs them all.
//
//   job                       scope                  interval
//   token_cleanup             one instance (lease)   authentication.methods.token.cleanup.interval
//   session_cleanup_<method>  one instance (lease)   authentication.methods.<method>.cleanup.interval
//   changes_retention         one instance (lease)   authentication.methods.token.cleanup.interval
//   audit_delivery_<sink>     one instance (held)    woken by writes and by the revision poll (features/audit)
//   revision_poll             every worker process   cache.poll_interval
//   token_cache_refresh       every worker process   cache.poll_interval
//   role_bindings_refresh     every instance         cache.poll_interval (features/role-bindings)
//   snapshot_eviction         every worker process   cache.memory.eviction_interval
//   stream_heartbeat          every worker process   ofrep.event_streams.heartbeat_interval
//   stream_ticket_check       every worker process   cache.poll_interval (heartbeat_interval without a poll)
//
// Not here: the seed (app/seed.ts) runs once, before the app takes requests, under its own lease, and
// a bad one stops start-up; timers that belong to one request, stream or retry (a stale snapshot's
// reload, write timeouts, the drain); and gRPC keepalive pings, which grpc-js sends itself.

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { TokenCleanupJob } from '../../auth/cleanup.js';
import { RevisionPoller } from '../../cache/revision-poller.js';
import type { SnapshotCache } from '../../cache/snapshot-cache.js';
import { ms } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { auditJobs, changeFeed, type SinkDelivery } from '../../features/audit/index.js';
import type { EventStreams } from '../../features/event-streams/index.js';
import { roleBindingJobs, type StoredBindingRules } from '../../features/role-bindings/index.js';
import type { AuthService } from '../../services/auth.js';
import type { Job } from '../../services/job.js';
import type { Database } from '../../storage/schema.js';
import { CHANGES_RETENTION_OPERATION, changesRetention, removeExpiredChanges } from '../changes-retention.js';

export interface JobParts {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  snapshots: SnapshotCache;
  auth: AuthService;
  /** Whether this instance remembers tokens (auth/token-cache.ts), which must then be re-read. */
  tokensCached: boolean;
  cleanups: readonly TokenCleanupJob[];
  deliveries: readonly SinkDelivery[];
  eventStreams: EventStreams | undefined;
  /** The stored role bindings' copy (features/role-bindings); undefined when `authorization.roles` is not set. */
  storedRoleBindings?: StoredBindingRules | undefined;
}

const CLEANUP_NAMES = {
  METHOD_TOKEN: 'token_cleanup',
  METHOD_OIDC: 'session_cleanup_oidc',
  METHOD_GITHUB: 'session_cleanup_github',
  METHOD_KUBERNETES: 'session_cleanup_kubernetes',
} as const;

function cleanupJob(cleanup: TokenCleanupJob): Job {
  const name = CLEANUP_NAMES[cleanup.method as keyof typeof CLEANUP_NAMES] ?? `cleanup_${cleanup.method}`;
  return {
    name,
    scope: 'one instance',
    intervalMs: cleanup.intervalMs,
    lease: cleanup.operation,
    firstRunMs: 0,
    messages: {
      failing: 'authentication cleanup failed; retrying later',
      recovered: 'authentication cleanup recovered',
    },
    async run({ now, lease }) {
      if (lease === undefined) throw new Error(`${name} ran without its lease`);
      await cleanup.clean(now, lease);
    },
  };
}

function retentionJob(parts: JobParts): Job | undefined {
  const retentionMs = changesRetention(parts.config);
  if (retentionMs === 0) return undefined;
  return {
    name: 'changes_retention',
    scope: 'one instance',
    intervalMs: ms(parts.config.authentication.methods.token.cleanup.interval),
    lease: CHANGES_RETENTION_OPERATION,
    firstRunMs: 0,
    async run({ now }) {
      await removeExpiredChanges(parts.db, retentionMs, now, parts.logger);
    },
  };
}

/** Every job of the app; `wake` runs a job now (the scheduler's). */
export function listJobs(parts: JobParts, wake: (job: string) => void): Job[] {
  const { config, snapshots } = parts;
  const pollMs = ms(config.cache.poll_interval);
  const jobs: Job[] = parts.cleanups.map(cleanupJob);
  const retention = retentionJob(parts);
  if (retention) jobs.push(retention);
  jobs.push(...auditJobs(parts.deliveries, pollMs));
  jobs.push(...roleBindingJobs(parts.storedRoleBindings, pollMs));
  if (pollMs > 0) {
    const poller = new RevisionPoller(
      snapshots,
      parts.deliveries.length > 0 ? { alsoPoll: changeFeed(parts, wake) } : {},
    );
    jobs.push({
      name: 'revision_poll',
      scope: 'every worker process',
      intervalMs: pollMs,
      messages: { failing: 'revision poll failed; serving held snapshots', recovered: 'revision poll recovered' },
      run: () => poller.pollOnce(),
    });
    if (parts.tokensCached) {
      jobs.push({
        name: 'token_cache_refresh',
        scope: 'every worker process',
        intervalMs: pollMs,
        run: () => parts.auth.refreshCachedTokens(),
      });
    }
    const maxIdleMs = ms(config.cache.ttl);
    if (maxIdleMs > 0) {
      const evictionMs = ms(config.cache.memory.eviction_interval);
      jobs.push({
        name: 'snapshot_eviction',
        scope: 'every worker process',
        intervalMs: evictionMs > 0 ? evictionMs : pollMs,
        run: () => snapshots.evictIdle(maxIdleMs),
      });
    }
  }
  const streams = parts.eventStreams;
  if (streams !== undefined && streams.heartbeatMs > 0) {
    jobs.push({
      name: 'stream_heartbeat',
      scope: 'every worker process',
      intervalMs: streams.heartbeatMs,
      run: () => streams.hub.heartbeat(),
    });
  }
  // The tokens of authenticated streams, for deletions elsewhere, and their identities' roles, which
  // stored bindings can take away (ADR 48): a run with no such stream open reads nothing.
  const tickets = streams?.tickets;
  if (tickets !== undefined && tickets.checkEveryMs > 0) {
    jobs.push({
      name: 'stream_ticket_check',
      scope: 'every worker process',
      intervalMs: tickets.checkEveryMs,
      messages: {
        failing: 'stream ticket check failed; open streams stay open until it succeeds',
        recovered: 'stream ticket check recovered',
      },
      run: () => tickets.checkHeld(),
    });
  }
  return jobs;
}
