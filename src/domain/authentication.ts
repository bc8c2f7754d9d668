// What an authentication is inside Vexil: Flipt's `Authentication` message (id, method, expiry,
// metadata), with the method enum and the metadata keys the token method writes. It lives in domain/
// because storage reads and writes these records and auth/ sits above storage.

import type { RoleBinding } from './roles.js';

/** Flipt's `Method` enum, by number: METHOD_NONE = 0 … METHOD_CLOUD = 6 (stored as the integer). */
export const AUTH_METHODS = [
  'METHOD_NONE',
  'METHOD_TOKEN',
  'METHOD_OIDC',
  'METHOD_KUBERNETES',
  'METHOD_GITHUB',
  'METHOD_JWT',
  'METHOD_CLOUD',
] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export function authMethodNumber(method: AuthMethod): number {
  return AUTH_METHODS.indexOf(method);
}

export function authMethodName(value: number): AuthMethod {
  return AUTH_METHODS[value] ?? 'METHOD_NONE';
}

export const TOKEN_METADATA = {
  name: 'io.flipt.auth.token.name',
  description: 'io.flipt.auth.token.description',
  namespace: 'io.flipt.auth.token.namespace',
} as const;

export interface Authentication {
  id: string;
  method: AuthMethod;
  /** Undefined when the authentication never expires. */
  expiresAt?: Date;
  createdAt: Date;
  updatedAt: Date;
  /** String → string, as Flipt stores it. */
  metadata: Record<string, string>;
  /**
   * The roles this authentication holds (issue 41, ADR 46): a token's as it was made with them, a
   * signed-in person's as `authorization.roles` and the stored bindings give them. Absent: today's
   * meaning — a token made without roles may do everything within its namespace scope, and a person
   * signed in while `authorization.roles` is not configured everything.
   */
  roles?: readonly RoleBinding[];
}

/** The namespace a token is restricted to, if any. */
export function tokenNamespace(auth: Authentication): string | undefined {
  const ns = auth.metadata[TOKEN_METADATA.namespace];
  return ns === undefined || ns === '' ? undefined : ns;
}

/** Whether `auth` is kept in the authentications table: a JWT is verified on each call, never stored (its id is ''). */
export function isStored(auth: Authentication): boolean {
  return auth.id !== '';
}

export function isExpired(auth: Authentication, now: Date): boolean {
  return auth.expiresAt !== undefined && auth.expiresAt.getTime() <= now.getTime();
}
