// flipt.evaluation.EvaluationService's Boolean, Variant and Batch answered on the HTTP/2 stream itself,
// without grpc-js's per-call machinery (its call object, interceptor layers, metadata objects and
// listener chain), which cost about as much as the evaluation (docs/performance.md;
// docs/adr/0043-grpc-evaluation-fast-path.md). It takes only plain calls: one of these three
// paths, `content-type: application/grpc` (or `+proto`), no message encoding but identity, tracing off
// (spans need grpc-js's listener chain). Everything else goes to grpc-js unchanged. What it does is the
// grpc-js path's, from the same parts:
// - the request read as grpc-js reads a unary one (frames may arrive split): one length-prefixed
//   message, decoded by the method's own (safe) decoder; no message or a second one UNIMPLEMENTED, one
//   over the limit RESOURCE_EXHAUSTED, bytes that are no message INVALID_ARGUMENT (request-decoding.ts);
// - the deadline of `grpc-timeout` (a call past it does no work: DEADLINE_EXCEEDED);
// - authentication through rpc.ts's `authenticate` on every call (token hashes cached per token value,
//   the look-up made per call, so a deleted or expired token is refused at once);
// - the answer from the table entry's handler (cached protobuf bytes, evaluation-answer.ts) with grpc-js's
//   response headers, `x-vexil-revision`, and the status in trailers; a failure trailers-only;
// - telemetry as the interceptor records it (telemetry/grpc.ts): the call metric, the log line, and the
//   drain's count from start to status or cancellation.

import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { status as GrpcStatus, Metadata, type MethodDefinition } from '@grpc/grpc-js';
import type { Authentication } from '../../domain/authentication.js';
import { type GrpcTelemetry, recordGrpcCall } from '../../telemetry/grpc.js';
import { REVISION_HEADER } from '../kinds.js';
import { AsciiMessageReader } from './ascii-reader.js';
import { answerStatus } from './call-screening.js';
import { snakeFields } from './field-case.js';
import { malformedRequestStatus } from './request-decoding.js';
import { type AnyRpc, authenticateNow, type RpcContext, type RpcDeps, statusOf } from './rpc.js';
import type { StreamGate } from './stream-gate.js';

/** The methods this path answers. */
export const FAST_PATHS: ReadonlySet<string> = new Set([
  '/flipt.evaluation.EvaluationService/Boolean',
  '/flipt.evaluation.EvaluationService/Variant',
  '/flipt.evaluation.EvaluationService/Batch',
]);

/** A unary method as registered with grpc-js: its table entry and its (safe, passing) definition. */
export interface RegisteredMethod {
  path: string;
  rpc: AnyRpc;
  definition: MethodDefinition<unknown, unknown>;
}

export interface FastPath {
  gate: StreamGate;
  /** Calls this path has taken (tests read it to know which path answered). */
  readonly taken: number;
}

/** grpc-js's reading of `grpc-timeout` (server-interceptors.ts), as ms; call-screening.ts refused the rest. */
const TIMEOUT = /(\d{1,8})\s*([HMSmun])/;
const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 0.001,
  n: 1e-6,
};

function deadlineOf(header: string | string[] | undefined): number {
  if (header === undefined) return Number.POSITIVE_INFINITY;
  const match = TIMEOUT.exec(String(header));
  if (match === null) return Number.POSITIVE_INFINITY;
  return Date.now() + ((Number(match[1]) * (TIMEOUT_UNIT_MS[match[2] as string] as number)) | 0);
}

/**
 * Response headers grpc-js sends before an answer (server-interceptors.ts), plus the revision; the
 * object is kept for the last revision seen (a namespace's revision changes with its writes, not per
 * call), and Node only reads it.
 */
let lastRevision: string | undefined;
let lastHeaders = headersFor(undefined);
function answerHeaders(revision: string | undefined) {
  if (revision !== lastRevision) {
    lastRevision = revision;
    lastHeaders = headersFor(revision);
  }
  return lastHeaders;
}

function headersFor(revision: string | undefined) {
  const headers: Record<string, string | number> = {
    [constants.HTTP2_HEADER_STATUS]: 200,
    [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
    'grpc-accept-encoding': 'identity,deflate,gzip',
    'grpc-encoding': 'identity',
  };
  if (revision !== undefined) headers[REVISION_HEADER] = revision;
  return headers;
}

const OK_TRAILERS = { 'grpc-status': GrpcStatus.OK, 'grpc-message': 'OK' };

/**
 * The fast path over `methods` (those of FAST_PATHS are taken), or undefined when it cannot apply:
 * tracing on (spans are grpc-js's listener chain's).
 */
export function evaluationFastPath(
  methods: readonly RegisteredMethod[],
  deps: RpcDeps,
  telemetry: GrpcTelemetry,
  maxMessageBytes: number,
): FastPath | undefined {
  if (telemetry.tracing.enabled) return undefined;
  const byPath = new Map(methods.filter((m) => FAST_PATHS.has(m.path)).map((m) => [m.path, m]));
  const { onCall } = telemetry;
  let taken = 0;

  const serve = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, method: RegisteredMethod) => {
    const started = performance.now();
    const deadline = deadlineOf(headers['grpc-timeout']);
    const counted = onCall?.(method.definition as never);
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      recordGrpcCall(telemetry, method.path, code, started);
      counted?.();
    };
    const fail = (code: number, details: string) => {
      if (stream.destroyed || stream.closed) return;
      finish(code);
      answerStatus(stream, code, details);
    };
    // The decoded request: checked, authenticated and answered as rpc.ts's unaryHandler does.
    const answer = (request: unknown) => {
      const malformed = malformedRequestStatus(request);
      if (malformed) return fail(malformed.code, malformed.details);
      const pastDeadline = () => stream.destroyed || stream.closed || deadline <= Date.now();
      if (pastDeadline()) return fail(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded');
      const metadata = new Metadata();
      if (typeof headers.authorization === 'string') metadata.set('authorization', headers.authorization);
      if (typeof headers.cookie === 'string') metadata.set('cookie', headers.cookie);
      let revision: string | undefined;
      const context: RpcContext = {
        metadata,
        authentication: null,
        setRevision: (value) => {
          if (value !== '') revision = value;
        },
      };
      // Synchronous when nothing needs waiting for (no token look-up, the snapshot held), as over HTTP;
      // a promise only where one of them waits.
      const failWith = (err: unknown) => {
        const { code, details } = statusOf(err);
        fail(code, details);
      };
      const send = (result: unknown) => {
        if (stream.destroyed || stream.closed) return;
        // No timer per call as grpc-js sets one: an answer that comes too late is refused instead.
        if (deadline !== Number.POSITIVE_INFINITY && deadline <= Date.now()) {
          return fail(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded');
        }
        const bytes = Buffer.isBuffer(result) ? result : method.definition.responseSerialize(snakeFields(result));
        const frame = Buffer.allocUnsafe(5 + bytes.length);
        frame[0] = 0;
        frame.writeUInt32BE(bytes.length, 1);
        bytes.copy(frame, 5);
        finish(GrpcStatus.OK);
        stream.respond(answerHeaders(revision), { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
        stream.end(frame);
      };
      // A handler's refusal may be thrown at once (a batch over the limit): answered as a rejection is.
      const handle = (authentication: Authentication | null) => {
        try {
          context.authentication = authentication;
          if (pastDeadline()) return fail(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded');
          const result = method.rpc.handle(request, context);
          if (result instanceof Promise) result.then(send, failWith);
          else send(result);
        } catch (err) {
          failWith(err);
        }
      };
      let authentication: ReturnType<typeof authenticateNow>;
      try {
        authentication = authenticateNow(method.rpc, request, metadata, deps);
      } catch (err) {
        return failWith(err);
      }
      if (authentication instanceof Promise) authentication.then(handle, failWith);
      else handle(authentication);
    };

    // A stream that closes before its status was sent: cancelled (as grpc-js counts it).
    stream.once('close', () => finish(GrpcStatus.CANCELLED));
    // Errors end in 'close' as well; without a listener they would end the process.
    stream.on('error', () => {});

    let chunks: Buffer[] = [];
    let received = 0;
    let lengthRead = false;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
      // Longer than one message may be: grpc-js's StreamDecoder refuses it as it arrives.
      if (!lengthRead && received >= 5) {
        lengthRead = true;
        const first = chunks.length === 1 ? chunk : Buffer.concat(chunks, received);
        chunks = [first];
        const length = first.readUInt32BE(1);
        if (length > maxMessageBytes) {
          stream.removeListener('data', onData);
          fail(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${maxMessageBytes})`);
        }
      }
    };
    stream.on('data', onData);
    stream.once('end', () => {
      if (finished) return;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
      chunks = [];
      const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
      if (length < 0 || body.length < 5 + length) {
        return fail(GrpcStatus.UNIMPLEMENTED, `Received no request message for unary method ${method.path}`);
      }
      const rest = body.length - 5 - length;
      // A second complete message (a partial one grpc-js never reads, so it answers the first).
      if (rest >= 5 && rest >= 5 + body.readUInt32BE(5 + length)) {
        return fail(
          GrpcStatus.UNIMPLEMENTED,
          `Received a second request message for server streaming method ${method.path}`,
        );
      }
      // proto-loader hands what it is given to protobufjs's decode, which takes a reader as well.
      answer(method.definition.requestDeserialize(new AsciiMessageReader(body.subarray(5, 5 + length)) as never));
    });
  };

  return {
    gate: (stream, headers) => {
      const method = byPath.get(headers[constants.HTTP2_HEADER_PATH] as string);
      if (method === undefined) return false;
      const contentType = headers[constants.HTTP2_HEADER_CONTENT_TYPE];
      if (contentType !== 'application/grpc' && contentType !== 'application/grpc+proto') return false;
      const encoding = headers['grpc-encoding'];
      if (encoding !== undefined && encoding !== 'identity') return false;
      taken++;
      serve(stream, headers, method);
      return true;
    },
    get taken() {
      return taken;
    },
  };
}
