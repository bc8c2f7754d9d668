// flipt.auth: PublicAuthenticationService (the methods, open), AuthenticationService (self, tokens) and
// AuthenticationMethodTokenService (token creation) over the auth service, as /auth/v1 calls it.
// Token creation exists only while the token method is enabled: over HTTP the route is absent, here
// the call is UNIMPLEMENTED, as in Flipt, which registers no service for a disabled method.

import type { Access } from '../../auth/access.js';
import { administersToken, askedRoles, checkAdministers, checkTokenGrant } from '../../auth/token-grants.js';
import type { Config } from '../../config/schema.js';
import { AUTH_METHODS, type AuthMethod } from '../../domain/authentication.js';
import { InvalidArgumentError, UnauthenticatedError, UnimplementedError } from '../../domain/errors.js';
import type { Services } from '../../services/index.js';
import { authenticationToWire, authMethodsToWire, createdTokenToWire, enabledMethods } from '../resource-shapes.js';
import { type TimestampMessage, timestampText, wireToMessage } from './messages.js';
import type { Rpc, RpcContext } from './rpc.js';

// biome-ignore lint/suspicious/noExplicitAny: decoded messages; each adapter reads the fields its proto declares
type Req = any;

const EMPTY = Object.freeze({});

const token = (action: Access['action'], self?: 'self' | 'selfExpire'): Access => ({
  resource: 'token',
  action,
  namespace: 'none',
  ...(self === 'self' ? { self: true } : self === 'selfExpire' ? { selfExpire: true } : {}),
});
/** Sign-in comes before any credential: starting it reads a provider's address, finishing it makes a session. */
const SIGN_IN_START: Access = { resource: 'sign-in', action: 'read', namespace: 'none' };
const SIGN_IN_FINISH: Access = { resource: 'sign-in', action: 'create', namespace: 'none' };

/** An authentication's metadata is a map<string, string>, not a Struct. */
const message = (wire: unknown) => wireToMessage(wire, false);

function self(context: RpcContext) {
  // With authentication not required no token is resolved, so there is no "self" (Flipt: 401).
  if (!context.authentication) throw new UnauthenticatedError();
  return context.authentication;
}

function dateOf(timestamp: TimestampMessage | null | undefined): Date | undefined {
  return timestamp ? new Date(timestampText(timestamp)) : undefined;
}

export function publicAuthRpcs(config: Config): Rpc<never>[] {
  const listMethods: Rpc<Req> = {
    method: 'ListAuthenticationMethods',
    kind: 'auth-methods',
    access: SIGN_IN_START,
    // MethodInfo.metadata is a Struct.
    handle: () => wireToMessage(authMethodsToWire(enabledMethods(config))),
  };
  return [listMethods] as Rpc<never>[];
}

export function authRpcs({ auth }: Services): Rpc<never>[] {
  const rpcs: Rpc<Req>[] = [
    {
      method: 'GetAuthenticationSelf',
      kind: 'auth',
      // Reading oneself: the one token call a namespace-scoped token may make (auth/access.ts `self`).
      access: token('read', 'self'),
      handle: (_r, context) => message(authenticationToWire(self(context))),
    },
    {
      method: 'GetAuthentication',
      kind: 'auth',
      access: token('read'),
      async handle(r, context) {
        const found = await auth.get(r.id);
        checkAdministers(context.authentication, found);
        return message(authenticationToWire(found));
      },
    },
    {
      method: 'ListAuthentications',
      kind: 'auth',
      access: token('read'),
      async handle(r, context) {
        const method =
          AUTH_METHODS.includes(r.method) && r.method !== 'METHOD_NONE' ? (r.method as AuthMethod) : undefined;
        const page = await auth.list({ ...(method ? { method } : {}), limit: r.limit, pageToken: r.pageToken });
        // Filtered, never refused: the tokens the caller administers (a page may come back shorter).
        const items = page.items.filter((found) => administersToken(context.authentication, found));
        return message({ authentications: items.map(authenticationToWire), nextPageToken: page.nextPageToken });
      },
    },
    {
      method: 'DeleteAuthentication',
      kind: 'auth',
      access: token('delete'),
      write: true,
      async handle(r, context) {
        await auth.deleteAs(context.authentication, r.id);
        return EMPTY;
      },
    },
    {
      method: 'ExpireAuthenticationSelf',
      kind: 'auth',
      access: token('update', 'selfExpire'),
      write: true,
      async handle(r, context) {
        const id = self(context).id;
        // A JWT is not stored, so there is nothing to expire: it ends at its own `exp`.
        if (id === '')
          throw new InvalidArgumentError('a JWT is not stored and cannot be expired; it ends at its exp claim');
        await auth.expire(id, dateOf(r.expiresAt) ?? new Date());
        return EMPTY;
      },
    },
  ];
  return rpcs as Rpc<never>[];
}

export function tokenMethodRpcs({ auth }: Services, config: Config): Rpc<never>[] {
  const createToken: Rpc<Req> = {
    method: 'CreateToken',
    kind: 'auth',
    access: token('create'),
    write: true,
    async handle(r, context) {
      if (!config.authentication.methods.token.enabled) {
        throw new UnimplementedError('authentication method token is not enabled');
      }
      const expiresAt = dateOf(r.expiresAt);
      const namespaceKey: string = r.namespaceKey;
      const roles = askedRoles(r.roles, namespaceKey);
      checkTokenGrant(context.authentication, namespaceKey, roles);
      const created = await auth.createToken({
        ...(roles !== undefined ? { roles } : {}),
        name: r.name,
        description: r.description,
        ...(expiresAt ? { expiresAt } : {}),
        ...(r.namespaceKey ? { namespaceKey: r.namespaceKey } : {}),
        metadata: r.metadata,
      });
      return message(createdTokenToWire(created));
    },
  };
  return [createToken] as Rpc<never>[];
}

/** flipt.auth.AuthenticationMethodOIDCService: open calls; UNIMPLEMENTED while the method is off, as in Flipt. */
export function oidcMethodRpcs({ auth }: Services): Rpc<never>[] {
  const oidc = () => {
    if (auth.oidc === undefined) throw new UnimplementedError('authentication method oidc is not enabled');
    return auth.oidc;
  };
  const rpcs: Rpc<Req>[] = [
    {
      method: 'AuthorizeURL',
      kind: 'auth-methods',
      access: SIGN_IN_START,
      async handle(r) {
        // A gRPC client may choose the state (Flipt passes it through); it is stored and used once.
        const { authorizeUrl } = await oidc().authorize(r.provider, r.state || undefined);
        return { authorizeUrl };
      },
    },
    {
      method: 'Callback',
      kind: 'auth-methods',
      access: SIGN_IN_FINISH,
      async handle(r) {
        oidc();
        const query = new URLSearchParams();
        if (r.code) query.set('code', r.code);
        query.set('state', r.state ?? '');
        const created = await auth.oidcCallback(r.provider, query, { issuerKnown: true });
        return message(createdTokenToWire(created));
      },
    },
  ];
  return rpcs as Rpc<never>[];
}

/** flipt.auth.AuthenticationMethodKubernetesService: open; UNIMPLEMENTED while the method is off. */
export function kubernetesMethodRpcs({ auth }: Services): Rpc<never>[] {
  const verify: Rpc<Req> = {
    method: 'VerifyServiceAccount',
    kind: 'auth-methods',
    access: SIGN_IN_FINISH,
    async handle(r) {
      return message(createdTokenToWire(await auth.kubernetesLogin(r.serviceAccountToken ?? '')));
    },
  };
  return [verify] as Rpc<never>[];
}

/** flipt.auth.AuthenticationMethodGithubService: open; UNIMPLEMENTED while the method is off. */
export function githubMethodRpcs({ auth }: Services): Rpc<never>[] {
  const github = () => {
    if (auth.github === undefined) throw new UnimplementedError('authentication method github is not enabled');
    return auth.github;
  };
  const rpcs: Rpc<Req>[] = [
    {
      method: 'AuthorizeURL',
      kind: 'auth-methods',
      access: SIGN_IN_START,
      async handle(r) {
        const { authorizeUrl } = await github().authorize(r.state || undefined);
        return { authorizeUrl };
      },
    },
    {
      method: 'Callback',
      kind: 'auth-methods',
      access: SIGN_IN_FINISH,
      async handle(r) {
        github();
        const query = new URLSearchParams();
        if (r.code) query.set('code', r.code);
        query.set('state', r.state ?? '');
        return message(createdTokenToWire(await auth.githubCallback(query)));
      },
    },
  ];
  return rpcs as Rpc<never>[];
}
