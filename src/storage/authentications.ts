// Authentications in SQL (Flipt's `authentications` table): only the hash of a client token is kept,
// looked up through the unique index `hashed_client_token_authentications_index`.

import type { Selectable } from 'kysely';
import { type Authentication, type AuthMethod, authMethodName, authMethodNumber } from '../domain/authentication.js';
import { AlreadyExistsError, NotFoundError } from '../domain/errors.js';
import { isRole, type RoleBinding } from '../domain/roles.js';
import { classifyDriverError } from './errors.js';
import { toDate, toOptionalDate } from './rows.js';
import type { AuthenticationsTable } from './schema.js';
import type { AuthenticationListQuery, AuthenticationStore, Executor, NewAuthentication } from './store.js';

/** Flipt's wording for an unknown id (its store wraps the SQL "no rows" error twice). */
const NOT_FOUND_SUBJECT = 'getting authentication by token: reading authentication: resource';

function parseMetadata(text: string | null): Record<string, string> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
    return out;
  } catch {
    return {};
  }
}

/**
 * A stored roles list. Only the store writes it, from validated input; a list that does not read back
 * as one (hand-edited) grants nothing rather than today's everything, so it reads as no roles at all.
 */
function parseRoles(text: string | null): readonly RoleBinding[] | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (!Array.isArray(value)) return [];
    return value.filter(
      (b): b is RoleBinding =>
        typeof b === 'object' && b !== null && isRole(b.role) && typeof b.namespace === 'string' && b.namespace !== '',
    );
  } catch {
    return [];
  }
}

export function toAuthentication(row: Omit<Selectable<AuthenticationsTable>, 'hashed_client_token'>): Authentication {
  const expiresAt = toOptionalDate(row.expires_at);
  const roles = parseRoles(row.roles);
  return {
    id: row.id,
    method: authMethodName(Number(row.method)),
    ...(expiresAt ? { expiresAt } : {}),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    metadata: parseMetadata(row.metadata),
    ...(roles !== undefined ? { roles } : {}),
  };
}

export const AUTHENTICATION_COLUMNS = [
  'id',
  'method',
  'metadata',
  'expires_at',
  'created_at',
  'updated_at',
  'roles',
] as const;

async function insertAuthentication(db: Executor, input: NewAuthentication): Promise<Authentication> {
  try {
    await db
      .insertInto('authentications')
      .values({
        id: input.id,
        hashed_client_token: input.hashedClientToken,
        method: authMethodNumber(input.method),
        metadata: JSON.stringify(input.metadata),
        expires_at: input.expiresAt ?? null,
        created_at: input.createdAt,
        updated_at: input.createdAt,
        roles: input.roles === undefined ? null : JSON.stringify(input.roles),
      })
      .execute();
  } catch (err) {
    if (classifyDriverError(err) === 'unique') throw new AlreadyExistsError('authentication is not unique');
    throw err;
  }
  return {
    id: input.id,
    method: input.method,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    createdAt: input.createdAt,
    updatedAt: input.createdAt,
    metadata: { ...input.metadata },
    ...(input.roles !== undefined ? { roles: input.roles.map((b) => ({ ...b })) } : {}),
  };
}

/** The authentication whose token hashes to `hashedClientToken`, expired or not. */
async function findAuthenticationByHash(db: Executor, hashedClientToken: string): Promise<Authentication | undefined> {
  const row = await db
    .selectFrom('authentications')
    .select(AUTHENTICATION_COLUMNS)
    .where('hashed_client_token', '=', hashedClientToken)
    .executeTakeFirst();
  return row ? toAuthentication(row) : undefined;
}

/** The authentications, expired or not, of those of `hashedClientTokens` that exist, by hash. */
async function findAuthenticationsByHashes(
  db: Executor,
  hashedClientTokens: readonly string[],
): Promise<Map<string, Authentication>> {
  const found = new Map<string, Authentication>();
  if (hashedClientTokens.length === 0) return found;
  const rows = await db
    .selectFrom('authentications')
    .select([...AUTHENTICATION_COLUMNS, 'hashed_client_token'])
    .where('hashed_client_token', 'in', hashedClientTokens)
    .execute();
  for (const row of rows) found.set(row.hashed_client_token, toAuthentication(row));
  return found;
}

async function getAuthentication(db: Executor, id: string): Promise<Authentication> {
  const row = await db
    .selectFrom('authentications')
    .select(AUTHENTICATION_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(NOT_FOUND_SUBJECT);
  return toAuthentication(row);
}

/** One page in creation order; the next page token is the decimal offset of the next row (Flipt). */
async function listAuthentications(
  db: Executor,
  query: AuthenticationListQuery,
): Promise<{ items: Authentication[]; nextPageToken: string }> {
  let select = db
    .selectFrom('authentications')
    .select(AUTHENTICATION_COLUMNS)
    .orderBy('created_at')
    .orderBy('id')
    .limit(query.limit + 1)
    .offset(query.offset);
  if (query.method !== undefined) select = select.where('method', '=', authMethodNumber(query.method));
  const rows = await select.execute();
  const items = rows.slice(0, query.limit).map(toAuthentication);
  return { items, nextPageToken: rows.length > query.limit ? String(query.offset + query.limit) : '' };
}

async function countAuthentications(db: Executor, method: AuthMethod): Promise<number> {
  const row = await db
    .selectFrom('authentications')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('method', '=', authMethodNumber(method))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Idempotent, as in Flipt: deleting an unknown id is not an error. */
async function deleteAuthentication(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('authentications').where('id', '=', id).execute();
}

async function expireAuthentication(db: Executor, id: string, expiresAt: Date): Promise<void> {
  await db.updateTable('authentications').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

/** Deletes the method's authentications that expired before `before`; returns how many. */
export async function deleteExpiredAuthentications(db: Executor, method: AuthMethod, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('authentications')
    .where('method', '=', authMethodNumber(method))
    .where('expires_at', 'is not', null)
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const sqlAuthenticationStore: AuthenticationStore = {
  findByHash: findAuthenticationByHash,
  findByHashes: findAuthenticationsByHashes,
  get: getAuthentication,
  list: listAuthentications,
  count: countAuthentications,
  insert: insertAuthentication,
  delete: deleteAuthentication,
  expire: expireAuthentication,
  deleteExpired: deleteExpiredAuthentications,
};
