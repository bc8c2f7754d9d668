// Checks of the config that need more than its schema and load.ts: what the composition root would
// refuse at start before touching the database (audit template bodies, login methods' key files). `vexil config
// validate` runs them too, so it says the same line as a start would.

import type { Logger } from 'pino';
import pino from 'pino';
import type { Config } from '../config/schema.js';
import { buildAuditSinks } from '../features/audit/index.js';
import { buildAuthMethods } from './auth-methods.js';

/** Throws the ConfigError a start would throw for this config. */
export function checkStartupConfig(config: Config, logger: Logger = pino({ level: 'silent' })): void {
  buildAuditSinks(config.audit, logger);
  buildAuthMethods(config);
}
