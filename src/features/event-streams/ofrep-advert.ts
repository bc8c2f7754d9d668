// The `eventStreams` of OFREP bulk answers (OpenFeature's ADR 0008) when ofrep.event_streams is on:
// where the namespace's change stream is, as a path (`endpoint.requestUri`, joined by the client to
// its OFREP base URL's origin) or, with `public_url`, as a full `url`. With authentication required
// the address carries a stream ticket, never the bearer token; the ticket is the same for every answer
// in one window, and the window is part of the bulk ETag, so the first re-fetch after it rolls over
// gets a 200 with the new address instead of a 304 that would keep the old one.
//
// The bytes after the flags array are kept per namespace (and per token with tickets), so an answer
// costs a map lookup more than without streams.

import type { FastifyRequest } from 'fastify';
import { hashClientToken } from '../../auth/client-token.js';
import { presentedToken } from '../../auth/credentials.js';
import { ms } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { isStored } from '../../domain/authentication.js';
import type { StreamTickets } from './tickets.js';

/** Entries kept before the map starts over (namespaces, or namespace and token pairs). */
const MAX_TAILS = 10_000;

/** The stream path of a namespace's OFREP event stream. */
export function ofrepEventsPath(namespaceKey: string): string {
  return `/ofrep/v1/namespaces/${encodeURIComponent(namespaceKey)}/events`;
}

interface Tail {
  window: number;
  bytes: Buffer;
}

export class OfrepEventStreamAdvert {
  readonly #publicUrl: string;
  readonly #inactivityDelaySec: number;
  readonly #tickets: StreamTickets | undefined;
  readonly #tails = new Map<string, Tail>();

  /** `tickets` only when the OFREP routes require authentication. */
  constructor(settings: Config['ofrep']['event_streams'], tickets: StreamTickets | undefined) {
    this.#publicUrl = settings.public_url.replace(/\/+$/, '');
    this.#inactivityDelaySec = Math.max(1, Math.round(ms(settings.inactivity_delay) / 1000));
    this.#tickets = tickets;
  }

  /** What the bulk ETag varies by besides the revision and context: the ticket window, if any. */
  etagVariant(): string {
    return this.#tickets === undefined ? 'sse' : `sse:${this.#tickets.currentWindow()}`;
  }

  /**
   * `],"eventStreams":[…]}`: the end of a bulk answer for this request and namespace; undefined (no
   * stream advertised) for a caller no ticket can be issued to. A ticket is keyed by a stored token's
   * hash, and a JWT is never stored (auth/methods/jwt.ts): advertising an address it cannot open would
   * stop a web provider's polling for a stream that never connects (ADR 26), so such a caller keeps
   * polling, and may open the stream route with its own Authorization header.
   */
  tail(request: FastifyRequest, namespaceKey: string): Buffer | undefined {
    const tickets = this.#tickets;
    const authentication = request.authentication;
    if (tickets === undefined || authentication === null) return this.#cached(namespaceKey, 0, () => undefined);
    if (!isStored(authentication)) return undefined;
    const window = tickets.currentWindow();
    return this.#cached(
      `${authentication.id}\u0000${namespaceKey}`,
      window,
      () => {
        // The key is the token's stored hash, which the presented token hashes to.
        const hash = hashClientToken(presentedToken(request.headers) ?? '');
        return tickets.issue(authentication.id, hash, namespaceKey, window);
      },
      namespaceKey,
    );
  }

  #cached(key: string, window: number, ticket: () => string | undefined, namespaceKey = key): Buffer {
    const held = this.#tails.get(key);
    if (held !== undefined && held.window === window) return held.bytes;
    if (this.#tails.size >= MAX_TAILS) this.#tails.clear();
    const bytes = Buffer.from(`],"eventStreams":[${this.entryJson(namespaceKey, ticket())}]}`);
    this.#tails.set(key, { window, bytes });
    return bytes;
  }

  /** One `eventStreams` entry. */
  entryJson(namespaceKey: string, ticket: string | undefined): string {
    const uri = ofrepEventsPath(namespaceKey) + (ticket === undefined ? '' : `?ticket=${encodeURIComponent(ticket)}`);
    const where = this.#publicUrl === '' ? { endpoint: { requestUri: uri } } : { url: this.#publicUrl + uri };
    return JSON.stringify({ type: 'sse', ...where, inactivityDelaySec: this.#inactivityDelaySec });
  }
}
