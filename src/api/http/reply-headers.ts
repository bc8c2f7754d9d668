// Where Fastify keeps the headers a reply will write: a plain object on the reply, under a symbol of
// Fastify's own, which its send path hands to Node's writeHead as it is. reply.header() lower-cases
// the name and checks for set-cookie on every call, and its one store for every name is a megamorphic
// property write; the answers every evaluation sends (evaluation-answer.ts, request-telemetry.ts)
// write their few fixed lower-case names into the object themselves instead, each a write V8 caches
// for that name (technique 25, docs/performance.md). Should a Fastify release keep its headers
// elsewhere, replyHeaders answers undefined and callers fall back to reply.header()
// (reply-headers.test.ts fails first, so that the fallback is never taken unnoticed).

import type { FastifyReply } from 'fastify';

/** A reply's headers by lower-case name, as Fastify writes them. */
export type ReplyHeaderStore = Record<string, unknown>;

/** The description of Fastify's symbol (lib/symbols.js: kReplyHeaders). */
const STORE_DESCRIPTION = 'fastify.reply.headers';

/** Fastify's symbol, found on the first reply (null: not found, use reply.header()). */
let storeKey: symbol | null | undefined;

function findStoreKey(reply: FastifyReply): symbol | null {
  const key = Object.getOwnPropertySymbols(reply).find((symbol) => symbol.description === STORE_DESCRIPTION);
  if (key === undefined) return null;
  const store = (reply as unknown as Record<symbol, unknown>)[key];
  return typeof store === 'object' && store !== null ? key : null;
}

/** The reply's header object, to write lower-case names into; undefined if Fastify keeps none we know. */
export function replyHeaders(reply: FastifyReply): ReplyHeaderStore | undefined {
  if (storeKey === undefined) storeKey = findStoreKey(reply);
  if (storeKey === null) return undefined;
  return (reply as unknown as Record<symbol, ReplyHeaderStore>)[storeKey];
}
