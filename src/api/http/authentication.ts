// The bearer check of the HTTP API. With `authentication.required: false` (the default) nothing is
// installed: no hook runs and no token is resolved, as in Flipt. With `required: true`:
// - onRequest: a protected route (its kind's access, route-kinds.ts) needs a live token (Bearer header or the
//   dashboard cookie), else 401 `request was not authenticated` with the WWW-Authenticate header;
//   it runs before body parsing and validation, so an unauthenticated bad request gets 401, not 400.
//   Two Authorization headers are 400 (a proxy may have read the other one); a write authenticated by
//   the cookie alone must pass the cross-site check of csrf.ts, else 403.
// - preValidation: a token restricted to a namespace may only address that namespace, else 403
//   (Flipt answers 401 here; see docs/api.md's compatibility notes). It runs once the body is parsed.
// A token is looked up by hash in the database the first time this instance sees it; after that the
// token cache answers (auth/token-cache.ts) with no promise and no database read. A token deleted or
// expired here stops at once; one deleted elsewhere within `cache.poll_interval` (ADR 0010).

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { allowsNamespaceScopedTokens, isExcluded } from '../../auth/access-groups.js';
import { hashClientToken } from '../../auth/client-token.js';
import {
  clearedSessionCookies,
  cookieValue,
  presentedJwt,
  presentedToken,
  repeatsAuthorization,
  TOKEN_COOKIE,
} from '../../auth/credentials.js';
import { namespaceAllowed, namespaceParamOf } from '../../auth/namespace-scope.js';
import { isOwnAuthenticationRead } from '../../auth/scoped-self.js';
import type { Config } from '../../config/schema.js';
import { type Authentication, tokenNamespace } from '../../domain/authentication.js';
import { InvalidArgumentError, PermissionDeniedError, UnauthenticatedError } from '../../domain/errors.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { AuthService } from '../../services/auth.js';
import { isStateChanging, mayWriteWithCookie, trustedOrigins } from './csrf.js';
import type { HttpApp } from './http-app.js';
import { policyOf, type RouteAccess } from './route-kinds.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's authentication; set only when authentication is required and the route is protected. */
    authentication: Authentication | null;
  }
}

/**
 * The last token each connection presented, with its hash. Hashing on every request was a visible
 * share of an authenticated evaluation (measured: docs/performance.md); a keep-alive client sends the same token on
 * every request, so it is hashed once per connection. The plaintext is kept only as long as the
 * connection that carried it, never in the token cache.
 */
const lastTokenOf = new WeakMap<object, { token: string; hash: string }>();

function hashOnConnection(connection: object, token: string): string {
  const last = lastTokenOf.get(connection);
  if (last !== undefined && last.token === token) return last.hash;
  const hash = hashClientToken(token);
  lastTokenOf.set(connection, { token, hash });
  return hash;
}

export interface AuthenticationDeps {
  config: Config;
  auth: AuthService;
  /** Stream tickets (ofrep.event_streams on): accepted on routes whose kind says so, nowhere else. */
  tickets?: { verify(ticket: string, namespaceKey: string): Promise<Authentication | undefined> };
}

/** The `ticket` query parameter and the addressed namespace of a route that accepts stream tickets. */
function streamTicketOf(request: FastifyRequest, url: string): { ticket: string; namespaceKey: string } | undefined {
  if (!policyOf(request.routeOptions).acceptsStreamTicket) return undefined;
  const ticket = (request.query as Record<string, unknown> | undefined)?.ticket;
  const param = namespaceParamOf(url);
  if (param === undefined || typeof ticket !== 'string') return undefined;
  // Before the handler resolves the path (namespace-default.ts): an empty namespace is `default` here too.
  return { ticket, namespaceKey: namespaceKeyOrDefault((request.params as Record<string, unknown>)[param]) };
}

export const REPEATED_AUTHORIZATION = 'request has more than one Authorization header';
export const CROSS_SITE_WRITE =
  'cross-site request refused: a write authenticated by cookie must come from this origin';

/** Call before any route is registered. */
export function installAuthentication(app: HttpApp, { config, auth, tickets }: AuthenticationDeps): void {
  app.decorateRequest('authentication', null);
  const settings = config.authentication;
  if (settings.exclude.metadata) {
    app.logger.warn(
      'authentication.exclude.metadata is deprecated and ignored: /meta/* always requires authentication when required',
    );
  }
  if (!settings.required) return;

  const trusted = trustedOrigins(settings.session.csrf.trusted_origins);
  // Each route's access follows from its kind; found on a route's first request and kept by template.
  const decisions = new Map<string, RouteAccess>();
  const accessOf = (request: FastifyRequest, url: string): RouteAccess => {
    let access = decisions.get(url);
    if (access === undefined) {
      access = policyOf(request.routeOptions).access;
      decisions.set(url, access);
    }
    return access;
  };

  const reject = (request: FastifyRequest, reply: FastifyReply, url: string, done: HookHandlerDoneFunction) => {
    if (url.startsWith('/auth/v1') && cookieValue(request.headers.cookie, TOKEN_COOKIE) !== undefined) {
      reply.header('set-cookie', clearedSessionCookies(settings.session.domain));
    }
    done(new UnauthenticatedError());
  };

  app.addHook('onRequest', (request, reply, done) => {
    const url = request.routeOptions.url;
    // No route matched: the 404/501 answer comes before authentication, as grpc-gateway routes first.
    if (url === undefined) return done();
    const access = accessOf(request, url);
    if (access.open || isExcluded(access.group, settings.exclude)) return done();

    const token = presentedToken(request.headers);
    const accept = (found: Authentication | null | undefined) => {
      if (!found) return reject(request, reply, url, done);
      request.authentication = found;
      if (
        tokenNamespace(found) !== undefined &&
        !allowsNamespaceScopedTokens(access.group) &&
        !isOwnAuthenticationRead(request.method, request.routeOptions.url)
      ) {
        return done(new PermissionDeniedError());
      }
      done();
    };
    if (token === undefined && tickets !== undefined) {
      const presented = streamTicketOf(request, url);
      if (presented !== undefined) {
        tickets.verify(presented.ticket, presented.namespaceKey).then(accept, (err: unknown) => done(err as Error));
        return;
      }
    }
    if (token === '' && auth.jwt !== undefined) {
      // Not a Bearer credential: Flipt's `JWT <token>` scheme, when that method is on (methods/jwt.ts).
      const jwt = presentedJwt(request.headers.authorization);
      if (jwt !== undefined) {
        if (repeatsAuthorization(request.raw.rawHeaders)) return done(new InvalidArgumentError(REPEATED_AUTHORIZATION));
        auth.jwt.verify(jwt).then(accept, (err: unknown) => done(err as Error));
        return;
      }
    }
    if (token === undefined || token === '') return reject(request, reply, url, done);
    if (request.headers.authorization !== undefined) {
      if (repeatsAuthorization(request.raw.rawHeaders)) return done(new InvalidArgumentError(REPEATED_AUTHORIZATION));
    } else if (isStateChanging(request.method) && !mayWriteWithCookie(request, trusted)) {
      // The token came from the cookie, which a browser also sends with other sites' requests (csrf.ts).
      return done(new PermissionDeniedError(CROSS_SITE_WRITE));
    }
    // (An injected request may come without a socket: then the memo lives with the request.)
    const hash = hashOnConnection(request.raw.socket ?? request.raw, token);
    const known = auth.rememberedAuthentication(hash);
    if (known !== undefined) return accept(known);
    auth.lookUpAuthentication(hash).then(accept, (err: unknown) => done(err as Error));
  });

  app.addHook('preValidation', (request, _reply, done) => {
    const scope = request.authentication ? tokenNamespace(request.authentication) : undefined;
    if (scope === undefined || isOwnAuthenticationRead(request.method, request.routeOptions.url)) return done();
    const allowed = namespaceAllowed(scope, {
      routeUrl: request.routeOptions.url ?? '',
      method: request.method,
      params: request.params,
      query: request.query,
      body: request.body,
    });
    done(allowed ? undefined : new PermissionDeniedError());
  });
}
