// Sending a pre-written evaluation answer: the JSON text evaluation-json.ts wrote from the engine's
// result goes out with the request id header, the JSON content type, indented when `?pretty` asks for
// it, and compressed when the client accepts it (answer-encoding.ts), with the revision it was computed
// from. The routes that answer this way (kind `evaluation` and `ofrep`, route-kinds.ts) get none of the
// app's onSend hooks that do the same for the other routes.

import type { FastifyReply } from 'fastify';
import type { NamespaceSnapshot } from '../../evaluation/index.js';
import { sendMaybeEncoded } from './answer-encoding.js';
import { JSON_CONTENT_TYPE } from './evaluation-json.js';
import { replyHeaders } from './reply-headers.js';
import { setRequestIdHeader } from './request-telemetry.js';
import { indentJson, REVISION_HEADER, wantsPretty } from './wire.js';

/** Names the revision an answer was computed from (REVISION_HEADER), its failure included. */
export function setRevision(reply: FastifyReply, snapshot: NamespaceSnapshot): void {
  if (snapshot.revision === '') return;
  // Straight into Fastify's header object, as setRequestIdHeader (reply-headers.ts).
  const headers = replyHeaders(reply);
  if (headers === undefined) reply.header(REVISION_HEADER, snapshot.revision);
  else headers[REVISION_HEADER] = snapshot.revision;
}

/**
 * Sends JSON written by evaluation-json.ts (text or UTF-8 bytes). With a JSON content type it is sent as is:
 * Fastify serializes only objects, so the route's response schema documents the answer but is not run.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): void {
  // These routes have no onRequest hook to set it (request-telemetry.ts).
  setRequestIdHeader(reply);
  const request = reply.request;
  const headers = replyHeaders(reply);
  if (headers === undefined) reply.type(JSON_CONTENT_TYPE);
  else headers['content-type'] = JSON_CONTENT_TYPE;
  // Compressed here, not by @fastify/compress's hooks, which these routes opt out of (answer-encoding.ts).
  sendMaybeEncoded(request, reply, wantsPretty(request) ? indentJson(json.toString()) : json);
}

/**
 * Calls `send` once `pending` resolves, and settles only when the answer is finished: the way every
 * evaluation handler sends after an await. Fastify takes a handler promise that resolves to undefined for
 * "nothing sent yet" unless reply.sent or headersSent is already true, and then sends an empty answer of
 * its own. An answer streamed through zlib is neither until zlib's first chunk, so compressed answers
 * over 8 KiB computed after a snapshot load went out empty (issue 23). Awaiting the reply, a thenable
 * that settles when the response ends, leaves nothing for Fastify to send, whatever the payload.
 */
export async function answerWhenReady<T>(
  reply: FastifyReply,
  pending: Promise<T>,
  send: (value: T) => void,
): Promise<void> {
  send(await pending);
  await reply;
}
