// Authentications by id with their stored token hash: the key material of stream tickets
// (features/event-streams/tickets.ts), which name a token by id because the plaintext is never kept.

import type { Authentication } from '../domain/authentication.js';
import { AUTHENTICATION_COLUMNS, toAuthentication } from './authentications.js';
import type { Executor } from './store.js';

export interface AuthenticationKey {
  authentication: Authentication;
  hashedClientToken: string;
}

/** Those of `ids` that exist (expired or not), by id. */
export async function findAuthenticationKeys(
  db: Executor,
  ids: readonly string[],
): Promise<Map<string, AuthenticationKey>> {
  const found = new Map<string, AuthenticationKey>();
  if (ids.length === 0) return found;
  const rows = await db
    .selectFrom('authentications')
    .select([...AUTHENTICATION_COLUMNS, 'hashed_client_token'])
    .where('id', 'in', ids)
    .execute();
  for (const row of rows) {
    found.set(row.id, { authentication: toAuthentication(row), hashedClientToken: row.hashed_client_token });
  }
  return found;
}
