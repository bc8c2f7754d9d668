// Bad input that grpc-js would answer INTERNAL, or not see at all, answered INVALID_ARGUMENT before
// grpc-js builds its call (through the gate of stream-gate.ts; docs/adr/0032-grpc-bad-input.md):
// - a `grpc-timeout` grpc-js cannot read (it answers INTERNAL `Invalid grpc-timeout value`), tested
//   with grpc-js's own pattern so exactly the values it refuses are refused;
// - a repeated `authorization` field, which Node's header object hides (it keeps the first): refused as
//   REST refuses it, with REST's message (INVALID_ARGUMENT is REST's 400);
// - a gzip or deflate message that does not inflate (grpc-js: INTERNAL `Failed to decompress message`):
//   each compressed message is inflated here too as it arrives, before grpc-js's own (asynchronous)
//   inflation can fail, and the call is answered and closed so grpc-js drops it.
// A well-formed call costs a test of three headers; only compressed calls pay for a second inflation.

import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { gunzipSync, inflateSync } from 'node:zlib';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { REPEATED_AUTHORIZATION } from '../../auth/credentials.js';
import type { StreamGate } from './stream-gate.js';

/** grpc-js's test of a `grpc-timeout` value (server-interceptors.ts DEADLINE_REGEX), unanchored as there. */
const READABLE_TIMEOUT = /(\d{1,8})\s*([HMSmun])/;

/**
 * The `date` header as Node writes it (its utcDate(): toUTCString of the current second), made once a
 * second; the same string until the second changes. Every gRPC answer Vexil writes itself gives it:
 * Node adding a missing date is a store of a new key into its copy of the headers, which missed V8's
 * inline cache on every call (`--log-ic`; docs/performance.md techniques 31 and 32).
 */
let dateSecond = -1;
let dateText = '';
export function currentDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

/** `respond`'s options for a trailers-only answer, every one Node reads named (technique 31). */
const STATUS_OPTIONS = { endStream: true, waitForTrailers: false, sendDate: false };

/** Answers `stream` with a status and no message (a trailers-only answer), as grpc-js writes one. */
export function answerStatus(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.headersSent || stream.destroyed) return;
  stream.respond(
    {
      [constants.HTTP2_HEADER_STATUS]: 200,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
      'grpc-status': code,
      'grpc-message': encodeURI(message),
      [constants.HTTP2_HEADER_DATE]: currentDate(),
    },
    STATUS_OPTIONS,
  );
  // What the client still sends is read and dropped, so the stream can close.
  stream.resume();
}

function repeats(rawHeaders: readonly string[], name: string): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i] === name) {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/** Whether `bytes` inflate; ones that inflate beyond `max` are grpc-js's to refuse (RESOURCE_EXHAUSTED). */
function inflates(bytes: Buffer, encoding: 'gzip' | 'deflate', max: number): boolean {
  try {
    (encoding === 'gzip' ? gunzipSync : inflateSync)(bytes, { maxOutputLength: max });
    return true;
  } catch (err) {
    return (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
  }
}

/**
 * Reads the length-prefixed messages of a compressed call beside grpc-js (frames may arrive split) and,
 * at the first compressed one that does not inflate, answers INVALID_ARGUMENT and closes the stream:
 * grpc-js, whose listener runs after this one, then finds its call closed and does nothing.
 */
function refuseWhatDoesNotInflate(stream: ServerHttp2Stream, encoding: 'gzip' | 'deflate', max: number): void {
  let pending: Buffer | undefined;
  const onData = (chunk: Buffer) => {
    let bytes = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    while (bytes.length >= 5) {
      const length = bytes.readUInt32BE(1);
      // Too long: grpc-js refuses it (RESOURCE_EXHAUSTED) without reading it.
      if (length > max) return stream.removeListener('data', onData);
      if (bytes.length < 5 + length) break;
      if (bytes[0] === 1 && !inflates(bytes.subarray(5, 5 + length), encoding, max)) {
        stream.removeListener('data', onData);
        answerStatus(stream, GrpcStatus.INVALID_ARGUMENT, `request message does not inflate (${encoding})`);
        stream.close(constants.NGHTTP2_NO_ERROR);
        return;
      }
      bytes = bytes.subarray(5 + length);
    }
    pending = bytes.length > 0 ? bytes : undefined;
  };
  // Before grpc-js's listener, and without putting the stream in flowing mode (grpc-js reads when its
  // handler asks).
  stream.prependListener('data', onData);
}

/** The gate that screens every gRPC call for the faults above; `maxMessageBytes` as grpc-js is given. */
export function screeningCalls(maxMessageBytes: number): StreamGate {
  return (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): boolean => {
    const contentType = headers[constants.HTTP2_HEADER_CONTENT_TYPE];
    // Not a gRPC call: grpc-js answers it (415).
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) return false;
    const timeout = headers['grpc-timeout'];
    if (timeout !== undefined && !READABLE_TIMEOUT.test(String(timeout))) {
      answerStatus(stream, GrpcStatus.INVALID_ARGUMENT, `invalid grpc-timeout value "${String(timeout)}"`);
      return true;
    }
    if (repeats(rawHeaders, 'authorization')) {
      answerStatus(stream, GrpcStatus.INVALID_ARGUMENT, REPEATED_AUTHORIZATION);
      return true;
    }
    const encoding = headers['grpc-encoding'];
    if (encoding === 'gzip' || encoding === 'deflate') refuseWhatDoesNotInflate(stream, encoding, maxMessageBytes);
    return false;
  };
}
