// The OIDC method (`authentication.methods.oidc`): sign-in through OpenID providers with openid-client
// (a certified relying party), so no protocol step is written here. Each authorize request makes a
// fresh state, nonce and S256 PKCE verifier and stores them in the database (storage/login-states.ts);
// the callback consumes that row exactly once, lets openid-client exchange the code and check the ID
// token (signature, issuer, audience, expiry, nonce), then checks the person: `email_verified: false`
// and an email outside `email_matches` are refused. What comes back is the new session's metadata with
// Flipt's keys; the session itself is made by services/auth.ts (docs/adr/0037-sign-in-state-and-sessions.md).

import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import type { Authentication } from '../../domain/authentication.js';
import { InvalidArgumentError, NotFoundError, UnauthenticatedError, UnavailableError } from '../../domain/errors.js';
import { consumeLoginState, insertLoginState } from '../../storage/login-states.js';
import type { Database } from '../../storage/schema.js';

/** A provider's settings; config/auth-methods.ts has checked that the four URLs and ids are set. */
export interface OidcProviderSettings {
  issuer_url?: string;
  client_id?: string;
  client_secret?: string;
  redirect_address?: string;
  scopes?: string[];
}

export interface OidcSettings {
  email_matches: string[];
  providers: Record<string, OidcProviderSettings>;
}

/** The path of a provider's callback, as Flipt names it. */
export function oidcCallbackPath(provider: string): string {
  return `/auth/v1/method/oidc/${provider}/callback`;
}

export function oidcAuthorizePath(provider: string): string {
  return `/auth/v1/method/oidc/${provider}/authorize`;
}

/** A state is stored and looked up by its hash only. */
export function hashState(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

const refused = (reason: string) => new UnauthenticatedError(`sign-in refused: ${reason}`);

/** The metadata Flipt stores for an OIDC session, from the ID token's claims. */
export function oidcMetadata(provider: string, claims: Record<string, unknown>): Record<string, string> {
  const metadata: Record<string, string> = { 'io.flipt.auth.oidc.provider': provider };
  metadata['io.flipt.auth.claims'] = JSON.stringify(claims);
  const set = (key: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') metadata[key] = value;
  };
  for (const field of ['email', 'name', 'profile', 'picture', 'sub'] as const) {
    set(`io.flipt.auth.oidc.${field}`, claims[field]);
  }
  for (const field of ['email', 'name', 'picture'] as const) set(`io.flipt.auth.${field}`, claims[field]);
  if (typeof claims.email_verified === 'boolean') {
    metadata['io.flipt.auth.oidc.email_verified'] = String(claims.email_verified);
  }
  return metadata;
}

export class OidcMethod {
  readonly #configs = new Map<string, Promise<client.Configuration>>();
  readonly #emailMatches: RegExp[];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: OidcSettings,
    private readonly stateLifetimeMs: number,
  ) {
    this.#emailMatches = settings.email_matches.map((pattern) => new RegExp(pattern));
  }

  get providers(): string[] {
    return Object.keys(this.settings.providers);
  }

  #provider(name: string): Required<OidcProviderSettings> {
    const provider = Object.hasOwn(this.settings.providers, name) ? this.settings.providers[name] : undefined;
    if (provider === undefined) throw new NotFoundError(`provider "${name}" not found`);
    return {
      issuer_url: provider.issuer_url ?? '',
      client_id: provider.client_id ?? '',
      client_secret: provider.client_secret ?? '',
      redirect_address: provider.redirect_address ?? '',
      scopes: provider.scopes ?? [],
    };
  }

  callbackUrl(name: string): string {
    return this.#provider(name).redirect_address.replace(/\/+$/, '') + oidcCallbackPath(name);
  }

  /** The provider's discovered configuration; a failed discovery is tried again on the next request. */
  #config(name: string): Promise<client.Configuration> {
    const provider = this.#provider(name);
    let config = this.#configs.get(name);
    if (config === undefined) {
      config = client.discovery(
        new URL(provider.issuer_url),
        provider.client_id,
        provider.client_secret,
        client.ClientSecretBasic(provider.client_secret),
        // A loopback http issuer (a development provider) is the operator's choice.
        new URL(provider.issuer_url).protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      this.#configs.set(name, config);
      config.catch(() => this.#configs.delete(name));
    }
    return config.catch(() => {
      throw new UnavailableError(`the OpenID provider "${name}" could not be reached`);
    });
  }

  /**
   * Starts a sign-in: stores a new state with its nonce and PKCE verifier, and answers the provider's
   * authorize URL. `state` is the caller's (gRPC may choose it), else a random one.
   */
  async authorize(name: string, chosenState?: string): Promise<{ authorizeUrl: string; state: string }> {
    const provider = this.#provider(name);
    const config = await this.#config(name);
    const state = chosenState || client.randomState();
    if (state.length < 16 || state.length > 512) throw new InvalidArgumentError('state must be 16 to 512 characters');
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    const now = Date.now();
    await insertLoginState(this.db, {
      stateHash: hashState(state),
      method: 'METHOD_OIDC',
      provider: name,
      nonce,
      codeVerifier,
      createdAt: new Date(now),
      expiresAt: new Date(now + this.stateLifetimeMs),
    }).catch(() => {
      throw new InvalidArgumentError('state is already in use');
    });
    const scopes = new Set(['openid', ...provider.scopes]);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(name),
      scope: [...scopes].join(' '),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizeUrl: url.href, state };
  }

  /**
   * Finishes a sign-in: consumes the state (missing, unknown, replayed, expired or another provider's:
   * refused), exchanges the code and checks the ID token and the person. `query` is the callback's
   * query string as the provider sent it (code, state, iss, or error); `issuerKnown`: the caller named
   * the provider itself (gRPC), so a missing `iss` is the configured issuer's.
   */
  async callback(
    name: string,
    query: URLSearchParams,
    options: { issuerKnown?: boolean } = {},
  ): Promise<Record<string, string>> {
    this.#provider(name);
    const state = query.get('state') ?? '';
    if (state === '') throw refused('the state is missing');
    const stored = await consumeLoginState(this.db, hashState(state));
    if (stored === undefined || stored.method !== 'METHOD_OIDC' || stored.provider !== name) {
      throw refused('the state is unknown or was already used; start the sign-in again');
    }
    if (stored.expiresAt.getTime() <= Date.now()) throw refused('the sign-in took too long; start it again');
    const providerError = query.get('error');
    if (providerError) throw refused(`the provider answered ${providerError}`);
    const config = await this.#config(name);
    // Over gRPC Flipt's CallbackRequest carries no `iss` (RFC 9207): the provider is the one named.
    if (options.issuerKnown && !query.has('iss')) query.set('iss', config.serverMetadata().issuer);
    const currentUrl = new URL(this.callbackUrl(name));
    currentUrl.search = query.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        expectedState: state,
        expectedNonce: stored.nonce,
        pkceCodeVerifier: stored.codeVerifier,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
    } catch (err) {
      throw refused(exchangeFailure(err));
    }
    if (claims.email_verified === false) throw refused('the provider says the email address is not verified');
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    if (!this.emailAllowed(email)) throw refused('the email address is not allowed here');
    return oidcMetadata(name, claims);
  }

  /** Whether `email_matches` lets this email in (no patterns: every email, and none). */
  emailAllowed(email: string | undefined): boolean {
    if (this.#emailMatches.length === 0) return true;
    return email !== undefined && this.#emailMatches.some((pattern) => pattern.test(email));
  }

  /** Whether a stored session may still be used: its email still matches `email_matches`. */
  sessionAllowed(authentication: Authentication): boolean {
    if (authentication.method !== 'METHOD_OIDC') return true;
    return this.emailAllowed(authentication.metadata['io.flipt.auth.oidc.email']);
  }
}

/** Why openid-client refused the exchange, in words without the code or any token. */
function exchangeFailure(err: unknown): string {
  if (err instanceof client.ResponseBodyError) return `the provider refused the code (${err.error})`;
  if (err instanceof client.AuthorizationResponseError) return `the provider answered ${err.error}`;
  if (err instanceof client.ClientError) return `the provider's answer did not verify (${err.code ?? 'invalid'})`;
  return 'the provider could not be reached to exchange the code';
}
