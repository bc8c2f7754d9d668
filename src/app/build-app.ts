// The composition root: config → database → migrations → services → HTTP and gRPC servers.
// buildApp never listens; `listen` (used by main.ts) does, and `close` undoes everything in order.

import type { Logger } from 'pino';
import { buildGrpcServer, type GrpcServer } from '../api/grpc/server.js';
import { HealthState } from '../api/health-state.js';
import { buildHttpApp, type HttpApp } from '../api/http/app.js';
import { registerRoutes } from '../api/http/routes/index.js';
import { ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createServices, type Services } from '../services/index.js';
import { type Db, openDb, waitForDb } from '../storage/db.js';
import { migrateToLatest } from '../storage/migrations/index.js';
import { createLogger } from '../telemetry/logger.js';
import { VERSION } from '../version.js';

export interface App {
  config: Config;
  db: Db;
  services: Services;
  health: HealthState;
  http: HttpApp;
  grpc: GrpcServer;
  logger: Logger;
  /** Starts both listeners; resolves with the bound ports. */
  listen(): Promise<{ httpPort: number; grpcPort: number }>;
  /** Stops accepting, drains in-flight requests, closes the database. */
  close(): Promise<void>;
}

export interface BuildOptions {
  logger?: Logger;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.log);
  const db = openDb({
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

  const services = createServices(db.kysely);
  const health = new HealthState();
  const http = await buildHttpApp({ bodyLimit: config.server.body_limit, logger, version: VERSION });
  await registerRoutes(http, { config, services, health });
  await http.ready();
  const grpc = buildGrpcServer(health);
  health.set('SERVING');

  let closed = false;
  return {
    config,
    db,
    services,
    health,
    http,
    grpc,
    logger,
    async listen() {
      await http.listen({ host: config.server.host, port: config.server.http_port });
      const address = http.server.address();
      const httpPort = typeof address === 'object' && address ? address.port : config.server.http_port;
      const grpcPort = await grpc.listen(config.server.host, config.server.grpc_port);
      return { httpPort, grpcPort };
    },
    async close() {
      if (closed) return;
      closed = true;
      health.set('NOT_SERVING');
      await Promise.allSettled([http.close(), grpc.close()]);
      await db.close();
    },
  };
}
