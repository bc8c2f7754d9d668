// Sign-ins under way (the login_states table): written at the authorize request, consumed exactly
// once at the callback. Consuming reads the row and then deletes it; only the caller whose delete
// removed the row may use it, so two callbacks racing with one state (a replay) cannot both pass, on
// any dialect, without locks.

import { type AuthMethod, authMethodName, authMethodNumber } from '../domain/authentication.js';
import { toDate } from './rows.js';
import type { Executor } from './store.js';

export interface LoginState {
  stateHash: string;
  method: AuthMethod;
  provider: string;
  nonce: string;
  codeVerifier: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertLoginState(db: Executor, state: LoginState): Promise<void> {
  await db
    .insertInto('login_states')
    .values({
      state_hash: state.stateHash,
      method: authMethodNumber(state.method),
      provider: state.provider,
      nonce: state.nonce,
      code_verifier: state.codeVerifier,
      created_at: state.createdAt,
      expires_at: state.expiresAt,
    })
    .execute();
}

/** The row of `stateHash`, removed by this call, or undefined (unknown, or consumed by another call). */
export async function consumeLoginState(db: Executor, stateHash: string): Promise<LoginState | undefined> {
  const row = await db.selectFrom('login_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  if (row === undefined) return undefined;
  const deleted = await db.deleteFrom('login_states').where('state_hash', '=', stateHash).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) return undefined;
  return {
    stateHash: row.state_hash,
    method: authMethodName(Number(row.method)),
    provider: row.provider,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
  };
}

/** Deletes the sign-ins that expired before `before` (abandoned ones); returns how many. */
export async function deleteExpiredLoginStates(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('login_states').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
