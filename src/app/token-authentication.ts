// Start-up of token authentication: the bootstrap token (created when the token method is enabled and
// no token exists yet) and the expired-token cleanups the jobs room runs, from the `authentication` config.

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { TokenCleanupJob } from '../auth/cleanup.js';
import { ConfigError, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { AuthService } from '../services/auth.js';
import type { Database } from '../storage/schema.js';

/** Creates the bootstrap token if the token method is enabled and no token exists. */
export async function bootstrapTokenAuthentication(auth: AuthService, config: Config, logger: Logger): Promise<void> {
  const token = config.authentication.methods.token;
  if (!token.enabled) return;
  const expirationMs = ms(token.bootstrap.expiration);
  const created = await auth.bootstrap({
    clientToken: token.bootstrap.token,
    ...(expirationMs > 0 ? { expiresAt: new Date(Date.now() + expirationMs) } : {}),
    metadata: token.bootstrap.metadata,
  });
  if (!created) return;
  if (token.bootstrap.token) {
    // The operator chose the token, so it is not repeated in the log.
    logger.info({ id: created.authentication.id }, 'access token created (the configured bootstrap token)');
  } else {
    // Shown once, as Flipt does: the only way to learn a generated bootstrap token.
    logger.info({ id: created.authentication.id, bootstrapClientToken: created.clientToken }, 'access token created');
  }
}

/**
 * The cleanup of expired tokens, when the token method is enabled. Its interval is checked either way:
 * the change log's retention runs on it too (changes-retention.ts).
 */
export function createTokenCleanup(db: Kysely<Database>, config: Config, logger: Logger): TokenCleanupJob | undefined {
  const token = config.authentication.methods.token;
  const intervalMs = ms(token.cleanup.interval);
  const gracePeriodMs = ms(token.cleanup.grace_period);
  for (const [key, value] of [
    ['interval', intervalMs],
    ['grace_period', gracePeriodMs],
  ] as const) {
    if (!(value > 0))
      throw new ConfigError(`invalid config at authentication.methods.token.cleanup.${key}: must be greater than 0`);
  }
  if (!token.enabled) return undefined;
  return new TokenCleanupJob({ db, intervalMs, gracePeriodMs, logger });
}

/**
 * The cleanup of a method that makes sessions (OIDC, Kubernetes): its expired authentications after its
 * `cleanup.grace_period`; one of OIDC's and GitHub's also removes abandoned sign-ins.
 */
export function createSessionCleanup(
  db: Kysely<Database>,
  config: Config,
  logger: Logger,
  name: 'oidc' | 'github' | 'kubernetes',
): TokenCleanupJob | undefined {
  const settings = config.authentication.methods[name];
  if (!settings.enabled) return undefined;
  const intervalMs = ms(settings.cleanup.interval);
  const gracePeriodMs = ms(settings.cleanup.grace_period);
  for (const [key, value] of [
    ['interval', intervalMs],
    ['grace_period', gracePeriodMs],
  ] as const) {
    if (!(value > 0))
      throw new ConfigError(`invalid config at authentication.methods.${name}.cleanup.${key}: must be greater than 0`);
  }
  const method = name === 'oidc' ? 'METHOD_OIDC' : name === 'github' ? 'METHOD_GITHUB' : 'METHOD_KUBERNETES';
  // Abandoned sign-ins of every method are removed by one job (OIDC's, else GitHub's).
  const loginStates = name === 'oidc' || (name === 'github' && !config.authentication.methods.oidc.enabled);
  return new TokenCleanupJob({ db, intervalMs, gracePeriodMs, logger, method, loginStates });
}
