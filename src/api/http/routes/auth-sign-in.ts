// The sign-in routes of the methods that make browser sessions (OIDC: /auth/v1/method/oidc/{provider}/…,
// GitHub: /auth/v1/method/github/…), present only while the method is on. Authorize answers
// `{authorizeUrl}` and sets the state cookie; the callback needs that cookie to hold the same state as
// the query (a sign-in finishes in the browser that began it), lets the method check everything else,
// clears the state cookie, sets the session cookie and redirects to the dashboard's root, a fixed
// same-origin path (never one taken from a header). A refused callback is 401 with the reason, except
// for a browser's navigation (Accept: text/html), which is sent to `/?signin=expired|refused` for the
// dashboard to explain. All are open routes (docs/adr/0030).

import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { Access } from '../../../auth/access.js';
import {
  clearedStateCookie,
  cookieValue,
  STATE_COOKIE,
  sessionCookie,
  stateCookie,
} from '../../../auth/credentials.js';
import { GITHUB_AUTHORIZE_PATH, GITHUB_CALLBACK_PATH } from '../../../auth/methods/github.js';
import { hashState, oidcCallbackPath } from '../../../auth/methods/oidc.js';
import { ms } from '../../../config/load.js';
import { UnauthenticatedError } from '../../../domain/errors.js';
import type { CreatedToken } from '../../../services/auth.js';
import type { HttpApp } from '../http-app.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

const tags = ['auth'];
const ProviderParams = Type.Object({ provider: Type.String() });
const AuthorizeResponse = Type.Object({ authorizeUrl: Type.String() });
/** Sign-in comes before any credential: starting it reads a provider's address, finishing it makes a session. */
const SIGN_IN_START: Access = { resource: 'sign-in', action: 'read', namespace: 'none' };
const SIGN_IN_FINISH: Access = { resource: 'sign-in', action: 'create', namespace: 'none' };

function sameState(a: string, b: string): boolean {
  // Compared by hash: equal lengths, and no timing on the state itself.
  return timingSafeEqual(Buffer.from(hashState(a)), Buffer.from(hashState(b)));
}

/** A browser's navigation asks for a page; API clients ask for JSON or anything. */
function wantsPage(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** Whether the sign-in failed on its state (missing, another browser's, used, expired): start again. */
function stateProblem(err: unknown): boolean {
  return err instanceof UnauthenticatedError && /state|took too long/.test(err.message);
}

export async function signInRoutes(app: HttpApp, { config, services }: RouteDeps): Promise<void> {
  const { oidc, github } = services.auth;
  const session = config.authentication.session;
  const stateLifetimeMs = ms(session.state_lifetime);

  const authorized = (reply: FastifyReply, answer: { authorizeUrl: string; state: string }, callbackPath: string) => {
    reply.header('set-cookie', stateCookie(answer.state, callbackPath, stateLifetimeMs, session));
    reply.header('cache-control', 'no-store');
    return { authorizeUrl: answer.authorizeUrl };
  };

  const callback = async (
    request: FastifyRequest,
    reply: FastifyReply,
    callbackPath: string,
    finish: (query: URLSearchParams) => Promise<CreatedToken>,
  ) => {
    reply.header('cache-control', 'no-store');
    // The state is good for this one attempt, whatever its outcome: its cookie goes.
    const clearState = clearedStateCookie(callbackPath, session);
    let created: CreatedToken;
    try {
      const query = new URLSearchParams(request.raw.url?.split('?')[1] ?? '');
      const state = query.get('state') ?? '';
      const cookie = cookieValue(request.headers.cookie, STATE_COOKIE);
      if (state === '' || cookie === undefined || !sameState(cookie, state)) {
        throw new UnauthenticatedError(
          'sign-in refused: the state is missing or is not the one this browser started; start the sign-in again',
        );
      }
      created = await finish(query);
    } catch (err) {
      reply.header('set-cookie', clearState);
      // A browser (the dashboard's sign-in) is sent back to the dashboard, which says what went wrong
      // in its own fixed words; any other client gets the 401 with the reason.
      if (wantsPage(request)) return reply.redirect(`/?signin=${stateProblem(err) ? 'expired' : 'refused'}`, 302);
      throw err;
    }
    reply.header('set-cookie', [
      clearState,
      sessionCookie(created.clientToken, created.authentication.expiresAt ?? new Date(), session),
    ]);
    return reply.redirect('/', 302);
  };

  if (oidc !== undefined) {
    app.get(
      '/auth/v1/method/oidc/:provider/authorize',
      {
        config: { kind: 'auth-methods', access: SIGN_IN_START },
        schema: { tags, params: ProviderParams, response: { 200: AuthorizeResponse, ...errorResponses } },
      },
      async (request, reply) => {
        const { provider } = request.params;
        return authorized(reply, await oidc.authorize(provider), oidcCallbackPath(provider));
      },
    );
    app.get(
      '/auth/v1/method/oidc/:provider/callback',
      {
        config: { kind: 'auth-methods', access: SIGN_IN_FINISH },
        schema: { tags, params: ProviderParams, response: errorResponses },
      },
      async (request, reply) => {
        const { provider } = request.params;
        return callback(request, reply, oidcCallbackPath(provider), (query) =>
          services.auth.oidcCallback(provider, query),
        );
      },
    );
  }

  if (github !== undefined) {
    app.get(
      GITHUB_AUTHORIZE_PATH,
      {
        config: { kind: 'auth-methods', access: SIGN_IN_START },
        schema: { tags, response: { 200: AuthorizeResponse, ...errorResponses } },
      },
      async (_request, reply) => authorized(reply, await github.authorize(), GITHUB_CALLBACK_PATH),
    );
    app.get(
      GITHUB_CALLBACK_PATH,
      { config: { kind: 'auth-methods', access: SIGN_IN_FINISH }, schema: { tags, response: errorResponses } },
      async (request, reply) =>
        callback(request, reply, GITHUB_CALLBACK_PATH, (query) => services.auth.githubCallback(query)),
    );
  }
}
