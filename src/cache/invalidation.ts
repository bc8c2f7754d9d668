// Cluster-wide invalidation through Redis, and Redis as the shared snapshot tier (cache.backend: redis).
// - Every write committed on this instance (ChangeFeed) is announced as `namespace → revision` on the
//   `<prefix>:revisions` channel; every other instance drops its snapshot of that namespace on receipt
//   unless it already holds that very revision. The revision poller keeps running as the fallback.
// - Every token deleted or expired through this instance is announced by id on `<prefix>:revoked-tokens`;
//   every other instance forgets it from its token cache on receipt (the poller re-reads tokens too).
// - Redis is optional at every moment: while it is unreachable, evaluations go on from memory and the
//   database, one warning is logged per outage (not per failed command) and a counter records it;
//   ioredis reconnects by itself, and on return this instance re-reads every revision once, since
//   announcements sent during the outage were lost.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../telemetry/metrics.js';
import type { Tracing } from '../telemetry/tracing.js';
import {
  createRedisConnection,
  type RedisConnection,
  RedisKeys,
  type RedisSettings,
  RedisSourceStore,
} from './redis.js';
import type { SnapshotCache } from './snapshot-cache.js';

/** One announcement on the revisions channel. */
export interface RevisionMessage {
  /** Namespace key. */
  ns: string;
  /** The namespace's revision tag after the write; absent when it could not be read (drop in any case). */
  rev?: string;
  /** The announcing instance, which ignores its own messages (it invalidated at once, locally). */
  origin: string;
}

/** The JSON object `text` holds, or undefined when it is not JSON or not an object (a channel may carry anything). */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function parseRevisionMessage(text: string): RevisionMessage | undefined {
  const value = parseObject(text);
  if (value === undefined || typeof value.ns !== 'string' || typeof value.origin !== 'string') return undefined;
  return { ns: value.ns, origin: value.origin, ...(typeof value.rev === 'string' ? { rev: value.rev } : {}) };
}

/** What invalidation needs of the writes: their feed of committed changes (services/changes.ts). */
export interface CommittedChanges {
  subscribe(listener: (namespaceKey: string) => void): () => void;
}

/** What invalidation needs of the token cache (auth/token-cache.ts): its revocations, and dropping one. */
export interface RevocableTokens {
  onForget(listener: (id: string) => void): () => void;
  drop(id: string): void;
}

/** One announcement on the revoked-tokens channel: an authentication deleted or expired. */
export interface RevokedTokenMessage {
  /** The authentication's id. */
  id: string;
  origin: string;
}

export function parseRevokedTokenMessage(text: string): RevokedTokenMessage | undefined {
  const value = parseObject(text);
  if (value === undefined || typeof value.id !== 'string' || typeof value.origin !== 'string') return undefined;
  return { id: value.id, origin: value.origin };
}

/**
 * Announces a revoked token from a process that is not a server (`vexil token delete`): one
 * connection, one PUBLISH, then disconnect. Resolves false when Redis could not be reached within
 * `timeoutMs`; the servers then learn of it from their token poll.
 */
export async function announceRevokedToken(
  settings: RedisSettings,
  id: string,
  { netTimeoutMs = 0, timeoutMs = 2000 }: { netTimeoutMs?: number; timeoutMs?: number } = {},
): Promise<boolean> {
  const connection = createRedisConnection(settings, { role: 'commands', netTimeoutMs });
  // Connection errors surface as the timeout below, not as an unhandled 'error' event.
  connection.on('error', () => {});
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis not reachable')), timeoutMs);
      connection.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const message: RevokedTokenMessage = { id, origin: `cli-${randomUUID()}` };
    await connection.publish(new RedisKeys(settings.prefix).revokedTokens, JSON.stringify(message));
    return true;
  } catch {
    return false;
  } finally {
    connection.disconnect();
  }
}

export interface RedisCacheOptions {
  settings: RedisSettings;
  /** Lifetime of a stored source (cache.ttl); 0: no expiry. */
  ttlMs: number;
  /** cache.redis.net_timeout in milliseconds (0: client defaults). */
  netTimeoutMs: number;
  snapshots: SnapshotCache;
  changes: CommittedChanges;
  /** The token cache whose revocations are announced and received (absent: tokens are not cached). */
  tokens?: RevocableTokens;
  /** The namespace's current revision tag (one indexed read), or undefined when it no longer exists. */
  revisionOf(namespaceKey: string): Promise<string | undefined>;
  /** Told of every other instance's announced revision (the change streams' watch). */
  onRevision?(namespaceKey: string, revision: string): void;
  logger: Logger;
  metrics: Metrics;
  /** Snapshot-tier commands become `redis GET`/`redis SET` spans under a traced request. */
  tracing?: Tracing;
}

type Role = 'commands' | 'subscriber';

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

/** Redis outage metrics, registered on the app's registry beside the other metrics. */
class RedisMetrics {
  readonly #outages: Counter | undefined;
  readonly #up: Gauge | undefined;

  constructor(metrics: Metrics) {
    if (!metrics.enabled) return;
    this.#outages = new Counter({
      name: 'vexil_cache_redis_outages_total',
      help: 'Times Redis became unreachable (evaluations went on from memory and the database)',
      registers: [metrics.registry],
    });
    this.#up = new Gauge({
      name: 'vexil_cache_redis_up',
      help: '1 while both Redis connections (commands and pub/sub) are up, else 0',
      registers: [metrics.registry],
    });
    this.#up.set(0);
  }

  outage(): void {
    this.#outages?.inc();
    this.#up?.set(0);
  }

  up(): void {
    this.#up?.set(1);
  }
}

export class RedisCache {
  /** The shared snapshot tier, for SnapshotCache.useSharedStore. */
  readonly store: RedisSourceStore;
  /** This instance's id in announcements. */
  readonly instanceId = randomUUID();
  readonly #commands: RedisConnection;
  readonly #subscriber: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #options: RedisCacheOptions;
  readonly #metrics: RedisMetrics;
  readonly #unsubscribeChanges: () => void;
  readonly #unsubscribeRevocations: () => void;
  /** The subscriber is subscribed to the revisions channel on its current connection. */
  #subscribed = false;
  /** Both connections have been up at least once since the last outage began (or since start). */
  #up = false;
  /** An outage has been reported and has not ended yet. */
  #outage = false;
  #closing = false;
  readonly #waiters = new Set<() => void>();
  /** Announcements received and acted on (tests and debugging). */
  readonly stats = {
    published: 0,
    received: 0,
    invalidated: 0,
    resyncs: 0,
    outages: 0,
    revocationsPublished: 0,
    revocationsReceived: 0,
  };

  constructor(options: RedisCacheOptions) {
    this.#options = options;
    this.#keys = new RedisKeys(options.settings.prefix);
    this.#metrics = new RedisMetrics(options.metrics);
    this.#commands = createRedisConnection(options.settings, { role: 'commands', netTimeoutMs: options.netTimeoutMs });
    this.#subscriber = createRedisConnection(options.settings, {
      role: 'subscriber',
      netTimeoutMs: options.netTimeoutMs,
    });
    const { metrics, tracing } = options;
    this.store = new RedisSourceStore(
      this.#commands,
      this.#keys,
      options.ttlMs,
      () => this.#commands.status === 'ready',
      {
        hit: () => metrics.cacheHit('redis'),
        miss: () => metrics.cacheMiss('redis'),
        failed: (err) => this.#commandFailed(err),
      },
      tracing?.enabled ? (command, call) => tracing.withRedisSpan(command, call) : undefined,
    );
    this.#watch(this.#commands, 'commands');
    this.#watch(this.#subscriber, 'subscriber');
    this.#subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.#keys.revisions) this.#receive(text);
      else if (channel === this.#keys.revokedTokens) this.#receiveRevocation(text);
    });
    this.#unsubscribeChanges = options.changes.subscribe((namespaceKey) => this.#announce(namespaceKey));
    this.#unsubscribeRevocations = options.tokens?.onForget((id) => this.#announceRevocation(id)) ?? (() => {});
  }

  /** True while both connections are up and the channel is subscribed. */
  get available(): boolean {
    return this.#commands.status === 'ready' && this.#subscriber.status === 'ready' && this.#subscribed;
  }

  /** Resolves true once Redis is fully usable, or false after `timeoutMs` (start-up never fails on Redis). */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.available) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve(this.available);
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.#waiters.add(done);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#unsubscribeChanges();
    this.#unsubscribeRevocations();
    for (const waiter of [...this.#waiters]) waiter();
    // disconnect(), not quit(): quit would wait for a Redis that may be gone.
    this.#commands.disconnect();
    this.#subscriber.disconnect();
  }

  #watch(connection: RedisConnection, role: Role): void {
    connection.on('ready', () => {
      if (role === 'subscriber') void this.#subscribe();
      else this.#maybeUp();
    });
    connection.on('error', (err: unknown) => {
      // Connection errors only; a failed command is reported by its caller.
      if (connection.status !== 'ready') this.#lost(role, err);
    });
    connection.on('close', () => this.#lost(role, new Error('connection closed')));
    connection.on('end', () => this.#lost(role, new Error('connection ended')));
  }

  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.subscribe(this.#keys.revisions, this.#keys.revokedTokens);
      this.#subscribed = true;
      this.#maybeUp();
    } catch (err) {
      this.#lost('subscriber', err);
    }
  }

  /**
   * A command failed. Disconnected: the outage is (or is about to be) reported by the connection's
   * events. Timed out on a connection that still looks up: Redis stopped answering, so the connection
   * is dropped and rebuilt (which reports the outage). An error reply leaves the connection alone.
   */
  #commandFailed(err: unknown): void {
    if (this.#closing) return;
    if (this.#commands.status !== 'ready') {
      this.#lost('commands', err);
    } else if (/timed out/i.test(messageOf(err))) {
      this.#lost('commands', err);
      this.#commands.disconnect(true);
    } else {
      this.#options.logger.debug({ error: messageOf(err) }, 'redis command failed');
    }
  }

  #lost(role: Role, err: unknown): void {
    if (role === 'subscriber') this.#subscribed = false;
    if (this.#closing) return;
    this.#up = false;
    if (this.#outage) return;
    this.#outage = true;
    this.stats.outages++;
    this.#metrics.outage();
    this.#options.logger.warn(
      { connection: role, error: messageOf(err) },
      'redis unavailable; evaluations continue from memory and the database, reconnecting',
    );
  }

  #maybeUp(): void {
    if (this.#closing || !this.available || this.#up) return;
    this.#up = true;
    this.#metrics.up();
    for (const waiter of [...this.#waiters]) waiter();
    if (!this.#outage) return;
    this.#outage = false;
    this.#options.logger.info('redis available again');
    void this.#resync();
  }

  /** After an outage: what was announced meanwhile is lost, so compare every held revision once. */
  async #resync(): Promise<void> {
    this.stats.resyncs++;
    try {
      await this.#options.snapshots.refreshFromRevisions();
    } catch (err) {
      // The database is away too: the revision poller catches up when it returns.
      this.#options.logger.debug({ error: messageOf(err) }, 'revision resync after redis outage failed');
    }
  }

  #announce(namespaceKey: string): void {
    if (this.#closing || this.#commands.status !== 'ready') return;
    const publish = (rev: string | undefined) => {
      const message: RevisionMessage = {
        ns: namespaceKey,
        origin: this.instanceId,
        ...(rev !== undefined ? { rev } : {}),
      };
      if (this.#commands.status !== 'ready') return;
      this.#commands.publish(this.#keys.revisions, JSON.stringify(message)).then(
        () => {
          this.stats.published++;
        },
        (err: unknown) => this.#commandFailed(err),
      );
    };
    this.#options.revisionOf(namespaceKey).then(
      (rev) => publish(rev ?? ''),
      () => publish(undefined),
    );
  }

  #announceRevocation(id: string): void {
    if (this.#closing || this.#commands.status !== 'ready') return;
    const message: RevokedTokenMessage = { id, origin: this.instanceId };
    this.#commands.publish(this.#keys.revokedTokens, JSON.stringify(message)).then(
      () => {
        this.stats.revocationsPublished++;
      },
      (err: unknown) => this.#commandFailed(err),
    );
  }

  #receiveRevocation(text: string): void {
    const message = parseRevokedTokenMessage(text);
    if (message === undefined || message.origin === this.instanceId) return;
    this.stats.revocationsReceived++;
    this.#options.tokens?.drop(message.id);
  }

  #receive(text: string): void {
    const message = parseRevisionMessage(text);
    if (message === undefined || message.origin === this.instanceId) return;
    this.stats.received++;
    if (message.rev !== undefined) this.#options.onRevision?.(message.ns, message.rev);
    const snapshots = this.#options.snapshots;
    // Dropped unless this very revision is held; a namespace not held is dropped too, which cancels a
    // load that may have started before the write committed.
    if (message.rev !== undefined && snapshots.heldRevision(message.ns) === message.rev) return;
    this.stats.invalidated++;
    snapshots.invalidate(message.ns, 'broadcast');
  }
}
