// Who a request's writes are recorded as (issues 28 and 40), for both transports, with Flipt's audit
// actor fields: `authentication` is the method in lower case (`token`, `oidc`, `github`, `kubernetes`,
// `jwt`; `none` when authentication is off), `email`, `name` and `picture` read as Flipt reads them
// (`io.flipt.auth.<field>`, else `io.flipt.auth.<method>.<field>`), and the client's address. Vexil
// adds `tokenId` (the authentication's id; a JWT has none) and, for a token, its name. Never the
// token itself. An actor with roles (issue 41) brings them to the receipt, so each change names the
// role it was made in (services/change-recorder.ts, ADR 48).

import { type Authentication, isStored, TOKEN_METADATA } from '../domain/authentication.js';
import type { ChangeActor } from '../domain/changes.js';
import type { WriteReceipt } from '../services/write.js';

const PERSON_FIELDS = ['email', 'name', 'picture'] as const;

export function changeActor(authentication: Authentication | null, ip: string | undefined): ChangeActor {
  if (!authentication) return ip ? { authentication: 'none', ip } : { authentication: 'none' };
  const method = authentication.method.replace(/^METHOD_/, '').toLowerCase();
  const actor: ChangeActor = { authentication: method };
  if (ip) actor.ip = ip;
  if (isStored(authentication)) actor.tokenId = authentication.id;
  const metadata = authentication.metadata;
  for (const field of PERSON_FIELDS) {
    const value = metadata[`io.flipt.auth.${field}`] || metadata[`io.flipt.auth.${method}.${field}`];
    if (value) actor[field] = value;
  }
  const tokenName = metadata[TOKEN_METADATA.name];
  if (authentication.method === 'METHOD_TOKEN' && tokenName) actor.name = tokenName;
  return actor;
}

/** A new write receipt for the caller: its actor, and its roles when it has any. */
export function writeReceiptOf(authentication: Authentication | null, ip: string | undefined): WriteReceipt {
  const receipt: WriteReceipt = { actor: changeActor(authentication, ip) };
  const roles = authentication?.roles;
  if (roles !== undefined) receipt.actorRoles = roles;
  return receipt;
}
