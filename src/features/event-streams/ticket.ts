// Stream tickets: what an OFREP event stream's URL carries instead of the bearer token when
// authentication is required (a browser's EventSource cannot send an Authorization header). A ticket
// names a token by id and a validity window; its signature covers the token, the namespace and the
// window, keyed by the token's stored hash and the configured secret. So a ticket is the same for every
// answer in one window (the provider keeps its stream), opens only that namespace's stream, and dies
// with its token: once the token is deleted there is no key left to check it against.

import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';
/** A UUID-like id, a window number and a 43-character base64url HMAC-SHA256. */
const FORMAT = /^v1\.([0-9A-Za-z-]{1,64})\.(\d{1,12})\.([0-9A-Za-z_-]{43})$/;

export interface TicketParts {
  tokenId: string;
  window: number;
  signature: string;
}

/** The window a moment falls in. */
export function ticketWindow(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs);
}

function signature(secret: string, hashedClientToken: string, tokenId: string, namespaceKey: string, window: number) {
  return createHmac('sha256', `${secret}\u0000${hashedClientToken}`)
    .update(`${VERSION}\u0000${tokenId}\u0000${namespaceKey}\u0000${window}`)
    .digest('base64url');
}

export function signTicket(
  secret: string,
  hashedClientToken: string,
  tokenId: string,
  namespaceKey: string,
  window: number,
): string {
  return `${VERSION}.${tokenId}.${window}.${signature(secret, hashedClientToken, tokenId, namespaceKey, window)}`;
}

/** The parts of a ticket, or undefined when it is not one. */
export function parseTicket(ticket: string): TicketParts | undefined {
  const m = FORMAT.exec(ticket);
  if (m === null) return undefined;
  return { tokenId: m[1] as string, window: Number(m[2]), signature: m[3] as string };
}

/** Whether the signature is the one for this token, namespace and window. */
export function ticketSignatureValid(
  parts: TicketParts,
  secret: string,
  hashedClientToken: string,
  namespaceKey: string,
): boolean {
  const expected = Buffer.from(signature(secret, hashedClientToken, parts.tokenId, namespaceKey, parts.window));
  const given = Buffer.from(parts.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Whether a ticket of `window` may still open a stream at `nowMs`: during its own window and the next
 * one. Issued by an instance whose clock runs slightly ahead, it may name the window about to begin.
 */
export function ticketWindowOpen(window: number, nowMs: number, windowMs: number, skewMs = 30_000): boolean {
  const current = ticketWindow(nowMs, windowMs);
  return window === current || window === current - 1 || window === ticketWindow(nowMs + skewMs, windowMs);
}
