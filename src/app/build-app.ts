// The composition root: config → database → migrations → services → HTTP and gRPC servers.
// buildApp never listens; `listen` (used by main.ts) does, and `close` undoes everything in order.

import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { GrpcCallDrain } from '../api/grpc/call-drain.js';
import { buildGrpcServer, type GrpcServer } from '../api/grpc/server.js';
import { HealthState } from '../api/health-state.js';
import { buildHttpApp } from '../api/http/app.js';
import { installAuthentication } from '../api/http/authentication.js';
import { HttpDrain } from '../api/http/connection-drain.js';
import { installCors } from '../api/http/cors.js';
import type { HttpApp } from '../api/http/http-app.js';
import { registerRoutes } from '../api/http/routes/index.js';
import { installTiers } from '../api/http/tiers.js';
import { LongLivedStreams } from '../api/long-lived-streams.js';
import { onAuthTokenCleanup, type TokenCleanupJob } from '../auth/cleanup.js';
import { DEFAULT_MAX_CACHED_TOKENS, TokenCache } from '../auth/token-cache.js';
import { createSnapshotCache } from '../cache/database-loader.js';
import { RedisCache } from '../cache/invalidation.js';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import { ConfigError, deprecatedKeysInUse, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { type AuditDeliveries, createAuditDeliveries } from '../features/audit/index.js';
import { checkEventStreamSettings, createEventStreams, type EventStreams } from '../features/event-streams/index.js';
import { createHistory } from '../features/history/index.js';
import { createRoleBindings } from '../features/role-bindings/index.js';
import { VERSION } from '../runtime/version.js';
import { createServices, type Services } from '../services/index.js';
import { type Db, dialectOf, openDb, waitForDb } from '../storage/db.js';
import { driverMessage } from '../storage/errors.js';
import { readRevisionTag } from '../storage/transaction.js';
import { createQueryObserver } from '../telemetry/db.js';
import { grpcTelemetryInterceptor, routeGrpcLogs } from '../telemetry/grpc.js';
import { createLogger } from '../telemetry/logger.js';
import { createMetrics, type Metrics } from '../telemetry/metrics.js';
import { createTracing, type Tracing } from '../telemetry/tracing.js';
import { buildAuthMethods } from './auth-methods.js';
import { type DrainOutcome, drainTransports } from './drain.js';
import { createJobsRoom, type JobsRoom } from './jobs/room.js';
import { migrateToLatest } from './migrations.js';
import { applySeed } from './seed.js';
import { bootstrapTokenAuthentication, createSessionCleanup, createTokenCleanup } from './token-authentication.js';

export interface App {
  config: Config;
  db: Db;
  services: Services;
  health: HealthState;
  http: HttpApp;
  grpc: GrpcServer;
  logger: Logger;
  /** Prometheus metrics (GET /metrics); also `http.metrics` for route modules. */
  metrics: Metrics;
  /** OpenTelemetry tracing (no-op unless tracing.enabled); also `http.tracing`. */
  tracing: Tracing;
  /** Compiled namespace snapshots that evaluations read (invalidated on writes and by the revision poller). */
  snapshots: SnapshotCache;
  /** The Redis tier and cluster-wide invalidation (cache.enabled with backend redis), else undefined. */
  redisCache: RedisCache | undefined;
  /** Open long-lived streams (SSE, gRPC server streaming): ended first when the app closes or drains. */
  streams: LongLivedStreams;
  /** The change streams (ofrep.event_streams.enabled), else undefined. */
  eventStreams: EventStreams | undefined;
  /** The background jobs (jobs/list.ts), started by `listen` and stopped by `close`. */
  jobs: JobsRoom;
  /** Starts both listeners; resolves with the bound ports. */
  listen(): Promise<{ httpPort: number; grpcPort: number }>;
  /**
   * Drains (drain.ts): ends long-lived streams, stops accepting, lets requests in flight finish within
   * server.shutdown_timeout and cuts the rest; then closes Redis and the database. Says what was cut.
   */
  close(): Promise<DrainOutcome>;
}

export interface BuildOptions {
  logger?: Logger;
}

/** The key and certificate of server.protocol https, read before anything else starts. */
function readTls(server: Config['server']): { key: Buffer; cert: Buffer } | undefined {
  if (server.protocol !== 'https') return undefined;
  const read = (key: 'cert_file' | 'cert_key') => {
    try {
      return readFileSync(server[key]);
    } catch (err) {
      throw new ConfigError(`invalid config at server.${key}: cannot read ${server[key]} (${(err as Error).message})`);
    }
  };
  const pair = { key: read('cert_key'), cert: read('cert_file') };
  try {
    // Fails now, with the file names, on a PEM that is not one or a key that does not match.
    createSecureContext(pair);
  } catch (err) {
    throw new ConfigError(
      `invalid config at server.cert_file/cert_key: ${server.cert_file} and ${server.cert_key} are not a ` +
        `matching certificate and key (${(err as Error).message})`,
    );
  }
  return pair;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const tls = readTls(config.server);
  checkEventStreamSettings(config);
  buildAuthMethods(config);
  const logger = options.logger ?? createLogger(config.log);
  for (const key of deprecatedKeysInUse(config)) logger.warn(`deprecated config key in use: ${key}`);
  const metrics = createMetrics(config.metrics);
  const tracing = createTracing(config.tracing, {
    serviceVersion: VERSION,
    onExportError: (err) => logger.warn({ error: err.message }, 'trace export failed'),
  });
  const db = openDb({
    log: createQueryObserver(metrics, tracing, dialectOf(config.db.url)),
    // Once per outage, each way: the requests it fails meanwhile log warnings (api/http/error-handler.ts).
    availability: {
      unavailable: (cause) =>
        logger.error({ error: driverMessage(cause) }, 'database unavailable; answering 503 until it is back'),
      available: ({ ms: outageMs, failures }) =>
        logger.warn({ outageMs, failedQueries: failures }, 'database available again'),
    },
    url: config.db.url,
    maxOpenConn: config.db.max_open_conn,
    maxIdleConn: config.db.max_idle_conn,
    connMaxIdleTimeMs: ms(config.db.conn_max_idle_time),
    connMaxLifetimeMs: ms(config.db.conn_max_lifetime),
  });
  try {
    await waitForDb(db, ms(config.db.connect_timeout), (err, attempt) =>
      logger.warn({ attempt, error: err.message }, 'database not reachable yet; retrying'),
    );
    const { applied } = await migrateToLatest(db.kysely, db.dialect);
    if (applied.length) logger.info({ migrations: applied }, 'database migrated');
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }

  const snapshots = createSnapshotCache(db.kysely, db.dialect, metrics, logger);
  const pollIntervalMs = ms(config.cache.poll_interval);
  // Without polling nothing would notice a token deleted elsewhere, so tokens are then looked up every time.
  const tokens =
    pollIntervalMs > 0
      ? new TokenCache(
          DEFAULT_MAX_CACHED_TOKENS,
          metrics.enabled
            ? {
                hit: () => metrics.cacheHit('auth'),
                miss: () => metrics.cacheMiss('auth'),
                invalidated: (count) => metrics.cacheInvalidation('auth', count),
              }
            : {},
        )
      : undefined;
  const services = createServices(
    db.kysely,
    { snapshots, batchLimit: config.evaluation.batch_limit, metrics, tracing },
    { dialect: db.dialect, ...(tokens ? { tokens } : {}), methods: buildAuthMethods(config, db.kysely) },
  );
  // The change log's list, read and revert (features/history); the core records the changes.
  const history = createHistory(db.kysely, services);
  // Role bindings stored through the API (features/role-bindings), applied by the resolver when
  // `authorization.roles` is configured: loaded before the first request, then refreshed by a job.
  const roleBindings = createRoleBindings(db.kysely, services.recorded, services.auth.roles);
  // Read-your-writes on this instance; other instances' writes arrive through the poller.
  services.changes.subscribe((namespaceKey) => snapshots.invalidate(namespaceKey, 'write'));
  // Token authentication: the bootstrap token exists before the first request; cleanup is a job.
  let tokenCleanup: TokenCleanupJob | undefined;
  let sessionCleanups: TokenCleanupJob[] = [];
  // Audit sinks, fed from the changes table (features/audit): ready before the first write; a job each.
  let audit: AuditDeliveries | undefined;
  try {
    audit = createAuditDeliveries(config.audit, { db: db.kysely, logger, metrics });
    await audit.prepare();
    await roleBindings.prepare();
    tokenCleanup = createTokenCleanup(db.kysely, config, logger);
    sessionCleanups = (['oidc', 'github', 'kubernetes'] as const).flatMap((name) => {
      const job = createSessionCleanup(db.kysely, config, logger, name);
      return job ? [job] : [];
    });
    await bootstrapTokenAuthentication(services.auth, config, logger);
    await applySeed(services.documents, config, logger);
  } catch (err) {
    await audit?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
  const streams = new LongLivedStreams();
  const eventStreams = createEventStreams(config, db.kysely, { services, snapshots, streams, tokens });
  const jobs = createJobsRoom({
    config,
    db: db.kysely,
    logger,
    metrics,
    snapshots,
    auth: services.auth,
    tokensCached: tokens !== undefined,
    cleanups: [...(tokenCleanup ? [tokenCleanup] : []), ...sessionCleanups],
    deliveries: audit.deliveries,
    eventStreams,
    storedRoleBindings: roleBindings.stored,
  });
  // Every recorded change, token writes included (they publish no namespace change).
  const stopWakingAudit = services.recorded.subscribe(() => jobs.recorded());
  // The shared tier and cluster-wide invalidation; never required (start-up waits for it briefly).
  let redisCache: RedisCache | undefined;
  if (config.cache.enabled && config.cache.backend === 'redis') {
    try {
      redisCache = new RedisCache({
        settings: config.cache.redis,
        ttlMs: ms(config.cache.ttl),
        netTimeoutMs: ms(config.cache.redis.net_timeout),
        snapshots,
        changes: services.changes,
        ...(tokens ? { tokens } : {}),
        revisionOf: (namespaceKey) => readRevisionTag(db.kysely, namespaceKey),
        ...(eventStreams ? { onRevision: (ns: string, rev: string) => eventStreams.watch.announce(ns, rev) } : {}),
        logger,
        metrics,
        tracing,
      });
    } catch (err) {
      // A bad TLS setting (unreadable CA file): stop as a config error would.
      await db.close().catch(() => {});
      throw err;
    }
    // biome-ignore lint/correctness/useHookAtTopLevel: a SnapshotCache method, not a React hook
    snapshots.useSharedStore(redisCache.store);
    await redisCache.ready(2000);
  }
  const health = new HealthState();
  const http = await buildHttpApp({
    bodyLimit: config.server.body_limit,
    tls,
    logger,
    version: VERSION,
    telemetry: { metrics, tracing, evaluationLogLevel: config.log.evaluation_level },
  });
  // First of all: CORS answers preflights before the bearer check (installs nothing unless cors.enabled).
  await installCors(http, config.cors);
  // Before any route: the bearer check (installs no hook at all unless authentication.required).
  installAuthentication(http, {
    config,
    auth: services.auth,
    ...(eventStreams?.ticketAuth ? { tickets: eventStreams.ticketAuth } : {}),
  });
  // Before any route: read tier / read-only refusals and the X-Vexil-Revision header of management routes.
  installTiers(http, { config, revisionOf: (namespaceKey) => readRevisionTag(db.kysely, namespaceKey) });
  const httpDrain = new HttpDrain(http.server);
  await registerRoutes(
    http,
    { config, services, health, streams, ...(eventStreams ? { eventStreams: eventStreams.http } : {}) },
    [...history.routes, ...roleBindings.routes],
  );
  await http.ready();
  routeGrpcLogs(logger, config.log.grpc_level);
  const grpcCalls = new GrpcCallDrain();
  const grpcTelemetry = { metrics, tracing, logger, onCall: grpcCalls.observe };
  const grpc = buildGrpcServer(health, {
    interceptors: [grpcTelemetryInterceptor(grpcTelemetry)],
    telemetry: grpcTelemetry,
    connMaxIdleMs: ms(config.server.grpc_conn_max_idle_time),
    connMaxAgeMs: ms(config.server.grpc_conn_max_age),
    connMaxAgeGraceMs: ms(config.server.grpc_conn_max_age_grace),
    // Change streams' heartbeat: the SSE streams send a comment line, gRPC connections get a PING.
    keepaliveMs: eventStreams ? ms(config.ofrep.event_streams.heartbeat_interval) : 0,
    tls,
    flipt: {
      config,
      services,
      streams,
      auth: services.auth,
      revisionOf: (namespaceKey) => readRevisionTag(db.kysely, namespaceKey),
      featureTables: roleBindings.grpcTables,
    },
    streams,
    ...(eventStreams ? { changes: eventStreams.grpc } : {}),
  });
  const stopCountingChanges = services.recorded.subscribe((changes) => metrics.changesRecorded(changes));
  const stopCountingCleanups = onAuthTokenCleanup((run) => {
    if (run.instance === tokenCleanup?.instance) metrics.tokensDeleted(run.deleted);
  });
  const auditSinks = audit;
  health.set('SERVING');

  let closing: Promise<DrainOutcome> | undefined;
  return {
    config,
    db,
    services,
    health,
    http,
    grpc,
    logger,
    metrics,
    tracing,
    snapshots,
    redisCache,
    streams,
    eventStreams,
    jobs,
    async listen() {
      // As in Flipt, https replaces http: the API, OFREP, health and dashboard move to https_port.
      const port = tls ? config.server.https_port : config.server.http_port;
      await http.listen({ host: config.server.host, port });
      const address = http.server.address();
      const httpPort = typeof address === 'object' && address ? address.port : port;
      const grpcPort = await grpc.listen(config.server.host, config.server.grpc_port);
      jobs.start();
      return { httpPort, grpcPort };
    },
    close() {
      closing ??= (async () => {
        health.set('NOT_SERVING');
        // Its watchers and timers; the streams themselves end through `streams` in the drain.
        eventStreams?.close();
        const outcome = await drainTransports(
          { streams, http: httpDrain, grpcCalls, grpcServer: grpc.server, logger },
          ms(config.server.shutdown_timeout),
        );
        // Every request has been answered or cut, and the gRPC server is shut down (a second tryShutdown
        // after forceShutdown would never call back): what the requests used can go now.
        await Promise.allSettled([http.close(), jobs.stop().then(() => auditSinks.close())]);
        stopWakingAudit();
        stopCountingCleanups();
        stopCountingChanges();
        const closed = (async () => {
          await redisCache?.close();
          snapshots.close();
          await db.close();
        })();
        // A cut request may still hold a database connection (a query waiting for a lock), which the
        // pool would wait for: the exit closes it instead, and the database rolls its work back.
        if (outcome.cutHttp + outcome.cutGrpc === 0) await closed;
        else closed.catch(() => {});
        await tracing.shutdown().catch(() => {});
        metrics.close();
        return outcome;
      })();
      return closing;
    },
  };
}
