// Wire shapes of /auth/v1 (Flipt's auth.proto through grpc-gateway): Authentication, token creation,
// the authentication list and the public list of methods.

import Type from 'typebox';
import { AUTH_METHODS } from '../../../domain/authentication.js';
import { Nullable, Timestamp } from './common.js';

const StringMap = Type.Record(Type.String(), Type.String());

/** Vexil's extension (issue 41): one role on one namespace key or on every namespace (`*`). */
export const RoleBindingSchema = Type.Object(
  {
    role: Type.String({ description: 'client, viewer, editor or admin' }),
    namespace: Type.String({ description: 'a namespace key, or * for every namespace' }),
  },
  { $id: 'RoleBinding' },
);

export const AuthenticationSchema = Type.Object(
  {
    id: Type.String(),
    method: Type.Enum(AUTH_METHODS),
    expiresAt: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    metadata: StringMap,
    roles: Type.Optional(Type.Array(RoleBindingSchema)),
  },
  { $id: 'Authentication' },
);

export const CreateTokenBody = Type.Object({
  name: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
  expiresAt: Type.Optional(Nullable(Type.String({ description: 'RFC 3339 timestamp' }))),
  namespaceKey: Type.Optional(Nullable(Type.String())),
  metadata: Type.Optional(Nullable(StringMap)),
  /** Vexil's extension: the token's roles, checked against its creator's (auth/token-grants.ts). */
  roles: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          role: Type.String({ description: 'client, viewer, editor or admin' }),
          namespace: Type.String({ description: "a namespace key (the token's own when it has one), or *" }),
        }),
      ),
    ),
  ),
});

export const CreateTokenResponseSchema = Type.Object({
  clientToken: Type.String(),
  authentication: AuthenticationSchema,
});

export const AuthenticationListQuerystring = Type.Object({
  method: Type.Optional(Type.String({ description: 'METHOD_TOKEN, …, or its number' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  pageToken: Type.Optional(Type.String()),
  page_token: Type.Optional(Type.String()),
});

export const AuthenticationListSchema = Type.Object({
  authentications: Type.Array(AuthenticationSchema),
  nextPageToken: Type.String(),
});

export const ExpireSelfQuerystring = Type.Object({
  expiresAt: Type.Optional(Type.String()),
  expires_at: Type.Optional(Type.String()),
});

export const AuthMethodsSchema = Type.Object({
  methods: Type.Array(
    Type.Object({
      method: Type.Enum(AUTH_METHODS),
      enabled: Type.Boolean(),
      sessionCompatible: Type.Boolean(),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});

export { authenticationToWire, createdTokenToWire } from '../../resource-shapes.js';
