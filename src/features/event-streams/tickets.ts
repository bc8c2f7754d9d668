// Stream tickets as a use case (ticket.ts has the format): issuing one for an authenticated
// bulk evaluation, checking one when a stream opens (one read of the token by id: a ticket must never
// outlive its token, so no cache answers here), and ending the streams held here once their token
// is deleted or expires — told at once of deletions through this instance, and by a check of every
// held token each `checkEveryMs` for deletions elsewhere (`checkHeld`, run by the jobs room as
// `stream_ticket_check`: app/jobs/list.ts).
//
// Roles (issue 41, ADR 48): a stream also ends when its identity no longer holds the role its entry
// point needs. A token's roles never change, but a person's do when the stored bindings change, so each
// check resolves the identity again (the stored authentication read afresh, through the RoleResolver at
// its current generation) and asks `authorize` again with the stream's own declaration and namespace.

import type { Kysely } from 'kysely';
import type { Access } from '../../auth/access.js';
import { authorize, type DeclaredAccess } from '../../auth/authorize.js';
import type { RoleResolver } from '../../auth/roles/resolver.js';
import { type Authentication, isExpired, isStored, tokenNamespace } from '../../domain/authentication.js';
import { findAuthenticationKeys } from '../../storage/authentication-keys.js';
import type { Database } from '../../storage/schema.js';
import { toDomainError } from '../../storage/transaction.js';
import { parseTicket, signTicket, ticketSignatureValid, ticketWindow, ticketWindowOpen } from './ticket.js';

export interface StreamTicketOptions {
  windowMs: number;
  secret: string;
  /** How often the tokens of open ticket streams are checked again (0: only on local deletions). */
  checkEveryMs: number;
  /** People's roles by rule (`authorization.roles` configured); absent: authentications are taken as found. */
  roles?: Pick<RoleResolver, 'resolve'>;
  now?: () => number;
}

/** Throws (PermissionDeniedError) when `authentication` may no longer hold the stream. */
export type StreamAuthorization = (authentication: Authentication) => void;

/** The OFREP event stream's declaration: the one route a ticket opens (routes.ts declares it with this). */
export const OFREP_STREAM_ACCESS: Access = { resource: 'stream', action: 'watch', namespace: 'request' };
const TICKET_DECLARATION: DeclaredAccess = { access: OFREP_STREAM_ACCESS, group: 'ofrep' };

interface Held {
  /** Undefined for an authentication that is not stored (a JWT): nothing to read again. */
  tokenId: string | undefined;
  /** A JWT's identity as verified, without the roles it was resolved to: resolved again on each check. */
  identity: Authentication;
  /** Infinity when the token never expires. */
  expiresAtMs: number;
  authorize: StreamAuthorization | undefined;
  end: () => void;
}

/** The identity before roles were resolved: a JWT carries none of its own (auth/methods/jwt.ts). */
function unresolved(authentication: Authentication): Authentication {
  if (authentication.roles === undefined || isStored(authentication)) return authentication;
  const { roles: _resolved, ...identity } = authentication;
  return identity;
}

export class StreamTickets {
  readonly #db: Kysely<Database>;
  readonly #options: StreamTicketOptions;
  readonly #now: () => number;
  readonly #held = new Set<Held>();
  #checking = false;

  constructor(db: Kysely<Database>, options: StreamTicketOptions) {
    this.#db = db;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get windowMs(): number {
    return this.#options.windowMs;
  }

  /** The current window (part of the bulk ETag, so a new window brings a new URL). */
  currentWindow(): number {
    return ticketWindow(this.#now(), this.#options.windowMs);
  }

  /** The ticket for this token (given its stored hash) and namespace in `window`. */
  issue(tokenId: string, hashedClientToken: string, namespaceKey: string, window: number): string {
    return signTicket(this.#options.secret, hashedClientToken, tokenId, namespaceKey, window);
  }

  /** `authentication` with the roles its identity holds now (tokens come as they are). */
  #resolve(authentication: Authentication): Authentication {
    return this.#options.roles?.resolve(authentication) ?? authentication;
  }

  /**
   * The live authentication a ticket stands for, with its roles, if it is one for this namespace, its
   * window is still open and its token exists, has not expired and may address the namespace; else
   * undefined. Throws the role refusal (403) when its identity lacks the stream's role there now.
   */
  async verify(ticket: string, namespaceKey: string): Promise<Authentication | undefined> {
    const parts = parseTicket(ticket);
    if (parts === undefined) return undefined;
    const now = this.#now();
    if (!ticketWindowOpen(parts.window, now, this.#options.windowMs)) return undefined;
    // A database outage must read as 503, as for a bearer token, not as a 500.
    const found = await findAuthenticationKeys(this.#db, [parts.tokenId]).catch((err: unknown) => {
      throw toDomainError(err);
    });
    const key = found.get(parts.tokenId);
    if (key === undefined || isExpired(key.authentication, new Date(now))) return undefined;
    if (!ticketSignatureValid(parts, this.#options.secret, key.hashedClientToken, namespaceKey)) return undefined;
    const scope = tokenNamespace(key.authentication);
    if (scope !== undefined && scope !== namespaceKey) return undefined;
    const resolved = this.#resolve(key.authentication);
    if (resolved.roles !== undefined) authorize(TICKET_DECLARATION, resolved, { namespaceKey });
    return resolved;
  }

  /**
   * Calls `end` when the token is deleted or expires, or (with `authorize`, the stream's own check) when
   * its identity no longer may hold the stream; returns the release for a stream that ended itself.
   */
  hold(authentication: Authentication, end: () => void, authorize?: StreamAuthorization): () => void {
    const held: Held = {
      tokenId: isStored(authentication) ? authentication.id : undefined,
      identity: unresolved(authentication),
      expiresAtMs: authentication.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
      authorize,
      end,
    };
    this.#held.add(held);
    return () => {
      this.#held.delete(held);
    };
  }

  /** A token deleted or expired through this instance. */
  revoked(tokenId: string): void {
    for (const held of [...this.#held]) if (held.tokenId === tokenId) this.#end(held);
  }

  /** How often the jobs room runs `checkHeld` (0: never; local deletions still end streams at once). */
  get checkEveryMs(): number {
    return this.#options.checkEveryMs;
  }

  /**
   * Checks every held stream once (one query for all stored tokens): ends those whose token is gone or
   * expired, and those whose identity, resolved again, is refused by the stream's own authorization.
   * Nothing to do while none is held.
   */
  async checkHeld(): Promise<void> {
    if (this.#checking || this.#held.size === 0) return;
    this.#checking = true;
    try {
      const now = this.#now();
      for (const held of [...this.#held]) if (held.expiresAtMs <= now) this.#end(held);
      const ids = new Set<string>();
      for (const held of this.#held) if (held.tokenId !== undefined) ids.add(held.tokenId);
      const found = await findAuthenticationKeys(this.#db, [...ids]);
      for (const held of [...this.#held]) {
        let identity = held.identity;
        if (held.tokenId !== undefined) {
          const key = found.get(held.tokenId);
          if (key === undefined || isExpired(key.authentication, new Date(this.#now()))) {
            this.#end(held);
            continue;
          }
          identity = key.authentication;
        }
        if (!this.#stillAuthorized(held, identity)) this.#end(held);
      }
    } finally {
      this.#checking = false;
    }
  }

  #stillAuthorized(held: Held, identity: Authentication): boolean {
    if (held.authorize === undefined) return true;
    try {
      held.authorize(this.#resolve(identity));
      return true;
    } catch {
      // A refusal, or a check that could not decide: the stream ends either way (fail closed).
      return false;
    }
  }

  #end(held: Held): void {
    this.#held.delete(held);
    held.end();
  }
}
