// /auth/v1/method/oidc/{provider}/authorize and /callback (authentication.methods.oidc on; the routes
// do not exist otherwise). Authorize answers `{authorizeUrl}` and sets the state cookie; the callback
// needs that cookie to hold the same state as the query (a sign-in finishes in the browser that began
// it), lets the OIDC method check everything else, sets the session cookie and redirects to the
// dashboard's root, a fixed same-origin path (never one taken from a header). Both are open routes.

import { timingSafeEqual } from 'node:crypto';
import Type from 'typebox';
import {
  clearedStateCookie,
  cookieValue,
  STATE_COOKIE,
  sessionCookie,
  stateCookie,
} from '../../../auth/credentials.js';
import { hashState, oidcCallbackPath } from '../../../auth/methods/oidc.js';
import { ms } from '../../../config/load.js';
import { UnauthenticatedError } from '../../../domain/errors.js';
import type { HttpApp } from '../http-app.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

const tags = ['auth'];
const ProviderParams = Type.Object({ provider: Type.String() });

function sameState(a: string, b: string): boolean {
  // Compared by hash: equal lengths, and no timing on the state itself.
  return timingSafeEqual(Buffer.from(hashState(a)), Buffer.from(hashState(b)));
}

export async function oidcRoutes(app: HttpApp, { config, services }: RouteDeps): Promise<void> {
  const oidc = services.auth.oidc;
  if (oidc === undefined) return;
  const session = config.authentication.session;
  const stateLifetimeMs = ms(session.state_lifetime);

  app.get(
    '/auth/v1/method/oidc/:provider/authorize',
    {
      config: { kind: 'auth-methods' },
      schema: {
        tags,
        params: ProviderParams,
        response: { 200: Type.Object({ authorizeUrl: Type.String() }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { provider } = request.params;
      const { authorizeUrl, state } = await oidc.authorize(provider);
      reply.header('set-cookie', stateCookie(state, oidcCallbackPath(provider), stateLifetimeMs, session));
      reply.header('cache-control', 'no-store');
      return { authorizeUrl };
    },
  );

  app.get(
    '/auth/v1/method/oidc/:provider/callback',
    { config: { kind: 'auth-methods' }, schema: { tags, params: ProviderParams, response: errorResponses } },
    async (request, reply) => {
      const { provider } = request.params;
      reply.header('cache-control', 'no-store');
      // The state is good for this one attempt, whatever its outcome: its cookie goes.
      const clearState = clearedStateCookie(oidcCallbackPath(provider), session);
      let created: Awaited<ReturnType<typeof services.auth.oidcCallback>>;
      try {
        const query = new URLSearchParams(request.raw.url?.split('?')[1] ?? '');
        const state = query.get('state') ?? '';
        const cookie = cookieValue(request.headers.cookie, STATE_COOKIE);
        if (state === '' || cookie === undefined || !sameState(cookie, state)) {
          throw new UnauthenticatedError(
            'sign-in refused: the state is missing or is not the one this browser started; start the sign-in again',
          );
        }
        created = await services.auth.oidcCallback(provider, query);
      } catch (err) {
        reply.header('set-cookie', clearState);
        throw err;
      }
      reply.header('set-cookie', [
        clearState,
        sessionCookie(created.clientToken, created.authentication.expiresAt ?? new Date(), session),
      ]);
      return reply.redirect('/', 302);
    },
  );
}
