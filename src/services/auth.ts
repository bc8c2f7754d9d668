// Authentication use cases: creating tokens (the plaintext is returned once, only its hash is
// stored), resolving a presented token, listing, reading, expiring and deleting authentications, and
// the bootstrap token created at start when no token exists yet. With a token cache
// (auth/token-cache.ts) a presented token is read from the database once, not on every request.

import type { Kysely } from 'kysely';
import { generateClientToken, hashClientToken } from '../auth/client-token.js';
import type { GithubMethod } from '../auth/methods/github.js';
import type { JwtVerifier } from '../auth/methods/jwt.js';
import type { KubernetesVerifier } from '../auth/methods/kubernetes.js';
import type { OidcMethod } from '../auth/methods/oidc.js';
import type { RoleResolver } from '../auth/roles/resolver.js';
import type { TokenCache } from '../auth/token-cache.js';
import { checkAdministers } from '../auth/token-grants.js';
import { type Authentication, type AuthMethod, isExpired, TOKEN_METADATA } from '../domain/authentication.js';
import { NotFoundError, UnimplementedError } from '../domain/errors.js';
import type { RoleBinding } from '../domain/roles.js';
import { writeTime } from '../storage/rows.js';
import type { Database } from '../storage/schema.js';
import type { AuthenticationStore, OperationLockStore } from '../storage/store.js';
import { toDomainError } from '../storage/transaction.js';
import type { RecordedChanges } from './change-recorder.js';
import { requireMaxLength } from './validation.js';
import { recordedTransaction } from './write.js';

export interface SignInMethods {
  jwt?: JwtVerifier;
  oidc?: OidcMethod;
  kubernetes?: KubernetesVerifier;
  github?: GithubMethod;
  /** `authentication.session.token_lifetime` in ms. */
  sessionLifetimeMs?: number;
  /** People's roles by rule (`authorization.roles`); absent: people keep today's meaning. */
  roles?: RoleResolver;
}

export const DEFAULT_AUTH_LIST_LIMIT = 25;
export const MAX_AUTH_LIST_LIMIT = 100;

/** The row every instance locks while deciding whether to create the bootstrap token. */
export const BOOTSTRAP_OPERATION = 'bootstrap_auth_METHOD_TOKEN';

const BOOTSTRAP_ACTOR = { authentication: 'bootstrap' };

export interface CreateTokenInput {
  name?: string;
  description?: string;
  expiresAt?: Date;
  namespaceKey?: string;
  metadata?: Record<string, string>;
  /** Checked by auth/token-grants.ts; absent: made without roles. */
  roles?: readonly RoleBinding[];
}

export interface CreatedToken {
  /** The plaintext token: shown once, never stored. */
  clientToken: string;
  authentication: Authentication;
}

export interface AuthListQuery {
  method?: AuthMethod;
  /** 0 means the default (25); more than 100 is cut to 100. */
  limit?: number;
  /** A decimal row offset, as Flipt's SQL store writes it; anything else starts at the beginning. */
  pageToken?: string;
}

export interface BootstrapOptions {
  /** The configured token; a random one when empty. */
  clientToken?: string;
  expiresAt?: Date;
  /** Extra metadata; keys are lowercased as Flipt's config loader does. */
  metadata?: Record<string, string>;
}

/** Database timestamps keep milliseconds; trimming here makes the answer equal what is read back. */
function toMillis(date: Date): Date {
  return new Date(Math.trunc(date.getTime()));
}

/** Hashes re-read per query when the remembered tokens are checked again. */
const REFRESH_CHUNK = 500;

export class AuthService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly authentications: AuthenticationStore,
    private readonly locks: OperationLockStore,
    /** Absent: every presented token is looked up in the database (the CLI; `cache.poll_interval: 0`). */
    private readonly tokens?: TokenCache,
    /** Told of the token changes recorded (metrics, the audit outbox). */
    private readonly recorded?: RecordedChanges,
    /** The sign-in methods that are on (`authentication.methods.*`), and the lifetime of their sessions. */
    private readonly methods: SignInMethods = {},
  ) {}

  /**
   * The JWT method's verifier (`authentication.methods.jwt` on): `Authorization: JWT <token>`; what it
   * verifies comes with its roles, as every authentication found here does.
   */
  get jwt(): Pick<JwtVerifier, 'verify'> | undefined {
    const jwt = this.methods.jwt;
    const roles = this.methods.roles;
    if (jwt === undefined || roles === undefined || !roles.enabled) return jwt;
    return { verify: async (token) => roles.resolve(await jwt.verify(token)) };
  }

  /** People's roles by rule, when `authorization.roles` is configured. */
  get roles(): RoleResolver | undefined {
    return this.methods.roles?.enabled ? this.methods.roles : undefined;
  }

  /** `found` with the roles its identity holds (auth/roles/resolver.ts); tokens come as they are. */
  #withRoles(found: Authentication): Authentication {
    const roles = this.methods.roles;
    return roles === undefined ? found : roles.resolve(found);
  }

  get oidc(): OidcMethod | undefined {
    return this.methods.oidc;
  }

  /**
   * Finishes an OIDC sign-in (auth/methods/oidc.ts checks the state, the code and the person) and makes
   * its session: a new authentication of method OIDC, stored hashed as a token is, expiring after
   * `session.token_lifetime`. Every sign-in makes a new session (no fixation).
   */
  async oidcCallback(
    provider: string,
    query: URLSearchParams,
    options?: { issuerKnown?: boolean },
  ): Promise<CreatedToken> {
    const oidc = this.methods.oidc;
    if (oidc === undefined) throw new UnimplementedError('authentication method oidc is not enabled');
    const metadata = await oidc.callback(provider, query, options);
    return this.createSession('METHOD_OIDC', metadata);
  }

  get github(): GithubMethod | undefined {
    return this.methods.github;
  }

  /** Finishes a GitHub sign-in (auth/methods/github.ts) and makes its session, as `oidcCallback` does. */
  async githubCallback(query: URLSearchParams): Promise<CreatedToken> {
    const github = this.methods.github;
    if (github === undefined) throw new UnimplementedError('authentication method github is not enabled');
    return this.createSession('METHOD_GITHUB', await github.callback(query));
  }

  get kubernetesEnabled(): boolean {
    return this.methods.kubernetes !== undefined;
  }

  /**
   * Exchanges a verified Kubernetes service-account token for a client token that expires with it
   * (auth/methods/kubernetes.ts verifies it against the cluster).
   */
  async kubernetesLogin(serviceAccountToken: string): Promise<CreatedToken> {
    const kubernetes = this.methods.kubernetes;
    if (kubernetes === undefined) throw new UnimplementedError('authentication method kubernetes is not enabled');
    const account = await kubernetes.verify(serviceAccountToken);
    return this.createSession('METHOD_KUBERNETES', account.metadata, account.expiresAt);
  }

  /** A new session of a sign-in method, recorded as a token creation by the person signing in. */
  async createSession(method: AuthMethod, metadata: Record<string, string>, expiresAt?: Date): Promise<CreatedToken> {
    const clientToken = generateClientToken();
    const label = method.replace(/^METHOD_/, '').toLowerCase();
    const actor: { authentication: string; email?: string; name?: string } = { authentication: label };
    if (metadata['io.flipt.auth.email']) actor.email = metadata['io.flipt.auth.email'];
    if (metadata['io.flipt.auth.name']) actor.name = metadata['io.flipt.auth.name'];
    const authentication = await this.#record(async (tx, changes) => {
      const after = await this.authentications.insert(tx, {
        id: crypto.randomUUID(),
        hashedClientToken: hashClientToken(clientToken),
        method,
        metadata,
        expiresAt: toMillis(expiresAt ?? new Date(Date.now() + (this.methods.sessionLifetimeMs ?? 24 * 3_600_000))),
        createdAt: writeTime(),
      });
      changes.record({ resourceType: 'token', resourceKey: after.id, action: 'created', after });
      return after;
    }, actor);
    return { clientToken, authentication };
  }

  #find(db: Kysely<Database>, id: string): Promise<Authentication | undefined> {
    return this.authentications.get(db, id).catch((err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
  }

  /** Token writes are recorded like every other write, outside any namespace. */
  #record<T>(
    work: Parameters<typeof recordedTransaction<T>>[1],
    actor?: { authentication: string; email?: string; name?: string },
  ): Promise<T> {
    return recordedTransaction({ db: this.db, ...(this.recorded ? { recorded: this.recorded } : {}) }, work, {
      ...(actor ? { actor } : {}),
    });
  }

  /** Creates a METHOD_TOKEN authentication, as `POST /auth/v1/method/token` does (no validation, like Flipt). */
  async createToken(input: CreateTokenInput, clientToken: string = generateClientToken()): Promise<CreatedToken> {
    const metadata: Record<string, string> = { ...(input.metadata ?? {}) };
    metadata[TOKEN_METADATA.name] = input.name ?? '';
    if (input.description) metadata[TOKEN_METADATA.description] = input.description;
    if (input.namespaceKey) metadata[TOKEN_METADATA.namespace] = input.namespaceKey;
    const authentication = await this.#record(async (tx, changes) => {
      const after = await this.authentications.insert(tx, {
        id: crypto.randomUUID(),
        hashedClientToken: hashClientToken(clientToken),
        method: 'METHOD_TOKEN',
        metadata,
        ...(input.expiresAt ? { expiresAt: toMillis(input.expiresAt) } : {}),
        ...(input.roles !== undefined ? { roles: input.roles } : {}),
        createdAt: writeTime(),
      });
      changes.record({ resourceType: 'token', resourceKey: after.id, action: 'created', after });
      return after;
    });
    return { clientToken, authentication };
  }

  /** The authentication with this id, expired or not, or undefined. */
  find(id: string): Promise<Authentication | undefined> {
    requireMaxLength('id', id);
    return this.#find(this.db, id);
  }

  /**
   * What the token cache alone says of a presented token, given its hash (`hashClientToken`), with no
   * database read: its live authentication, null when the remembered token has expired, undefined
   * when it is not remembered (then call `lookUpAuthentication`). The bearer check's fast path.
   */
  rememberedAuthentication(hashedToken: string, nowMs: number = Date.now()): Authentication | null | undefined {
    if (this.tokens === undefined) return undefined;
    // Counted as a hit or a miss even while the cache is empty: the first token an instance sees is a miss.
    const state = this.tokens.lookup(hashedToken, nowMs);
    if (state === 'unknown') return undefined;
    return state === 'expired' ? null : this.#withRoles(state.live);
  }

  /**
   * The live authentication of a token the cache does not remember (`rememberedAuthentication` said
   * undefined), given its hash, or undefined (unknown or expired): looked up in the database and
   * remembered. The bearer check hashes each token once, for both steps.
   */
  async lookUpAuthentication(hash: string, now: Date = new Date()): Promise<Authentication | undefined> {
    const generation = this.tokens?.generation ?? 0;
    // A database outage must read as 503 on every protected route, not as a 500.
    const found = await this.authentications.findByHash(this.db, hash).catch((err: unknown) => {
      throw toDomainError(err);
    });
    if (found === undefined) return undefined;
    // A session whose email `email_matches` no longer lets in is never remembered, so never accepted:
    // the config cannot change while the process runs, so checking here is checking every request.
    if (this.methods.oidc !== undefined && !this.methods.oidc.sessionAllowed(found)) return undefined;
    this.tokens?.remember(hash, found, generation);
    return isExpired(found, now) ? undefined : this.#withRoles(found);
  }

  /**
   * Reads every remembered token again: one deleted elsewhere (another instance, `vexil token delete`)
   * is forgotten, one changed elsewhere (expired) is updated. Run every `cache.poll_interval`.
   */
  async refreshCachedTokens(): Promise<void> {
    const tokens = this.tokens;
    if (tokens === undefined || tokens.size === 0) return;
    const generation = tokens.generation;
    const hashes = tokens.hashes();
    for (let start = 0; start < hashes.length; start += REFRESH_CHUNK) {
      const chunk = hashes.slice(start, start + REFRESH_CHUNK);
      const found = await this.authentications.findByHashes(this.db, chunk);
      tokens.refresh(chunk, found, generation);
    }
  }

  list(query: AuthListQuery): Promise<{ items: Authentication[]; nextPageToken: string }> {
    const requested = query.limit ?? 0;
    const limit = requested <= 0 ? DEFAULT_AUTH_LIST_LIMIT : Math.min(requested, MAX_AUTH_LIST_LIMIT);
    const token = query.pageToken ?? '';
    const offset = /^[0-9]{1,15}$/.test(token) ? Number(token) : 0;
    return this.authentications.list(this.db, { ...(query.method ? { method: query.method } : {}), limit, offset });
  }

  get(id: string): Promise<Authentication> {
    requireMaxLength('id', id);
    return this.authentications.get(this.db, id);
  }

  /**
   * Deletes a token as `caller` may (auth/token-grants.ts): only one it administers. A caller without
   * roles reached this only unscoped (scoped tokens may not change tokens), so it is not looked up.
   * An unknown id is not an error, as in Flipt.
   */
  async deleteAs(caller: Authentication | null, id: string): Promise<void> {
    if (caller !== null && caller.roles !== undefined) {
      const token = await this.find(id);
      if (token !== undefined) checkAdministers(caller, token);
    }
    await this.delete(id);
  }

  async delete(id: string): Promise<void> {
    requireMaxLength('id', id);
    await this.#record(async (tx, changes) => {
      const before = await this.#find(tx, id);
      await this.authentications.delete(tx, id);
      if (before) changes.record({ resourceType: 'token', resourceKey: id, action: 'deleted', before });
    });
    this.tokens?.forget(id);
  }

  async expire(id: string, expiresAt: Date = new Date()): Promise<void> {
    await this.#record(async (tx, changes) => {
      const before = await this.#find(tx, id);
      await this.authentications.expire(tx, id, toMillis(expiresAt));
      const after = before ? await this.authentications.get(tx, id) : undefined;
      if (before) changes.record({ resourceType: 'token', resourceKey: id, action: 'updated', before, after });
    });
    this.tokens?.forget(id);
  }

  /**
   * Creates the initial token when no METHOD_TOKEN authentication exists; otherwise does nothing
   * (even when the configured token differs). Instances starting together on one database queue on
   * a row lock, so exactly one of them creates it. Returns the created token, if any.
   */
  async bootstrap(options: BootstrapOptions = {}): Promise<CreatedToken | undefined> {
    await this.locks.ensureRow(this.db, BOOTSTRAP_OPERATION);
    return this.#record(async (tx, changes) => {
      await this.locks.lockRow(tx, BOOTSTRAP_OPERATION);
      if ((await this.authentications.count(tx, 'METHOD_TOKEN')) > 0) return undefined;
      const clientToken = options.clientToken || generateClientToken();
      const metadata: Record<string, string> = {
        [TOKEN_METADATA.name]: 'initial_bootstrap_token',
        [TOKEN_METADATA.description]: 'Initial token created when bootstrapping authentication',
      };
      for (const [key, value] of Object.entries(options.metadata ?? {})) metadata[key.toLowerCase()] = value;
      const authentication = await this.authentications.insert(tx, {
        id: crypto.randomUUID(),
        hashedClientToken: hashClientToken(clientToken),
        method: 'METHOD_TOKEN',
        metadata,
        ...(options.expiresAt ? { expiresAt: toMillis(options.expiresAt) } : {}),
        createdAt: writeTime(),
      });
      changes.record({
        resourceType: 'token',
        resourceKey: authentication.id,
        action: 'created',
        after: authentication,
      });
      return { clientToken, authentication };
    }, BOOTSTRAP_ACTOR);
  }
}
