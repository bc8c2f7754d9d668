// flipt.evaluation.EvaluationService's Boolean, Variant and Batch answered on the HTTP/2 stream itself,
// without grpc-js's per-call machinery (its call object, interceptor layers, metadata objects and
// listener chain), which cost about as much as the evaluation (docs/performance.md;
// docs/adr/0043-grpc-evaluation-fast-path.md). It takes only plain calls: one of these three
// paths, `content-type: application/grpc` (or `+proto`), no message encoding but identity, tracing off
// (spans need grpc-js's listener chain). Everything else goes to grpc-js unchanged. What it does is the
// grpc-js path's, from the same parts:
// - the request read as grpc-js reads a unary one (frames may arrive split): one length-prefixed
//   message, read as proto-loader decodes it (evaluation-request-reader.ts, or the method's own safe
//   decoder for a message that is not plain); no message or a second one UNIMPLEMENTED, one
//   over the limit RESOURCE_EXHAUSTED, bytes that are no message INVALID_ARGUMENT (request-decoding.ts);
// - the deadline of `grpc-timeout` (a call past it does no work: DEADLINE_EXCEEDED);
// - authentication through rpc.ts's `authenticate` on every call (token hashes cached per token value,
//   the look-up made per call, so a deleted or expired token is refused at once);
// - the answer from the table entry's handler (cached protobuf bytes, evaluation-answer.ts) with grpc-js's
//   response headers, `x-vexil-revision`, and the status in trailers; a failure trailers-only;
// - telemetry as the interceptor records it (telemetry/grpc.ts): the call metric, the log line, and the
//   drain's count from start to status or cancellation.

import { Buffer } from 'node:buffer';
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { status as GrpcStatus, Metadata, type MethodDefinition } from '@grpc/grpc-js';
import type { Authentication } from '../../domain/authentication.js';
import { type GrpcTelemetry, recordGrpcCall } from '../../telemetry/grpc.js';
import { REVISION_HEADER } from '../kinds.js';
import { answerStatus, currentDate } from './call-screening.js';
import { GRPC_PREFIX } from './evaluation-answer.js';
import { readBatchRequest, readEvaluationRequest } from './evaluation-request-reader.js';
import { snakeFields } from './field-case.js';
import { malformedRequestStatus } from './request-decoding.js';
import { type AnyRpc, authenticateNow, type RpcContext, type RpcDeps, statusOf } from './rpc.js';
import type { StreamGate } from './stream-gate.js';

/** The methods this path answers, each with its reading of a plain request (evaluation-request-reader.ts). */
type RequestReader = (message: Buffer) => unknown;
const READERS: ReadonlyMap<string, RequestReader> = new Map<string, RequestReader>([
  ['/flipt.evaluation.EvaluationService/Boolean', readEvaluationRequest],
  ['/flipt.evaluation.EvaluationService/Variant', readEvaluationRequest],
  ['/flipt.evaluation.EvaluationService/Batch', readBatchRequest],
]);

/** A unary method as registered with grpc-js: its table entry and its (safe, passing) definition. */
export interface RegisteredMethod {
  path: string;
  rpc: AnyRpc;
  definition: MethodDefinition<unknown, unknown>;
}

/** A method this path takes, with the reader of its plain requests. */
interface FastMethod extends RegisteredMethod {
  read: RequestReader;
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
 * Response headers grpc-js sends before an answer (server-interceptors.ts), plus the revision, and the
 * `date` Node would add (call-screening.ts `currentDate`; ANSWER_OPTIONS tells Node not to). The object
 * is kept while the revision (it changes with a namespace's writes, not per call) and the date stay the
 * same; Node only reads it.
 */
let lastRevision: string | undefined;
let lastDate = '';
let lastHeaders: Record<string, string | number> = {};
function answerHeaders(revision: string | undefined) {
  const date = currentDate();
  if (revision !== lastRevision || date !== lastDate) {
    lastRevision = revision;
    lastDate = date;
    lastHeaders = headersFor(revision, date);
  }
  return lastHeaders;
}

function headersFor(revision: string | undefined, date: string) {
  const headers: Record<string, string | number> = {
    [constants.HTTP2_HEADER_STATUS]: 200,
    [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
    'grpc-accept-encoding': 'identity,deflate,gzip',
    'grpc-encoding': 'identity',
    [constants.HTTP2_HEADER_DATE]: date,
  };
  if (revision !== undefined) headers[REVISION_HEADER] = revision;
  return headers;
}

const OK_TRAILERS = { 'grpc-status': GrpcStatus.OK, 'grpc-message': 'OK' };

/**
 * `respond`'s options, every one Node reads named, in one object made once. Given `{ waitForTrailers:
 * true }`, Node's copy of it (`{ ...options }`, then `endStream` added) missed V8's megamorphic inline
 * caches on `endStream`, `waitForTrailers` and `sendDate` on every call (`--log-ic`, also in a bare
 * node:http2 server); with all three present it does not (technique 31). The date is in the headers.
 */
const ANSWER_OPTIONS = { endStream: false, waitForTrailers: true, sendDate: false };

/** The listeners every call shares: they read the stream they are called on. */
function ignoreError() {}
function sendOkTrailers(this: ServerHttp2Stream) {
  this.sendTrailers(OK_TRAILERS);
}

/** Metadata for a call that carries neither header authentication reads (nothing writes to it). */
const NO_CREDENTIALS = new Metadata();

/** What every call of one fast path shares. */
interface Shared {
  deps: RpcDeps;
  telemetry: GrpcTelemetry;
  maxMessageBytes: number;
}

/**
 * One call: its state in one object with three listeners on its stream, rather than a closure per
 * step and a listener per event (each costs per call). It is also the handler's context.
 */
class FastCall implements RpcContext {
  readonly started = performance.now();
  readonly deadline: number;
  readonly counted: (() => void) | undefined;
  metadata = NO_CREDENTIALS;
  authentication: Authentication | null = null;
  readonly framesAnswer = true;
  revision: string | undefined = undefined;
  finished = false;
  /** The request's bytes as they arrive. */
  readonly onData = (chunk: Buffer) => this.data(chunk);
  chunks: Buffer[] = [];
  received = 0;
  lengthRead = false;

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    readonly method: FastMethod,
    readonly shared: Shared,
  ) {
    this.deadline = deadlineOf(headers['grpc-timeout']);
    this.counted = shared.telemetry.onCall?.(method.definition as never);
  }

  setRevision(value: string): void {
    if (value !== '') this.revision = value;
  }

  finish(code: number): void {
    if (this.finished) return;
    this.finished = true;
    recordGrpcCall(this.shared.telemetry, this.method.path, code, this.started);
    this.counted?.();
  }

  fail(code: number, details: string): void {
    if (this.stream.destroyed || this.stream.closed) return;
    this.finish(code);
    answerStatus(this.stream, code, details);
  }

  failWith(err: unknown): void {
    const { code, details } = statusOf(err);
    this.fail(code, details);
  }

  /** The stream ended, or the deadline passed (no timer per call as grpc-js sets one: a late call is refused instead). */
  gone(): boolean {
    if (this.stream.destroyed || this.stream.closed) return true;
    if (this.deadline !== Number.POSITIVE_INFINITY && this.deadline <= Date.now()) {
      this.fail(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded');
      return true;
    }
    return false;
  }

  data(chunk: Buffer): void {
    this.received += chunk.length;
    this.chunks.push(chunk);
    // Longer than one message may be: grpc-js's StreamDecoder refuses it as it arrives.
    if (!this.lengthRead && this.received >= 5) {
      this.lengthRead = true;
      const first = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.received);
      this.chunks = [first];
      const length = first.readUInt32BE(1);
      const max = this.shared.maxMessageBytes;
      if (length > max) {
        this.stream.removeListener('data', this.onData);
        this.fail(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs. ${max})`);
      }
    }
  }

  end(): void {
    if (this.finished) return;
    const { chunks, received, method } = this;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received);
    this.chunks = [];
    const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
    if (length < 0 || body.length < 5 + length) {
      this.fail(GrpcStatus.UNIMPLEMENTED, `Received no request message for unary method ${method.path}`);
      return;
    }
    const rest = body.length - 5 - length;
    // A second complete message (a partial one grpc-js never reads, so it answers the first).
    if (rest >= 5 && rest >= 5 + body.readUInt32BE(5 + length)) {
      this.fail(
        GrpcStatus.UNIMPLEMENTED,
        `Received a second request message for server streaming method ${method.path}`,
      );
      return;
    }
    const message = body.subarray(5, 5 + length);
    // A request that is not plain (an unknown field, bytes that are no message) is proto-loader's.
    this.answer(method.read(message) ?? method.definition.requestDeserialize(message));
  }

  /** The decoded request: checked, authenticated and answered as rpc.ts's unaryHandler does. */
  answer(request: unknown): void {
    const malformed = malformedRequestStatus(request);
    if (malformed) {
      this.fail(malformed.code, malformed.details);
      return;
    }
    if (this.gone()) return;
    const { authorization, cookie } = this.headers;
    if (typeof authorization === 'string' || typeof cookie === 'string') {
      const metadata = new Metadata();
      if (typeof authorization === 'string') metadata.set('authorization', authorization);
      if (typeof cookie === 'string') metadata.set('cookie', cookie);
      this.metadata = metadata;
    }
    // Synchronous when nothing needs waiting for (no token look-up, the snapshot held), as over HTTP;
    // a promise only where one of them waits.
    let authentication: ReturnType<typeof authenticateNow>;
    try {
      authentication = authenticateNow(this.method.rpc, request, this.metadata, this.shared.deps);
    } catch (err) {
      this.failWith(err);
      return;
    }
    if (authentication instanceof Promise) {
      authentication.then(
        (found) => this.handle(request, found),
        (err: unknown) => this.failWith(err),
      );
    } else this.handle(request, authentication);
  }

  // A handler's refusal may be thrown at once (a batch over the limit): answered as a rejection is.
  handle(request: unknown, authentication: Authentication | null): void {
    try {
      this.authentication = authentication;
      if (this.gone()) return;
      const result = this.method.rpc.handle(request, this);
      if (result instanceof Promise) {
        result.then(
          (done) => this.send(done),
          (err: unknown) => this.failWith(err),
        );
      } else this.send(result);
    } catch (err) {
      this.failWith(err);
    }
  }

  send(result: unknown): void {
    if (this.gone()) return;
    // The handler's bytes come framed (framesAnswer); the object form is encoded and framed here.
    const frame = Buffer.isBuffer(result)
      ? result
      : frameOf(this.method.definition.responseSerialize(snakeFields(result)));
    this.finish(GrpcStatus.OK);
    const { stream } = this;
    stream.respond(answerHeaders(this.revision), ANSWER_OPTIONS);
    stream.on('wantTrailers', sendOkTrailers);
    stream.end(frame);
  }
}

/** `bytes` as one length-prefixed gRPC message. */
function frameOf(bytes: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(GRPC_PREFIX + bytes.length);
  frame[0] = 0;
  frame.writeUInt32BE(bytes.length, 1);
  bytes.copy(frame, GRPC_PREFIX);
  return frame;
}

/**
 * The fast path over `methods` (those READERS names are taken), or undefined when it cannot apply:
 * tracing on (spans are grpc-js's listener chain's).
 */
export function evaluationFastPath(
  methods: readonly RegisteredMethod[],
  deps: RpcDeps,
  telemetry: GrpcTelemetry,
  maxMessageBytes: number,
): FastPath | undefined {
  if (telemetry.tracing.enabled) return undefined;
  const fastMethods: FastMethod[] = [];
  for (const method of methods) {
    const read = READERS.get(method.path);
    if (read !== undefined) fastMethods.push({ ...method, read });
  }
  // A comparison per method rather than a Map, which would hash each call's new path string first.
  const methodAt = (path: unknown): FastMethod | undefined => {
    for (const method of fastMethods) if (method.path === path) return method;
    return undefined;
  };
  const shared: Shared = { deps, telemetry, maxMessageBytes };
  let taken = 0;

  const serve = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, method: FastMethod) => {
    const call = new FastCall(stream, headers, method, shared);
    // A stream that closes before its status was sent: cancelled (as grpc-js counts it).
    stream.on('close', () => call.finish(GrpcStatus.CANCELLED));
    // Errors end in 'close' as well; without a listener they would end the process.
    stream.on('error', ignoreError);
    stream.on('data', call.onData);
    stream.on('end', () => call.end());
  };

  return {
    gate: (stream, headers) => {
      const method = methodAt(headers[constants.HTTP2_HEADER_PATH]);
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
