// The GitHub method (`authentication.methods.github`): OAuth sign-in with GitHub or GitHub Enterprise
// (`server_url`, `api_url`), the OAuth steps done by openid-client. As for OIDC, each authorize request
// stores a fresh state and S256 PKCE verifier (storage/login-states.ts), consumed once at the callback.
// The person is read from GitHub's API (`/user`); with the `read:org` scope, their organisations and
// teams too (`/user/orgs`, `/user/teams`), and `allowed_organizations` / `allowed_teams` are enforced
// as Flipt does. What comes back is the session's metadata with Flipt's keys.

import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import { UnauthenticatedError, UnavailableError } from '../../domain/errors.js';
import { consumeLoginState, insertLoginState } from '../../storage/login-states.js';
import type { Database } from '../../storage/schema.js';
import { hashState } from './oidc.js';

export interface GithubSettings {
  client_id: string;
  client_secret: string;
  redirect_address: string;
  scopes: string[];
  server_url: string;
  api_url: string;
  allowed_organizations: string[];
  allowed_teams: Record<string, string[]>;
}

export const GITHUB_CALLBACK_PATH = '/auth/v1/method/github/callback';
export const GITHUB_AUTHORIZE_PATH = '/auth/v1/method/github/authorize';

const refused = (reason: string) => new UnauthenticatedError(`sign-in refused: ${reason}`);

interface GithubUser {
  name?: string | null;
  email?: string | null;
  avatar_url?: string | null;
  login?: string | null;
  id?: number | null;
}

export class GithubMethod {
  readonly #config: client.Configuration;
  readonly #apiUrl: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: GithubSettings,
    private readonly stateLifetimeMs: number,
  ) {
    const server = (settings.server_url || 'https://github.com').replace(/\/+$/, '');
    this.#apiUrl = (settings.api_url || 'https://api.github.com').replace(/\/+$/, '');
    this.#config = new client.Configuration(
      {
        issuer: server,
        authorization_endpoint: `${server}/login/oauth/authorize`,
        token_endpoint: `${server}/login/oauth/access_token`,
      },
      settings.client_id,
      settings.client_secret,
      client.ClientSecretPost(settings.client_secret),
    );
    // A loopback http server (GitHub Enterprise in development) is the operator's choice.
    if (server.startsWith('http:')) client.allowInsecureRequests(this.#config);
  }

  get callbackUrl(): string {
    return this.settings.redirect_address.replace(/\/+$/, '') + GITHUB_CALLBACK_PATH;
  }

  async authorize(chosenState?: string): Promise<{ authorizeUrl: string; state: string }> {
    const state = chosenState || client.randomState();
    if (state.length < 16 || state.length > 512) throw refused('state must be 16 to 512 characters');
    const codeVerifier = client.randomPKCECodeVerifier();
    const now = Date.now();
    await insertLoginState(this.db, {
      stateHash: hashState(state),
      method: 'METHOD_GITHUB',
      provider: 'github',
      nonce: '',
      codeVerifier,
      createdAt: new Date(now),
      expiresAt: new Date(now + this.stateLifetimeMs),
    });
    const url = client.buildAuthorizationUrl(this.#config, {
      redirect_uri: this.callbackUrl,
      ...(this.settings.scopes.length > 0 ? { scope: this.settings.scopes.join(' ') } : {}),
      state,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizeUrl: url.href, state };
  }

  async callback(query: URLSearchParams): Promise<Record<string, string>> {
    const state = query.get('state') ?? '';
    if (state === '') throw refused('the state is missing');
    const stored = await consumeLoginState(this.db, hashState(state));
    if (stored === undefined || stored.method !== 'METHOD_GITHUB') {
      throw refused('the state is unknown or was already used; start the sign-in again');
    }
    if (stored.expiresAt.getTime() <= Date.now()) throw refused('the sign-in took too long; start it again');
    const providerError = query.get('error');
    if (providerError) throw refused(`GitHub answered ${providerError}`);
    const currentUrl = new URL(this.callbackUrl);
    currentUrl.search = query.toString();
    let accessToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(this.#config, currentUrl, {
        expectedState: state,
        pkceCodeVerifier: stored.codeVerifier,
      });
      accessToken = tokens.access_token;
    } catch (err) {
      if (err instanceof client.ResponseBodyError) throw refused(`GitHub refused the code (${err.error})`);
      throw refused('GitHub could not be reached to exchange the code');
    }
    const user = await this.#api<GithubUser>(accessToken, '/user');
    const metadata: Record<string, string> = {};
    const set = (key: string, value: unknown) => {
      if (typeof value === 'string' && value !== '') metadata[key] = value;
    };
    set('io.flipt.auth.github.name', user.name);
    set('io.flipt.auth.github.email', user.email);
    set('io.flipt.auth.github.picture', user.avatar_url);
    if (typeof user.id === 'number' && user.id !== 0) set('io.flipt.auth.github.sub', String(user.id));
    set('io.flipt.auth.github.preferred_username', user.login);
    set('io.flipt.auth.email', user.email);
    set('io.flipt.auth.name', user.name);
    set('io.flipt.auth.picture', user.avatar_url);
    if (this.settings.scopes.includes('read:org')) {
      const orgs = new Set((await this.#api<{ login: string }[]>(accessToken, '/user/orgs')).map((org) => org.login));
      const teams = new Map<string, Set<string>>();
      for (const team of await this.#api<{ slug: string; organization: { login: string } }[]>(
        accessToken,
        '/user/teams?per_page=100',
      )) {
        const org = team.organization.login;
        if (!teams.has(org)) teams.set(org, new Set());
        teams.get(org)?.add(team.slug);
      }
      if (!this.#memberAllowed(orgs, teams)) throw refused('the GitHub user is not in an allowed organisation or team');
      this.#membership(metadata, orgs, teams);
    }
    return metadata;
  }

  /** Flipt's rule: in one allowed organisation, and (when teams are listed) in one of its allowed teams. */
  #memberAllowed(orgs: Set<string>, teams: Map<string, Set<string>>): boolean {
    const { allowed_organizations: allowedOrgs, allowed_teams: allowedTeams } = this.settings;
    if (allowedOrgs.length === 0) return true;
    return allowedOrgs.some((org) => {
      if (!orgs.has(org)) return false;
      if (Object.keys(allowedTeams).length === 0) return true;
      return (allowedTeams[org] ?? []).some((team) => teams.get(org)?.has(team));
    });
  }

  /** `organizations` (a JSON list) and `teams` (JSON by organisation), limited to the allowed ones. */
  #membership(metadata: Record<string, string>, orgs: Set<string>, teams: Map<string, Set<string>>): void {
    const { allowed_organizations: allowedOrgs, allowed_teams: allowedTeams } = this.settings;
    const orgList = allowedOrgs.length === 0 ? [...orgs] : allowedOrgs.filter((org) => orgs.has(org));
    metadata['io.flipt.auth.github.organizations'] = JSON.stringify(orgList);
    const byOrg: Record<string, string[]> = {};
    const add = (org: string, only?: string[]) => {
      const mine = teams.get(org);
      if (mine === undefined) return;
      const list = only === undefined ? [...mine] : only.filter((team) => mine.has(team));
      if (list.length > 0) byOrg[org] = list;
    };
    if (Object.keys(allowedTeams).length > 0) for (const [org, list] of Object.entries(allowedTeams)) add(org, list);
    else if (allowedOrgs.length > 0) for (const org of allowedOrgs) add(org);
    else for (const org of teams.keys()) add(org);
    metadata['io.flipt.auth.github.teams'] = JSON.stringify(byOrg);
  }

  async #api<T>(accessToken: string, path: string): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.#apiUrl + path, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json' },
        signal: AbortSignal.timeout(5000),
      });
    } catch {
      throw new UnavailableError('the GitHub API could not be reached');
    }
    if (!res.ok) throw refused(`the GitHub API answered ${res.status} to ${path.split('?')[0]}`);
    return (await res.json()) as T;
  }
}
