// The bearer check of the HTTP API. With `authentication.required: false` (the default) nothing is
// installed: no hook runs and no token is resolved, as in Flipt. With `required: true`:
// - onRequest: a protected route (its kind's access, route-kinds.ts) needs a live token (Bearer header or the
//   dashboard cookie), else 401 `request was not authenticated` with the WWW-Authenticate header;
//   it runs before body parsing and validation, so an unauthenticated bad request gets 401, not 400.
//   Two Authorization headers are 400 (a proxy may have read the other one); a write authenticated by
//   the cookie alone must pass the cross-site check of csrf.ts, else 403.
// - authorization (auth/authorize.ts), from the route's declared access and its kind's group, decided
//   once per route at registration as far as it can be: in onRequest when the decision needs no input
//   (a scoped token on a group that refuses it, a `none` rule, reading oneself), else in preValidation,
//   once the body is parsed (the namespaces a request addresses), 403 when refused (Flipt answers 401
//   here; see docs/api.md's compatibility notes). Unscoped tokens are never asked for their input.
// A token is looked up by hash in the database the first time this instance sees it; after that the
// token cache answers (auth/token-cache.ts) with no promise and no database read. A token deleted or
// expired here stops at once; one deleted elsewhere within `cache.poll_interval` (ADR 0010).

import type { FastifyContextConfig, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Access } from '../../auth/access.js';
import { isExcluded } from '../../auth/access-groups.js';
import { addressedNamespaces, authorize, type DeclaredAccess, readsInput } from '../../auth/authorize.js';
import { hashClientToken } from '../../auth/client-token.js';
import {
  clearedSessionCookies,
  cookieValue,
  presentedJwt,
  presentedToken,
  REPEATED_AUTHORIZATION,
  repeatsAuthorization,
  TOKEN_COOKIE,
} from '../../auth/credentials.js';
import type { Config } from '../../config/schema.js';
import { type Authentication, tokenNamespace } from '../../domain/authentication.js';
import { InvalidArgumentError, PermissionDeniedError, UnauthenticatedError } from '../../domain/errors.js';
import type { AuthService } from '../../services/auth.js';
import { httpAccessInput } from './access-input.js';
import { isStateChanging, mayWriteWithCookie, trustedOrigins } from './csrf.js';
import type { HttpApp } from './http-app.js';
import { accessOf, policyOf } from './route-kinds.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's authentication; set only when authentication is required and the route is protected. */
    authentication: Authentication | null;
  }
  interface FastifyContextConfig {
    /** What authentication and authorization need of the route, worked out when it was registered. */
    authorization?: RouteAuthorization;
  }
}

/** A route's authentication and authorization, from its kind and its declared access. */
interface RouteAuthorization {
  /** No credential needed: open by its kind, or its group excluded by the config. */
  skips: boolean;
  declared: DeclaredAccess;
  /** Authorization reads the request's input (decided in preValidation, after body parsing). */
  readsInput: boolean;
  /** A stream ticket may stand in for the bearer token (the route's kind says so). */
  acceptsStreamTicket: boolean;
}

function routeAuthorization(
  route: { config?: unknown; url?: string | undefined },
  exclude: Config['authentication']['exclude'],
): RouteAuthorization {
  const policy = policyOf(route);
  const access = accessOf(route);
  const group = policy.access.open ? 'unclassified' : policy.access.group;
  return {
    skips: policy.access.open || isExcluded(group, exclude),
    declared: { access, group },
    readsInput: readsInput(access),
    acceptsStreamTicket: policy.acceptsStreamTicket === true,
  };
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
function streamTicketOf(
  request: FastifyRequest,
  access: Access | undefined,
): { ticket: string; namespaceKey: string } | undefined {
  const ticket = (request.query as Record<string, unknown> | undefined)?.ticket;
  if (access === undefined || typeof ticket !== 'string') return undefined;
  // A ticket is for one namespace: the one the route's rule reads (empty meaning `default`).
  const addressed = addressedNamespaces(access.namespace, httpAccessInput(request, access));
  return addressed?.length === 1 ? { ticket, namespaceKey: addressed[0] as string } : undefined;
}

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
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, authorization: routeAuthorization(route, settings.exclude) };
  });
  // Routes registered before this hook (the app's /openapi.json, the CORS preflight) are worked out on
  // their first request and kept.
  const late = new WeakMap<object, RouteAuthorization>();
  const authorizationOf = (config: FastifyContextConfig & { url?: string }): RouteAuthorization => {
    if (config.authorization !== undefined) return config.authorization;
    let found = late.get(config);
    if (found === undefined) {
      found = routeAuthorization({ config, url: config.url }, settings.exclude);
      late.set(config, found);
    }
    return found;
  };

  const reject = (request: FastifyRequest, reply: FastifyReply, url: string, done: HookHandlerDoneFunction) => {
    if (url.startsWith('/auth/v1') && cookieValue(request.headers.cookie, TOKEN_COOKIE) !== undefined) {
      reply.header('set-cookie', clearedSessionCookies(settings.session.domain));
    }
    done(new UnauthenticatedError());
  };

  app.addHook('onRequest', (request, reply, done) => {
    const options = request.routeOptions;
    const url = options.url;
    // No route matched: the 404/501 answer comes before authentication, as grpc-gateway routes first.
    if (url === undefined) return done();
    const route = authorizationOf(options.config);
    if (route.skips) return done();

    const token = presentedToken(request.headers);
    const accept = (found: Authentication | null | undefined) => {
      if (!found) return reject(request, reply, url, done);
      request.authentication = found;
      // What needs no input is decided now, before the body is read; the rest in preValidation.
      try {
        authorize(route.declared, found);
      } catch (err) {
        return done(err as Error);
      }
      done();
    };
    if (token === undefined && tickets !== undefined && route.acceptsStreamTicket) {
      const presented = streamTicketOf(request, route.declared.access);
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
    const found = request.authentication;
    // Unscoped callers without roles were allowed in onRequest: they pay two reads here. Scoped ones and
    // those with roles, on a rule that reads the input, were let through there only to be decided now.
    if (found === null || (found.roles === undefined && tokenNamespace(found) === undefined)) return done();
    const options = request.routeOptions;
    const route = authorizationOf(options.config);
    if (!route.readsInput) return done();
    try {
      authorize(route.declared, found, httpAccessInput(request, route.declared.access));
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
