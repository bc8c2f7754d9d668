// The `vexil` command line: serve (default), migrate, config validate, token. Every expected failure is
// one line on stderr and exit code 1, never a stack trace. main.ts runs it.

import closeWithGrace from 'close-with-grace';
import { Command } from 'commander';
import type { Logger } from 'pino';
import { buildApp } from '../app/build-app.js';
import { checkStartupConfig } from '../app/check-config.js';
import { migrateToLatest } from '../app/migrations.js';
import { ConfigError, loadConfig, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { VERSION } from '../runtime/version.js';
import { DbUrlError, openDb, waitForDb } from '../storage/db.js';
import { diagnosticSignals } from './diagnostic-signals.js';
import { buildDocumentCommands } from './documents.js';
import { buildTokenCommand } from './token.js';

/** Exit code when the drain reached server.shutdown_timeout and cut requests still in flight. */
export const EXIT_REQUESTS_CUT = 3;

/** How long closing Redis, the database and the trace exporter may take after the drain. */
const CLOSE_AFTER_DRAIN_MS = 5_000;

/** close-with-grace's own messages (a second signal, the timeout) as log lines. */
function closeWithGraceLogger(logger: Logger): Pick<Console, 'error'> {
  return { error: (message: unknown) => logger.error(message instanceof Error ? { err: message } : String(message)) };
}

function fail(message: string): never {
  process.stderr.write(`vexil: ${message}\n`);
  process.exit(1);
}

function describeError(err: unknown): string {
  if (err instanceof ConfigError || err instanceof DbUrlError) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EADDRINUSE') return `address already in use: ${e.message.replace(/^.*EADDRINUSE: /, '')}`;
  if (e?.code === 'EACCES') return `permission denied: ${e.message}`;
  return e?.message?.split('\n')[0] ?? String(err);
}

function config(options: { config?: string }): Config {
  try {
    return loadConfig({ file: options.config });
  } catch (err) {
    fail(describeError(err));
  }
}

async function serve(options: { config?: string }): Promise<void> {
  const cfg = config(options);
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp(cfg);
  } catch (err) {
    fail(describeError(err));
  }
  // A signal Node answers with a diagnostic (a report, a heap snapshot) leaves the server running.
  const skip = diagnosticSignals() as closeWithGrace.Signals[];
  // The drain keeps to shutdown_timeout itself (app/drain.ts); this is the bound on closing what is
  // left after it (Redis, the database, the trace exporter), which then exits 1.
  closeWithGrace(
    { delay: ms(cfg.server.shutdown_timeout) + CLOSE_AFTER_DRAIN_MS, skip, logger: closeWithGraceLogger(app.logger) },
    async ({ signal, err }) => {
      if (err) app.logger.error({ err }, 'stopping after an unexpected error');
      else app.logger.info({ signal }, 'shutting down');
      const { cutHttp, cutGrpc } = await app.close();
      if (cutHttp + cutGrpc > 0) process.exit(EXIT_REQUESTS_CUT);
    },
  );
  try {
    const { httpPort, grpcPort } = await app.listen();
    app.logger.info(
      {
        httpPort,
        grpcPort,
        protocol: cfg.server.protocol,
        host: cfg.server.host,
        storage: app.db.describe,
        mode: cfg.server.mode,
        version: VERSION,
      },
      'vexil is serving',
    );
  } catch (err) {
    await app.close().catch(() => {});
    fail(describeError(err));
  }
}

async function migrate(options: { config?: string }): Promise<void> {
  const cfg = config(options);
  try {
    const db = openDb({ url: cfg.db.url });
    try {
      await waitForDb(db, ms(cfg.db.connect_timeout));
      const { applied } = await migrateToLatest(db.kysely, db.dialect);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    } finally {
      await db.close();
    }
  } catch (err) {
    fail(describeError(err));
  }
}

export function buildCli(): Command {
  const program = new Command('vexil')
    .description('Feature-flag service, wire-compatible with Flipt v1')
    .version(VERSION, '-v, --version')
    .option('-c, --config <file>', 'YAML config file');

  program
    .command('serve', { isDefault: true })
    .description('run the server (HTTP and gRPC)')
    .action(() => serve(program.opts()));

  program
    .command('migrate')
    .description('run pending database migrations and exit')
    .action(() => migrate(program.opts()));

  const configCommand = program.command('config').description('configuration tools');
  configCommand
    .command('validate')
    .description('check the configuration (file and VEXIL_* environment) and exit')
    .action(() => {
      const cfg = config(program.opts());
      try {
        checkStartupConfig(cfg);
      } catch (err) {
        fail(describeError(err));
      }
      process.stdout.write('config is valid\n');
    });

  program.addCommand(buildTokenCommand(() => program.opts<{ config?: string }>().config));
  for (const command of buildDocumentCommands(() => program.opts<{ config?: string }>().config)) {
    program.addCommand(command);
  }

  return program;
}
