// Stream tickets as a use case (ticket.ts has the format): issuing one for an authenticated
// bulk evaluation, checking one when a stream opens (one read of the token by id: a ticket must never
// outlive its token, so no cache answers here), and ending the streams a ticket opened once its token
// is deleted or expires — told at once of deletions through this instance, and by a check of every
// held token each `checkEveryMs` for deletions elsewhere (`checkHeld`, run by the jobs room as
// `stream_ticket_check`: app/jobs/list.ts).

import type { Kysely } from 'kysely';
import { type Authentication, isExpired, tokenNamespace } from '../../domain/authentication.js';
import { findAuthenticationKeys } from '../../storage/authentication-keys.js';
import type { Database } from '../../storage/schema.js';
import { toDomainError } from '../../storage/transaction.js';
import { parseTicket, signTicket, ticketSignatureValid, ticketWindow, ticketWindowOpen } from './ticket.js';

export interface StreamTicketOptions {
  windowMs: number;
  secret: string;
  /** How often the tokens of open ticket streams are checked again (0: only on local deletions). */
  checkEveryMs: number;
  now?: () => number;
}

interface Held {
  tokenId: string;
  /** Infinity when the token never expires. */
  expiresAtMs: number;
  end: () => void;
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

  /**
   * The live authentication a ticket stands for, if it is one for this namespace, its window is still
   * open and its token exists, has not expired and may address the namespace; else undefined.
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
    return key.authentication;
  }

  /** Ends `end` when the token is deleted or expires; returns the release for a stream that ended itself. */
  hold(authentication: Authentication, end: () => void): () => void {
    const held: Held = {
      tokenId: authentication.id,
      expiresAtMs: authentication.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
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

  /** Checks every held token once (one query for all of them); nothing to do while none is held. */
  async checkHeld(): Promise<void> {
    if (this.#checking || this.#held.size === 0) return;
    this.#checking = true;
    try {
      const now = this.#now();
      for (const held of [...this.#held]) if (held.expiresAtMs <= now) this.#end(held);
      const ids = [...new Set([...this.#held].map((h) => h.tokenId))];
      const found = await findAuthenticationKeys(this.#db, ids);
      for (const held of [...this.#held]) {
        const key = found.get(held.tokenId);
        if (key === undefined || isExpired(key.authentication, new Date(this.#now()))) this.#end(held);
      }
    } finally {
      this.#checking = false;
    }
  }

  #end(held: Held): void {
    this.#held.delete(held);
    held.end();
  }
}
