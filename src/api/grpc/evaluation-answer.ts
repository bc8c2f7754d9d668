// The answers of flipt.evaluation.EvaluationService (Boolean, Variant, Batch) written as protobuf
// bytes, as HTTP writes its evaluation answers from cached JSON (evaluation-json.ts): the engine returns
// shared, frozen results, and the bytes of each result's fields are encoded once and kept in a
// WeakMap, so a call writes only its request id, duration and timestamp between them. The bytes are
// those proto-loader's serializer makes of the same answer (evaluation-answer.test.ts compares them):
// fields in number order, every field the answer has written even when it holds the default (a proto3
// scalar proto-loader is given is present), empty repeated fields left out.
//
// This module is the gRPC side of the seam for speed tricks (docs/architecture.md "Seams"): the
// handlers in evaluation-rpcs.ts hand these bytes to grpc-js, whose serializer passes them through
// (`passEncodedAnswers`).

import { Buffer } from 'node:buffer';
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { BooleanEvaluation, FlagEvaluation, VariantEvaluation } from '../../evaluation/index.js';

// Wire types: 0 varint, 1 fixed64, 2 length-delimited.
const tag = (field: number, wireType: number) => (field << 3) | wireType;

/** flipt.evaluation.EvaluationReason's numbers (proto/evaluation/evaluation.proto). */
const REASONS: Readonly<Record<string, number>> = {
  UNKNOWN_EVALUATION_REASON: 0,
  FLAG_DISABLED_EVALUATION_REASON: 1,
  MATCH_EVALUATION_REASON: 2,
  DEFAULT_EVALUATION_REASON: 3,
};
const ERROR_REASONS: Readonly<Record<string, number>> = {
  UNKNOWN_ERROR_EVALUATION_REASON: 0,
  NOT_FOUND_ERROR_EVALUATION_REASON: 1,
};
const RESPONSE_TYPES: Readonly<Record<string, number>> = {
  VARIANT_EVALUATION_RESPONSE_TYPE: 0,
  BOOLEAN_EVALUATION_RESPONSE_TYPE: 1,
  ERROR_EVALUATION_RESPONSE_TYPE: 2,
};

/** A small growable byte writer for the cached parts (written once per result). */
class Bytes {
  readonly #parts: number[] = [];

  varint(value: number): this {
    // Non-negative integers up to 2^53 (lengths, enums, seconds since 1970).
    let v = value;
    while (v >= 0x80) {
      this.#parts.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.#parts.push(v);
    return this;
  }

  key(field: number, wireType: number): this {
    return this.varint(tag(field, wireType));
  }

  string(field: number, value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    this.key(field, 2).varint(bytes.length);
    for (const b of bytes) this.#parts.push(b);
    return this;
  }

  buffer(): Buffer {
    return Buffer.from(this.#parts);
  }
}

/** A result's fields before and after the per-call ones (request id, duration, timestamp). */
interface Around {
  head: Buffer;
  tail: Buffer;
}

const booleanParts = new WeakMap<BooleanEvaluation, Around>();
const variantParts = new WeakMap<VariantEvaluation, Around>();

/** BooleanEvaluationResponse: enabled 1, reason 2 | request_id 3, duration 4, timestamp 5 | flag_key 6. */
function booleanAround(result: BooleanEvaluation): Around | undefined {
  let parts = booleanParts.get(result);
  if (parts === undefined) {
    const reason = REASONS[result.reason];
    if (reason === undefined) return undefined;
    parts = {
      head: new Bytes()
        .key(1, 0)
        .varint(result.enabled ? 1 : 0)
        .key(2, 0)
        .varint(reason)
        .buffer(),
      tail: new Bytes().string(6, result.flagKey).buffer(),
    };
    booleanParts.set(result, parts);
  }
  return parts;
}

/**
 * VariantEvaluationResponse: match 1, segment_keys 2, reason 3, variant_key 4, variant_attachment 5 |
 * request_id 6, duration 7, timestamp 8 | flag_key 9.
 */
function variantAround(result: VariantEvaluation): Around | undefined {
  let parts = variantParts.get(result);
  if (parts === undefined) {
    const reason = REASONS[result.reason];
    if (reason === undefined) return undefined;
    const head = new Bytes().key(1, 0).varint(result.match ? 1 : 0);
    for (const key of result.segmentKeys) head.string(2, key);
    head.key(3, 0).varint(reason).string(4, result.variantKey).string(5, result.variantAttachment);
    parts = { head: head.buffer(), tail: new Bytes().string(9, result.flagKey).buffer() };
    variantParts.set(result, parts);
  }
  return parts;
}

function varintLength(value: number): number {
  let n = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) n++;
  return n;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  let i = at;
  while (v >= 0x80) {
    out[i++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[i++] = v;
  return i;
}

/**
 * The per-call fields: what they take on the wire, and writing them. The timestamp
 * (google.protobuf.Timestamp: seconds 1, nanos 2, both written) is written in place: at a few
 * thousand calls a second nearly every call is in a millisecond of its own, so bytes kept per
 * millisecond would be made again for each.
 */
class CallFields {
  requestId = '';
  idLength = 0;
  duration = 0;
  seconds = 0;
  nanos = 0;
  stampLength = 0;

  set(requestId: string, duration: number, millis: number): this {
    this.requestId = requestId;
    this.idLength = Buffer.byteLength(requestId, 'utf8');
    this.duration = duration;
    const seconds = Math.floor(millis / 1000);
    this.seconds = seconds;
    this.nanos = (millis - seconds * 1000) * 1_000_000;
    this.stampLength = 2 + varintLength(seconds) + varintLength(this.nanos);
    return this;
  }

  /** Bytes of request_id, duration and timestamp at `first`, `first + 1`, `first + 2`. */
  get length(): number {
    return 1 + varintLength(this.idLength) + this.idLength + 9 + 1 + varintLength(this.stampLength) + this.stampLength;
  }

  write(out: Buffer, at: number, first: number): number {
    let i = writeVarint(out, at, tag(first, 2));
    i = writeVarint(out, i, this.idLength);
    i += out.write(this.requestId, i, 'utf8');
    i = writeVarint(out, i, tag(first + 1, 1));
    out.writeDoubleLE(this.duration, i);
    i += 8;
    i = writeVarint(out, i, tag(first + 2, 2));
    i = writeVarint(out, i, this.stampLength);
    i = writeVarint(out, i, tag(1, 0));
    i = writeVarint(out, i, this.seconds);
    i = writeVarint(out, i, tag(2, 0));
    return writeVarint(out, i, this.nanos);
  }
}

const single = new CallFields();

/** gRPC's message prefix: a compression flag and the message's length. */
export const GRPC_PREFIX = 5;

/**
 * A buffer for `length` answer bytes, after gRPC's 5-byte message prefix (not compressed, the length)
 * when `framed`: the evaluation fast path writes such a frame to the stream as it is, with no copy.
 */
function answerBuffer(length: number, framed: boolean): Buffer {
  if (!framed) return Buffer.allocUnsafe(length);
  const out = Buffer.allocUnsafe(GRPC_PREFIX + length);
  out[0] = 0;
  out.writeUInt32BE(length, 1);
  return out;
}

function singleBytes(
  around: Around,
  first: number,
  requestId: string,
  duration: number,
  millis: number,
  framed: boolean,
): Buffer {
  const fields = single.set(requestId, duration, millis);
  const out = answerBuffer(around.head.length + fields.length + around.tail.length, framed);
  const start = framed ? GRPC_PREFIX : 0;
  around.head.copy(out, start);
  const at = fields.write(out, start + around.head.length, first);
  around.tail.copy(out, at);
  return out;
}

/** BooleanEvaluationResponse bytes (framed: see answerBuffer); undefined when the result has a reason the proto lacks. */
export function booleanAnswerBytes(
  result: BooleanEvaluation,
  requestId: string,
  durationMillis: number,
  millis: number,
  framed = false,
): Buffer | undefined {
  const around = booleanAround(result);
  return around && singleBytes(around, 3, requestId, durationMillis, millis, framed);
}

/** VariantEvaluationResponse bytes (framed: see answerBuffer); undefined when the result has a reason the proto lacks. */
export function variantAnswerBytes(
  result: VariantEvaluation,
  requestId: string,
  durationMillis: number,
  millis: number,
  framed = false,
): Buffer | undefined {
  const around = variantAround(result);
  return around && singleBytes(around, 6, requestId, durationMillis, millis, framed);
}

/** What a batch item needs of its request: its id, and the namespace key as sent (error items). */
export interface BatchItemRequest {
  readonly requestId?: string | null;
  readonly namespaceKey?: string | null;
}

/** ErrorEvaluationResponse (flag_key 1, namespace_key 2, reason 3) inside its EvaluationResponse. */
function errorItemBytes(
  item: Extract<FlagEvaluation, { type: 'ERROR_EVALUATION_RESPONSE_TYPE' }>,
  namespaceKey: string,
): Buffer | undefined {
  const reason = ERROR_REASONS[item.errorResponse.reason];
  if (reason === undefined) return undefined;
  const inner = new Bytes()
    .string(1, item.errorResponse.flagKey)
    .string(2, namespaceKey)
    .key(3, 0)
    .varint(reason)
    .buffer();
  const outer = new Bytes()
    .key(1, 0)
    .varint(RESPONSE_TYPES.ERROR_EVALUATION_RESPONSE_TYPE as number)
    .key(4, 2)
    .varint(inner.length)
    .buffer();
  return Buffer.concat([outer, inner]);
}

/**
 * BatchEvaluationResponse bytes (request_id 1, responses 2, request_duration_millis 3): each item an
 * EvaluationResponse (type 1, then boolean_response 2, variant_response 3 or error_response 4) whose
 * answer carries its own request's id and the duration and time at which it was written, as
 * evaluation-rpcs.ts stamps them. `durationAt` gives the duration so far; `framed`: see answerBuffer.
 * Undefined when an item has a type or reason the proto lacks.
 */
export function batchAnswerBytes(
  requestId: string,
  requests: readonly (BatchItemRequest | undefined)[],
  items: readonly FlagEvaluation[],
  durationAt: () => number,
  millisAt: () => number,
  framed = false,
): Buffer | undefined {
  const pieces: Buffer[] = [];
  let length = 0;
  const fields = new CallFields();
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as FlagEvaluation;
    const request = requests[i];
    let piece: Buffer | undefined;
    if (item.type === 'ERROR_EVALUATION_RESPONSE_TYPE') {
      piece = errorItemBytes(item, request?.namespaceKey ?? '');
    } else {
      const boolean = item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE';
      const around = boolean ? booleanAround(item.booleanResponse) : variantAround(item.variantResponse);
      if (around === undefined) return undefined;
      fields.set(request?.requestId ?? '', durationAt(), millisAt());
      const innerLength = around.head.length + fields.length + around.tail.length;
      // type, then the oneof member (2 boolean, 3 variant) with its length.
      piece = Buffer.allocUnsafe(2 + 1 + varintLength(innerLength) + innerLength);
      let at = writeVarint(piece, 0, tag(1, 0));
      at = writeVarint(piece, at, boolean ? 1 : 0);
      at = writeVarint(piece, at, tag(boolean ? 2 : 3, 2));
      at = writeVarint(piece, at, innerLength);
      around.head.copy(piece, at);
      at = fields.write(piece, at + around.head.length, boolean ? 3 : 6);
      around.tail.copy(piece, at);
    }
    if (piece === undefined) return undefined;
    pieces.push(piece);
    length += 1 + varintLength(piece.length) + piece.length;
  }
  const idLength = Buffer.byteLength(requestId, 'utf8');
  const out = answerBuffer(1 + varintLength(idLength) + idLength + length + 9, framed);
  let at = writeVarint(out, framed ? GRPC_PREFIX : 0, tag(1, 2));
  at = writeVarint(out, at, idLength);
  at += out.write(requestId, at, 'utf8');
  for (const piece of pieces) {
    at = writeVarint(out, at, tag(2, 2));
    at = writeVarint(out, at, piece.length);
    piece.copy(out, at);
    at += piece.length;
  }
  at = writeVarint(out, at, tag(3, 1));
  out.writeDoubleLE(durationAt(), at);
  return out;
}

/**
 * The service definition with every method's serializer passing bytes through: a handler that
 * answers with a Buffer (the bytes above) has already encoded its answer.
 */
export function passEncodedAnswers(definition: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => {
      const serialize = method.responseSerialize;
      const passing = (value: unknown) => (Buffer.isBuffer(value) ? value : serialize(value));
      return [name, { ...method, responseSerialize: passing }];
    }),
  ) as ServiceDefinition;
}
