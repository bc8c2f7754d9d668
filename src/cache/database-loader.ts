// Wires the snapshot cache to the database (the loader) and to the app's metrics and log (its events).

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { DialectName } from '../storage/db.js';
import { loadNamespaceSource, namespaceRevisionTags } from '../storage/evaluation-source.js';
import type { Database } from '../storage/schema.js';
import type { Metrics } from '../telemetry/metrics.js';
import { SnapshotCache, type SnapshotCacheEvents, type SnapshotLoader } from './snapshot-cache.js';

/** Loads namespace sources and revision tags from the database. */
export function databaseSnapshotLoader(db: Kysely<Database>, dialect: DialectName): SnapshotLoader {
  return {
    load: (namespaceKey) => loadNamespaceSource(db, dialect, namespaceKey),
    revisions: () => namespaceRevisionTags(db),
  };
}

/** Stale-snapshot metrics, registered on the app's registry beside the other metrics (rare events). */
class StaleMetrics {
  readonly #loads: Counter | undefined;
  readonly #held: Gauge | undefined;

  constructor(metrics: Metrics) {
    if (!metrics.enabled) return;
    this.#loads = new Counter({
      name: 'vexil_snapshot_stale_total',
      help: 'Snapshot reloads that failed (database unavailable) and left the last good snapshot in use, retries included',
      registers: [metrics.registry],
    });
    this.#held = new Gauge({
      name: 'vexil_snapshots_stale',
      help: 'Namespaces evaluated from their last good snapshot because reloading them fails',
      registers: [metrics.registry],
    });
  }

  staleLoad(): void {
    this.#loads?.inc();
  }

  held(count: number): void {
    this.#held?.set(count);
  }
}

function messageOf(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return err instanceof Error ? `${err.message}${cause}` : String(err);
}

/**
 * Cache events as metrics (bounded labels: the cache's name; namespaces only for those that exist)
 * and failed loads as warnings: one when loads start failing, one when they succeed again, never one
 * per request while the database is away.
 */
export function snapshotCacheEvents(metrics: Metrics, logger: Logger): SnapshotCacheEvents {
  const staleMetrics = new StaleMetrics(metrics);
  const stale = new Set<string>();
  let failing = false;
  const failed = (namespaceKey: string, err: unknown, what: string) => {
    if (failing) return;
    failing = true;
    logger.warn({ namespace: namespaceKey, error: messageOf(err) }, what);
  };
  const events: SnapshotCacheEvents = {
    miss: () => metrics.cacheMiss('snapshot'),
    invalidated: () => metrics.cacheInvalidation('snapshot'),
    compiled: (namespaceKey, millis, exists) => {
      if (exists) metrics.snapshotCompiled(namespaceKey, millis / 1000);
      if (failing) {
        failing = false;
        logger.info({ namespace: namespaceKey }, 'snapshot loads succeed again');
      }
    },
    loadFailed: (namespaceKey, err) => failed(namespaceKey, err, 'snapshot load failed'),
    stale: (namespaceKey, err) => {
      stale.add(namespaceKey);
      staleMetrics.held(stale.size);
      failed(namespaceKey, err, 'snapshot reload failed; evaluating from the last good snapshot, retrying');
    },
    staleLoad: () => staleMetrics.staleLoad(),
    fresh: (namespaceKey) => {
      stale.delete(namespaceKey);
      staleMetrics.held(stale.size);
    },
  };
  // The hit counter runs on every evaluation: only install it when it records something.
  if (metrics.enabled) events.hit = () => metrics.cacheHit('snapshot');
  return events;
}

export function createSnapshotCache(
  db: Kysely<Database>,
  dialect: DialectName,
  metrics: Metrics,
  logger: Logger,
): SnapshotCache {
  return new SnapshotCache(databaseSnapshotLoader(db, dialect), snapshotCacheEvents(metrics, logger));
}
