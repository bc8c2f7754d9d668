// /auth/v1: token creation (only when the token method is enabled, else the route does not exist),
// the caller's own authentication, listing/reading/deleting authentications, and the public list of
// methods. Who may call what follows from each route's kind and access (auth/authorize.ts).

import Type from 'typebox';
import { clearedSessionCookies } from '../../../auth/credentials.js';
import { parseTimestamp } from '../../../auth/timestamp.js';
import { administersToken, askedRoles, checkAdministers, checkTokenGrant } from '../../../auth/token-grants.js';
import { AUTH_METHODS, type AuthMethod, isStored } from '../../../domain/authentication.js';
import { InvalidArgumentError, UnauthenticatedError } from '../../../domain/errors.js';
import { authMethodsToWire, enabledMethods } from '../../resource-shapes.js';
import type { HttpApp } from '../http-app.js';
import {
  AuthenticationListQuerystring,
  AuthenticationListSchema,
  AuthenticationSchema,
  AuthMethodsSchema,
  authenticationToWire,
  CreateTokenBody,
  CreateTokenResponseSchema,
  createdTokenToWire,
  ExpireSelfQuerystring,
} from '../schemas/auth.js';
import { EmptySchema, errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

const tags = ['auth'];
/** A JWT is not stored, so there is nothing to expire: it ends at its own `exp`. */
export const NOTHING_TO_EXPIRE = 'a JWT is not stored and cannot be expired; it ends at its exp claim';
const IdParams = Type.Object({ id: Type.String() });

function parseMethod(value: string | undefined): AuthMethod | undefined {
  if (value === undefined || value === '') return undefined;
  const method = /^[0-9]+$/.test(value) ? AUTH_METHODS[Number(value)] : AUTH_METHODS.find((m) => m === value);
  if (method === undefined) throw new InvalidArgumentError(`invalid value for enum field method: "${value}"`);
  return method === 'METHOD_NONE' ? undefined : method;
}

export async function authRoutes(app: HttpApp, { config, services }: RouteDeps): Promise<void> {
  const { auth } = services;
  const tokenMethod = config.authentication.methods.token;

  if (tokenMethod.enabled) {
    app.post(
      '/auth/v1/method/token',
      {
        config: { kind: 'auth', access: { resource: 'token', action: 'create', namespace: 'none' } },
        schema: { tags, body: CreateTokenBody, response: { 200: CreateTokenResponseSchema, ...errorResponses } },
      },
      async (request) => {
        const body = request.body;
        const namespaceKey = body.namespaceKey ?? undefined;
        const roles = askedRoles(body.roles, namespaceKey);
        checkTokenGrant(request.authentication, namespaceKey, roles);
        const created = await auth.createToken({
          ...(roles !== undefined ? { roles } : {}),
          ...(body.name != null ? { name: body.name } : {}),
          ...(body.description != null ? { description: body.description } : {}),
          ...(body.expiresAt != null && body.expiresAt !== ''
            ? { expiresAt: parseTimestamp('expiresAt', body.expiresAt) }
            : {}),
          ...(body.namespaceKey != null ? { namespaceKey: body.namespaceKey } : {}),
          ...(body.metadata != null ? { metadata: body.metadata } : {}),
        });
        return createdTokenToWire(created);
      },
    );
  }

  app.get(
    '/auth/v1/method',
    {
      config: { kind: 'auth-methods', access: { resource: 'sign-in', action: 'read', namespace: 'none' } },
      schema: { tags, response: { 200: AuthMethodsSchema, ...errorResponses } },
    },
    async () => authMethodsToWire(enabledMethods(config)),
  );

  app.get(
    '/auth/v1/self',
    {
      // Reading oneself: the one token call a namespace-scoped token may make (auth/access.ts `self`).
      config: { kind: 'auth', access: { resource: 'token', action: 'read', namespace: 'none', self: true } },
      schema: { tags, response: { 200: AuthenticationSchema, ...errorResponses } },
    },
    async (request) => {
      // With authentication not required no token is resolved, so there is no "self" (Flipt: 401).
      if (!request.authentication) throw new UnauthenticatedError();
      return authenticationToWire(request.authentication);
    },
  );

  app.put(
    '/auth/v1/self/expire',
    {
      config: { kind: 'auth', access: { resource: 'token', action: 'update', namespace: 'none', selfExpire: true } },
      schema: { tags, querystring: ExpireSelfQuerystring, response: { 200: EmptySchema, ...errorResponses } },
    },
    async (request, reply) => {
      if (!request.authentication) throw new UnauthenticatedError();
      if (!isStored(request.authentication)) throw new InvalidArgumentError(NOTHING_TO_EXPIRE);
      const raw = request.query.expiresAt ?? request.query.expires_at;
      const expiresAt = raw === undefined || raw === '' ? new Date() : parseTimestamp('expiresAt', raw);
      await auth.expire(request.authentication.id, expiresAt);
      reply.header('set-cookie', clearedSessionCookies(config.authentication.session.domain));
      return {};
    },
  );

  app.get(
    '/auth/v1/tokens',
    {
      config: { kind: 'auth', access: { resource: 'token', action: 'read', namespace: 'none' } },
      schema: {
        tags,
        querystring: AuthenticationListQuerystring,
        response: { 200: AuthenticationListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query;
      const method = parseMethod(q.method);
      const limit = q.limit === undefined ? 0 : Number(q.limit);
      if (limit > 2 ** 31 - 1) throw new InvalidArgumentError('limit must be int32');
      const page = await auth.list({
        ...(method ? { method } : {}),
        limit,
        pageToken: q.pageToken ?? q.page_token ?? '',
      });
      // Filtered, never refused: the tokens the caller administers (a page may come back shorter).
      const caller = request.authentication;
      const items = page.items.filter((token) => administersToken(caller, token));
      return { authentications: items.map(authenticationToWire), nextPageToken: page.nextPageToken };
    },
  );

  app.get(
    '/auth/v1/tokens/:id',
    {
      config: { kind: 'auth', access: { resource: 'token', action: 'read', namespace: 'none' } },
      schema: { tags, params: IdParams, response: { 200: AuthenticationSchema, ...errorResponses } },
    },
    async (request) => {
      const token = await auth.get(request.params.id);
      checkAdministers(request.authentication, token);
      return authenticationToWire(token);
    },
  );

  app.delete(
    '/auth/v1/tokens/:id',
    {
      config: { kind: 'auth', access: { resource: 'token', action: 'delete', namespace: 'none' } },
      schema: { tags, params: IdParams, response: { 200: EmptySchema, ...errorResponses } },
    },
    async (request) => {
      await auth.deleteAs(request.authentication, request.params.id);
      return {};
    },
  );
}
