// Who a request's writes are recorded as (issue 28), for both transports: the token's id and name,
// or `none` when authentication is off, with the client's address. Never the token itself.

import { type Authentication, TOKEN_METADATA } from '../domain/authentication.js';
import type { ChangeActor } from '../domain/changes.js';

export function changeActor(authentication: Authentication | null, ip: string | undefined): ChangeActor {
  const actor: ChangeActor = { authentication: authentication ? 'token' : 'none' };
  if (ip) actor.ip = ip;
  if (authentication) {
    actor.tokenId = authentication.id;
    const name = authentication.metadata[TOKEN_METADATA.name];
    if (name) actor.name = name;
    const email = authentication.metadata['io.flipt.auth.oidc.email'];
    if (email) actor.email = email;
  }
  return actor;
}
