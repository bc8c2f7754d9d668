// Flipt's audit sinks for Vexil (issue 28), as a feature slice: what app/ composes from here is the
// configured sinks with one delivery per sink over the changes table, their jobs for the jobs room
// (jobs.ts), the delivery state's migration (migration.ts) and storage (store.ts). `prepare` runs before
// the server takes requests (a new sink starts after the newest change, so it must exist before the
// first write it is to deliver); `close` closes the sinks once the jobs have stopped. The `audit`
// config section stays in config/ (schema.ts, audit.ts): the loader checks the whole file at once.

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { auditEventPairs } from '../../config/audit.js';
import { ConfigError, ms } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { MigrationsFor } from '../../storage/migrations/index.js';
import type { Database } from '../../storage/schema.js';
import type { Metrics } from '../../telemetry/metrics.js';
import { SinkDelivery } from './delivery.js';
import { TemplateError } from './go-template.js';
import { auditDelivery } from './migration.js';
import { type AuditSink, LogSink, TemplateSink, WebhookSink } from './sinks.js';

export type { SinkDelivery } from './delivery.js';
export { auditJobs, changeFeed, wakeHeldDeliveries } from './jobs.js';

/** Audit's migrations, under the names existing databases recorded (app/migrations.ts composes them). */
export const AUDIT_MIGRATIONS: MigrationsFor = (dialect) => ({ '005-audit-delivery': auditDelivery(dialect) });

export interface AuditDeliveries {
  readonly sinks: readonly AuditSink[];
  readonly deliveries: readonly SinkDelivery[];
  prepare(): Promise<void>;
  /** Closes the sinks (their files); the deliveries have stopped and let their leases go. */
  close(): Promise<void>;
}

export interface AuditOptions {
  db: Kysely<Database>;
  logger: Logger;
  metrics: Metrics;
  /** Test hooks: shorter polls and leases. */
  pollMs?: number;
  leaseMs?: number;
}

/** The sinks the config enables; throws a ConfigError naming a template that cannot run. */
export function buildAuditSinks(config: Config['audit'], logger: Logger): AuditSink[] {
  const sinks: AuditSink[] = [];
  if (config.sinks.log.enabled) sinks.push(new LogSink(config.sinks.log.file, logger));
  const webhook = config.sinks.webhook;
  if (webhook.enabled && webhook.url !== '') sinks.push(new WebhookSink(webhook.url, webhook.signing_secret, logger));
  if (webhook.enabled) {
    webhook.templates.forEach((template, i) => {
      const name = `webhook.templates[${i}]`;
      try {
        sinks.push(new TemplateSink(name, template.url, template.body, template.headers, logger));
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        throw new ConfigError(`invalid config at audit.sinks.${name}.body: ${err.message}`);
      }
    });
  }
  return sinks;
}

export function createAuditDeliveries(config: Config['audit'], options: AuditOptions): AuditDeliveries {
  const sinks = buildAuditSinks(config, options.logger);
  const pairs = auditEventPairs(config.events);
  if ('error' in pairs) throw new ConfigError(`invalid config at audit.events: ${pairs.error}`);
  const { metrics } = options;
  const deliveries = sinks.map(
    (sink) =>
      new SinkDelivery({
        db: options.db,
        sink,
        events: pairs.pairs,
        maxBackoffMs: Math.max(1, ms(config.sinks.webhook.max_backoff_duration)),
        logger: options.logger,
        ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        onResult: (s, result) => {
          if (s.webhook) metrics.auditWebhookDelivery(s.name, result);
        },
        onLag: (s, seconds) => metrics.auditDeliveryLag(s.name, seconds),
      }),
  );
  return {
    sinks,
    deliveries,
    async prepare() {
      for (const sink of sinks) if (sink instanceof LogSink) await sink.open();
      for (const delivery of deliveries) await delivery.prepare();
    },
    async close() {
      await Promise.allSettled(deliveries.map((d) => d.release()));
      await Promise.allSettled(sinks.map((s) => s.close()));
    },
  };
}
