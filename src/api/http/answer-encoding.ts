// Compression of the answers the evaluation routes write themselves (evaluation-answer.ts). Those
// routes opt out of @fastify/compress (app.ts, by their kind): its onRequest and onSend hooks run on
// every request, and cost OFREP bulk and batch throughput even when the client accepts no encoding
// (ADR 0018, measured: docs/performance.md).
// Here a request without Accept-Encoding pays one header read. With one, the answer is encoded as the
// plugin encodes the other routes' answers (app.ts): the same encodings in the same order of
// preference, `*` and `x-gzip` read as gzip, nothing under COMPRESSION_THRESHOLD, `x-no-compression`
// honoured, and `Vary: accept-encoding` added.

import { createDeflate, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Flipt's chi Compress offers gzip and deflate, gzip first (never br or zstd). */
export const COMPRESSION_ENCODINGS = ['gzip', 'deflate'] as const;

/**
 * Answers smaller than this are sent uncompressed (@fastify/compress's default). Flipt's chi Compress
 * has no threshold; below 1 KiB compression saves little and costs a zlib call per request.
 */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Answers up to this size are compressed at once, on the event loop; larger ones through a zlib
 * stream, on libuv's threads. The plugin's own default on a two-core machine.
 */
const COMPRESS_AT_ONCE_LIMIT = 8 * 1024;

type Encoding = (typeof COMPRESSION_ENCODINGS)[number];

const negotiator = new Negotiator<Encoding>({ supportedValues: [...COMPRESSION_ENCODINGS] });

/** The encoding the Accept-Encoding header asks for among ours, if any (`*` and `x-gzip` are gzip). */
function negotiateEncoding(acceptEncoding: string): Encoding | undefined {
  return negotiator.negotiate(acceptEncoding.toLowerCase().replace(/\*|x-gzip/g, 'gzip')) ?? undefined;
}

/** Sends `body` (JSON whose Content-Type is set), compressed when the client accepts it and it is worth it. */
export function sendMaybeEncoded(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): void {
  const accepted = request.headers['accept-encoding'];
  if (accepted === undefined) {
    reply.send(body);
    return;
  }
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const encoding =
    size < COMPRESSION_THRESHOLD || request.headers['x-no-compression'] !== undefined
      ? undefined
      : negotiateEncoding(accepted);
  if (encoding === undefined) {
    reply.send(body);
    return;
  }
  // Only CORS (cors.ts) may have set Vary already, to Origin.
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined ? 'accept-encoding' : `${vary}, accept-encoding`);
  reply.header('content-encoding', encoding);
  if (size <= COMPRESS_AT_ONCE_LIMIT) {
    reply.send(encoding === 'gzip' ? gzipSync(body) : deflateSync(body));
    return;
  }
  const stream = encoding === 'gzip' ? createGzip() : createDeflate();
  stream.end(body);
  reply.send(stream);
}
