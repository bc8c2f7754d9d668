// Authentication use cases: creating tokens (the plaintext is returned once, only its hash is
// stored), resolving a presented token, listing, reading, expiring and deleting authentications, and
// the bootstrap token created at start when no token exists yet.

import type { Kysely } from 'kysely';
import { generateClientToken, hashClientToken } from '../auth/client-token.js';
import { type Authentication, type AuthMethod, isExpired, TOKEN_METADATA } from '../auth/types.js';
import * as store from '../storage/authentications.js';
import { ensureLockRow, lockOperationRow } from '../storage/operation-lock.js';
import { writeTime } from '../storage/rows.js';
import type { Database } from '../storage/schema.js';
import { inTransaction, toDomainError } from '../storage/transaction.js';
import { requireMaxLength } from './validation.js';

export const DEFAULT_AUTH_LIST_LIMIT = 25;
export const MAX_AUTH_LIST_LIMIT = 100;

/** The row every instance locks while deciding whether to create the bootstrap token. */
export const BOOTSTRAP_OPERATION = 'bootstrap_auth_METHOD_TOKEN';

export interface CreateTokenInput {
  name?: string;
  description?: string;
  expiresAt?: Date;
  namespaceKey?: string;
  metadata?: Record<string, string>;
}

export interface CreatedToken {
  /** The plaintext token: shown once, never stored. */
  clientToken: string;
  authentication: Authentication;
}

export interface AuthListQuery {
  method?: AuthMethod;
  /** 0 means the default (25); more than 100 is cut to 100. */
  limit?: number;
  /** A decimal row offset, as Flipt's SQL store writes it; anything else starts at the beginning. */
  pageToken?: string;
}

export interface BootstrapOptions {
  /** The configured token; a random one when empty. */
  clientToken?: string;
  expiresAt?: Date;
  /** Extra metadata; keys are lowercased as Flipt's config loader does. */
  metadata?: Record<string, string>;
}

/** Database timestamps keep milliseconds; trimming here makes the answer equal what is read back. */
function toMillis(date: Date): Date {
  return new Date(Math.trunc(date.getTime()));
}

export class AuthService {
  constructor(private readonly db: Kysely<Database>) {}

  /** Creates a METHOD_TOKEN authentication, as `POST /auth/v1/method/token` does (no validation, like Flipt). */
  async createToken(input: CreateTokenInput, clientToken: string = generateClientToken()): Promise<CreatedToken> {
    const metadata: Record<string, string> = { ...(input.metadata ?? {}) };
    metadata[TOKEN_METADATA.name] = input.name ?? '';
    if (input.description) metadata[TOKEN_METADATA.description] = input.description;
    if (input.namespaceKey) metadata[TOKEN_METADATA.namespace] = input.namespaceKey;
    const authentication = await store.insertAuthentication(this.db, {
      id: crypto.randomUUID(),
      hashedClientToken: hashClientToken(clientToken),
      method: 'METHOD_TOKEN',
      metadata,
      ...(input.expiresAt ? { expiresAt: toMillis(input.expiresAt) } : {}),
      createdAt: writeTime(),
    });
    return { clientToken, authentication };
  }

  /**
   * The live authentication a presented token stands for, or undefined (unknown or expired). Looked up
   * by hash in the database on every call, so a deleted or expired token stops working at once on
   * every instance.
   */
  async authenticate(clientToken: string, now: Date = new Date()): Promise<Authentication | undefined> {
    if (clientToken === '') return undefined;
    // A database outage must read as 503 on every protected route, not as a 500.
    const found = await store.findAuthenticationByHash(this.db, hashClientToken(clientToken)).catch((err: unknown) => {
      throw toDomainError(err);
    });
    return found && !isExpired(found, now) ? found : undefined;
  }

  list(query: AuthListQuery): Promise<{ items: Authentication[]; nextPageToken: string }> {
    const requested = query.limit ?? 0;
    const limit = requested <= 0 ? DEFAULT_AUTH_LIST_LIMIT : Math.min(requested, MAX_AUTH_LIST_LIMIT);
    const token = query.pageToken ?? '';
    const offset = /^[0-9]{1,15}$/.test(token) ? Number(token) : 0;
    return store.listAuthentications(this.db, { ...(query.method ? { method: query.method } : {}), limit, offset });
  }

  get(id: string): Promise<Authentication> {
    requireMaxLength('id', id);
    return store.getAuthentication(this.db, id);
  }

  async delete(id: string): Promise<void> {
    requireMaxLength('id', id);
    await store.deleteAuthentication(this.db, id);
  }

  async expire(id: string, expiresAt: Date = new Date()): Promise<void> {
    await store.expireAuthentication(this.db, id, toMillis(expiresAt));
  }

  /**
   * Creates the initial token when no METHOD_TOKEN authentication exists; otherwise does nothing
   * (even when the configured token differs). Instances starting together on one database queue on
   * a row lock, so exactly one of them creates it. Returns the created token, if any.
   */
  async bootstrap(options: BootstrapOptions = {}): Promise<CreatedToken | undefined> {
    await ensureLockRow(this.db, BOOTSTRAP_OPERATION);
    return inTransaction(this.db, async (tx) => {
      await lockOperationRow(tx, BOOTSTRAP_OPERATION);
      if ((await store.countAuthentications(tx, 'METHOD_TOKEN')) > 0) return undefined;
      const clientToken = options.clientToken || generateClientToken();
      const metadata: Record<string, string> = {
        [TOKEN_METADATA.name]: 'initial_bootstrap_token',
        [TOKEN_METADATA.description]: 'Initial token created when bootstrapping authentication',
      };
      for (const [key, value] of Object.entries(options.metadata ?? {})) metadata[key.toLowerCase()] = value;
      const authentication = await store.insertAuthentication(tx, {
        id: crypto.randomUUID(),
        hashedClientToken: hashClientToken(clientToken),
        method: 'METHOD_TOKEN',
        metadata,
        ...(options.expiresAt ? { expiresAt: toMillis(options.expiresAt) } : {}),
        createdAt: writeTime(),
      });
      return { clientToken, authentication };
    });
  }
}
