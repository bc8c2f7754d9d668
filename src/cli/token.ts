// `vexil token create|list|delete`: manage API tokens directly in the database named by the config,
// for operators who have no token yet (or lost it). Output is the API's JSON, so it can be scripted;
// every expected failure is one line on stderr and exit code 1.

import { Command, InvalidArgumentError as CommanderArgumentError } from 'commander';
import { authenticationToWire, createdTokenToWire } from '../api/http/schemas/auth.js';
import { migrateToLatest } from '../app/migrations.js';
import { parseTimestamp } from '../auth/timestamp.js';
import { askedRoles } from '../auth/token-grants.js';
import { announceRevokedToken } from '../cache/invalidation.js';
import { parseDuration } from '../config/duration.js';
import { ConfigError, loadConfig, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { AUTH_METHODS, type AuthMethod } from '../domain/authentication.js';
import { DomainError, NotFoundError } from '../domain/errors.js';
import type { RoleBinding } from '../domain/roles.js';
import { AuthService, type CreateTokenInput } from '../services/auth.js';
import { actingAs, CLI_ACTOR } from '../services/write.js';
import { sqlAuthenticationStore } from '../storage/authentications.js';
import { DbUrlError, openDb, waitForDb } from '../storage/db.js';
import { sqlOperationLockStore } from '../storage/operation-lock.js';

export interface TokenCreateOptions {
  name?: string;
  description?: string;
  namespace?: string;
  expiresAt?: string;
  expiresIn?: string;
  metadata?: string[];
  /** `role:namespace` pairs (repeatable): the token's roles (issue 41). */
  role?: string[];
}

export interface TokenListOptions {
  method?: string;
  limit?: string;
  pageToken?: string;
}

/** Runs `work` against the configured database (migrated first, as `serve` does). */
async function withAuthService<T>(config: Config, work: (auth: AuthService) => Promise<T>): Promise<T> {
  const db = openDb({ url: config.db.url });
  try {
    await waitForDb(db, ms(config.db.connect_timeout));
    await migrateToLatest(db.kysely, db.dialect);
    return await work(new AuthService(db.kysely, sqlAuthenticationStore, sqlOperationLockStore));
  } finally {
    await db.close();
  }
}

function parseMetadata(pairs: string[] = []): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CommanderArgumentError(`--metadata takes key=value, got "${pair}"`);
    metadata[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return metadata;
}

/** `--role viewer:team` pairs, checked as the API checks them (auth/token-grants.ts). */
function parseRoles(pairs: string[] | undefined, namespaceKey: string | undefined): RoleBinding[] | undefined {
  if (pairs === undefined || pairs.length === 0) return undefined;
  const asked = pairs.map((pair) => {
    const colon = pair.indexOf(':');
    if (colon <= 0)
      throw new CommanderArgumentError(`--role takes role:namespace (namespace a key or *), got "${pair}"`);
    return { role: pair.slice(0, colon), namespace: pair.slice(colon + 1) };
  });
  try {
    return askedRoles(asked, namespaceKey);
  } catch (err) {
    throw new CommanderArgumentError(`--role: ${(err as Error).message}`);
  }
}

export function tokenCreateInput(options: TokenCreateOptions, now: Date = new Date()): CreateTokenInput {
  if (options.expiresAt && options.expiresIn)
    throw new CommanderArgumentError('give --expires-at or --expires-in, not both');
  let expiresAt: Date | undefined;
  if (options.expiresAt) expiresAt = parseTimestamp('expiresAt', options.expiresAt);
  if (options.expiresIn) {
    const duration = parseDuration(options.expiresIn);
    if (duration === undefined || duration <= 0) {
      throw new CommanderArgumentError(
        `--expires-in takes a positive duration such as 24h, got "${options.expiresIn}"`,
      );
    }
    expiresAt = new Date(now.getTime() + duration);
  }
  const metadata = parseMetadata(options.metadata);
  const roles = parseRoles(options.role, options.namespace);
  return {
    ...(roles !== undefined ? { roles } : {}),
    name: options.name ?? '',
    ...(options.description ? { description: options.description } : {}),
    ...(options.namespace ? { namespaceKey: options.namespace } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  };
}

export async function createTokenCommand(config: Config, options: TokenCreateOptions): Promise<string> {
  const input = tokenCreateInput(options);
  const created = await withAuthService(config, (auth) => actingAs(CLI_ACTOR, () => auth.createToken(input)));
  return JSON.stringify(createdTokenToWire(created), null, 2);
}

export async function listTokensCommand(config: Config, options: TokenListOptions): Promise<string> {
  const method = options.method ?? 'METHOD_TOKEN';
  if (!AUTH_METHODS.includes(method as AuthMethod)) {
    throw new CommanderArgumentError(`--method takes one of ${AUTH_METHODS.join(', ')}`);
  }
  const limit = options.limit === undefined ? 0 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new CommanderArgumentError('--limit takes a whole number');
  const page = await withAuthService(config, (auth) =>
    auth.list({
      ...(method !== 'METHOD_NONE' ? { method: method as AuthMethod } : {}),
      limit,
      pageToken: options.pageToken ?? '',
    }),
  );
  return JSON.stringify(
    { authentications: page.items.map(authenticationToWire), nextPageToken: page.nextPageToken },
    null,
    2,
  );
}

/**
 * Deletes a token. Running servers refuse it within `cache.poll_interval`; with the Redis cache
 * configured the deletion is also announced there, so they refuse it at once. When Redis cannot be
 * reached the deletion still stands, and `warn` says the servers will learn of it by polling.
 */
export async function deleteTokenCommand(
  config: Config,
  id: string,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<string> {
  await withAuthService(config, async (auth) => {
    // An unknown id is an operator's typo: say so instead of succeeding silently as the API does.
    await auth.get(id).catch((err: unknown) => {
      throw err instanceof NotFoundError ? new NotFoundError(`authentication "${id}"`) : err;
    });
    await actingAs(CLI_ACTOR, () => auth.delete(id));
  });
  if (config.cache.enabled && config.cache.backend === 'redis') {
    const announced = await announceRevokedToken(config.cache.redis, id, {
      netTimeoutMs: ms(config.cache.redis.net_timeout),
    });
    if (!announced) {
      warn(
        `vexil: redis not reachable; running servers stop accepting the token at their next poll (cache.poll_interval ${config.cache.poll_interval})`,
      );
    }
  }
  return `deleted ${id}`;
}

function describe(err: unknown): string {
  if (err instanceof ConfigError || err instanceof DbUrlError || err instanceof DomainError) return err.message;
  if (err instanceof CommanderArgumentError) return err.message;
  return (err as Error)?.message?.split('\n')[0] ?? String(err);
}

/** The `token` command; `configFile` reads the program's global `--config` when the action runs. */
export function buildTokenCommand(configFile: () => string | undefined): Command {
  const run = async (work: (config: Config) => Promise<string>) => {
    try {
      const config = loadConfig({ ...(configFile() ? { file: configFile() } : {}) });
      process.stdout.write(`${await work(config)}\n`);
    } catch (err) {
      process.stderr.write(`vexil: ${describe(err)}\n`);
      process.exitCode = 1;
    }
  };
  const collect = (value: string, previous: string[] = []) => [...previous, value];

  const token = new Command('token').description('manage API tokens in the database (authentication.methods.token)');
  token
    .command('create')
    .description('create a token and print it once, with its authentication (JSON)')
    .option('--name <name>', 'token name', '')
    .option('--description <text>', 'token description')
    .option('--namespace <key>', 'restrict the token to one namespace')
    .option('--expires-at <time>', 'expiry as an RFC 3339 timestamp')
    .option('--expires-in <duration>', 'expiry from now, e.g. 24h')
    .option('--metadata <key=value>', 'extra metadata (repeatable)', collect)
    .option(
      '--role <role:namespace>',
      'a role the token holds, e.g. client:production or viewer:* (repeatable)',
      collect,
    )
    .action((options: TokenCreateOptions) => run((config) => createTokenCommand(config, options)));
  token
    .command('list')
    .description('list authentications (JSON), oldest first')
    .option('--method <method>', `one of ${AUTH_METHODS.join(', ')} (METHOD_NONE: all)`, 'METHOD_TOKEN')
    .option('--limit <n>', 'page size (default 25, max 100)')
    .option('--page-token <offset>', 'nextPageToken of the previous page')
    .action((options: TokenListOptions) => run((config) => listTokensCommand(config, options)));
  token
    .command('delete')
    .description('delete a token by id; servers refuse it within cache.poll_interval, at once with the Redis cache')
    .argument('<id>', 'authentication id')
    .action((id: string) => run((config) => deleteTokenCommand(config, id)));
  return token;
}
