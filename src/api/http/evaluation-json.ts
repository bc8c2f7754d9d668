// The JSON text of evaluation answers (native /evaluate/v1 and OFREP), written from pieces cached per
// engine result. The engine hands out shared, frozen result objects for every outcome that does not
// depend on the entity (disabled, default, a rule's or rollout's match), so everything in an answer but
// the request id, duration and timestamp is the same text request after request: it is built once per
// result object and kept in a WeakMap (gone with the snapshot that owns the result). A fresh result (a
// partial segment match) is simply written and cached with its object.
//
// Field order and formatting are exactly those of the routes' response schemas (schemas/evaluation.ts,
// schemas/ofrep.ts), which stay on the routes for validation-free documentation (/openapi.json);
// evaluation-json.test.ts checks the text against Fastify's own serializer for those schemas.

import type { BooleanEvaluation, FlagEvaluation, VariantEvaluation } from '../../evaluation/index.js';
import { ofrepReason } from '../ofrep-shapes.js';

/** What the routes set for the answers written here (the same as Fastify sets for JSON objects). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The text of one answer around its per-request fields: `head` + request fields + `tail`. */
interface Pieces {
  /** Up to and including `"requestId":` (the request id value follows). */
  readonly head: string;
  /** From the field after `timestamp` to the closing brace. */
  readonly tail: string;
}

const str = JSON.stringify;

/**
 * A string as JSON text. Most strings written per request (request ids: UUIDs, or visible ASCII from
 * X-Request-Id) need no escaping, and quoting them directly costs a fraction of JSON.stringify.
 */
export function jsonString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return str(value);
  }
  return `"${value}"`;
}

/**
 * A duration as JSON text, in whole milliseconds (rounded): interface.md types requestDurationMillis as
 * an integer. Flipt writes a fractional double, and an integer reads as one in every Flipt client.
 */
export function millisText(ms: number): string {
  return String(Math.round(ms));
}

function segmentKeysJson(keys: readonly string[]): string {
  return keys.length === 0 ? '[]' : str(keys);
}

const booleanPieces = new WeakMap<BooleanEvaluation, Pieces>();
const variantPieces = new WeakMap<VariantEvaluation, Pieces>();

function piecesOfBoolean(r: BooleanEvaluation): Pieces {
  let pieces = booleanPieces.get(r);
  if (pieces === undefined) {
    // Wire order: enabled, reason, requestId, requestDurationMillis, timestamp, flagKey, segmentKeys.
    pieces = {
      head: `{"enabled":${r.enabled},"reason":"${r.reason}","requestId":`,
      tail: `,"flagKey":${str(r.flagKey)},"segmentKeys":${segmentKeysJson(r.segmentKeys)}}`,
    };
    booleanPieces.set(r, pieces);
  }
  return pieces;
}

function piecesOfVariant(r: VariantEvaluation): Pieces {
  let pieces = variantPieces.get(r);
  if (pieces === undefined) {
    // Wire order: match, segmentKeys, reason, variantKey, variantAttachment, requestId,
    // requestDurationMillis, timestamp, flagKey.
    pieces = {
      head:
        `{"match":${r.match},"segmentKeys":${segmentKeysJson(r.segmentKeys)},"reason":"${r.reason}",` +
        `"variantKey":${str(r.variantKey)},"variantAttachment":${str(r.variantAttachment)},"requestId":`,
      tail: `,"flagKey":${str(r.flagKey)}}`,
    };
    variantPieces.set(r, pieces);
  }
  return pieces;
}

/**
 * `,"requestDurationMillis":…,"timestamp":"…"` after the request id. A request id is client input
 * (or a UUID), so it is escaped where needed; the timestamp is RFC 3339 text and needs no escaping.
 */
function requestFields(requestId: string, durationMillis: number, timestamp: string): string {
  return `${jsonString(requestId)},"requestDurationMillis":${millisText(durationMillis)},"timestamp":"${timestamp}"`;
}

/** Flipt's BooleanEvaluationResponse. */
export function booleanResponseJson(
  result: BooleanEvaluation,
  requestId: string,
  durationMillis: number,
  timestamp: string,
): string {
  const p = piecesOfBoolean(result);
  return p.head + requestFields(requestId, durationMillis, timestamp) + p.tail;
}

/** Flipt's VariantEvaluationResponse. */
export function variantResponseJson(
  result: VariantEvaluation,
  requestId: string,
  durationMillis: number,
  timestamp: string,
): string {
  const p = piecesOfVariant(result);
  return p.head + requestFields(requestId, durationMillis, timestamp) + p.tail;
}

/** One item of a batch request, as far as the answer echoes it. */
export interface BatchItemRequest {
  readonly requestId?: string | null;
  readonly namespaceKey?: string | null;
}

/**
 * Flipt's BatchEvaluationResponse: each item carries its own request's id (or "") and the batch's
 * duration and end time; a missing flag is an error item echoing the namespace as sent (possibly "").
 *
 * Written as UTF-8 bytes, copied from pieces: each result's text before and after its request id is
 * encoded once and cached, the batch's duration and time once per answer. Built as a string instead
 * (+= or join), 50 items made a rope of hundreds of pieces, flattened once to measure it for
 * Content-Length and again to write it (measured: docs/performance.md).
 */
export function batchResponseJson(
  requestId: string,
  requests: readonly BatchItemRequest[],
  items: readonly FlagEvaluation[],
  durationMillis: number,
  timestamp: string,
): Buffer {
  const duration = millisText(durationMillis);
  const open = Buffer.from(`{"requestId":${jsonString(requestId)},"responses":[`);
  const afterId = Buffer.from(`,"requestDurationMillis":${duration},"timestamp":"${timestamp}"`);
  const close = Buffer.from(`],"requestDurationMillis":${duration}}`);
  // First the pieces and the length, then one copy of each piece into the answer. An item is its
  // head, its id (usually none: "" is written directly), the batch's afterId and its tail; an error
  // item is only a head.
  const heads = batchHeads;
  const ids = batchIds;
  const tails = batchTails;
  let length = open.length + close.length + Math.max(items.length - 1, 0);
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as FlagEvaluation;
    const itemId = requests[i]?.requestId;
    let bytes: ItemBytes;
    if (item.type !== 'ERROR_EVALUATION_RESPONSE_TYPE') bytes = batchBytesOf(item);
    else {
      const text =
        `{"type":"ERROR_EVALUATION_RESPONSE_TYPE","errorResponse":{"flagKey":${str(item.errorResponse.flagKey)},` +
        `"namespaceKey":${str(requests[i]?.namespaceKey ?? '')},"reason":"${item.errorResponse.reason}"}}`;
      bytes = { head: Buffer.from(text), tail: undefined };
    }
    const id = bytes.tail === undefined || !itemId ? undefined : Buffer.from(jsonString(itemId));
    heads[i] = bytes.head;
    ids[i] = id;
    tails[i] = bytes.tail;
    length += bytes.head.length;
    if (bytes.tail !== undefined) length += (id?.length ?? 2) + afterId.length + bytes.tail.length;
  }
  const out = answerBuffer(length);
  out.set(open, 0);
  let at = open.length;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const head = heads[i] as Buffer;
    out.set(head, at);
    at += head.length;
    const tail = tails[i];
    if (tail === undefined) continue;
    const id = ids[i];
    if (id === undefined) {
      out[at++] = QUOTE;
      out[at++] = QUOTE;
    } else {
      out.set(id, at);
      at += id.length;
    }
    out.set(afterId, at);
    at += afterId.length;
    out.set(tail, at);
    at += tail.length;
  }
  out.set(close, at);
  // The scratch lists keep no answer's pieces alive.
  heads.length = 0;
  ids.length = 0;
  tails.length = 0;
  return out;
}

// Scratch lists of one answer's pieces (batchResponseJson is synchronous, so one set serves all).
const batchHeads: Buffer[] = [];
const batchIds: (Buffer | undefined)[] = [];
const batchTails: (Buffer | undefined)[] = [];
const QUOTE = 0x22;

/** A batch item's bytes around its request id: the item's opening and the answer's head, then its tail. */
interface ItemBytes {
  readonly head: Buffer;
  /** Undefined for an error item, which has no request fields. */
  readonly tail: Buffer | undefined;
}

/** A found item of a batch: a boolean or variant result. */
type FoundItem = Exclude<FlagEvaluation, { type: 'ERROR_EVALUATION_RESPONSE_TYPE' }>;

const batchItemBytes = new WeakMap<BooleanEvaluation | VariantEvaluation, ItemBytes>();

/** A found item's bytes around its request id, built once per engine result. */
function batchBytesOf(item: FoundItem): ItemBytes {
  const boolean = item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE';
  const result = boolean ? item.booleanResponse : item.variantResponse;
  let bytes = batchItemBytes.get(result);
  if (bytes === undefined) {
    const p = boolean ? piecesOfBoolean(item.booleanResponse) : piecesOfVariant(item.variantResponse);
    const member = boolean ? 'booleanResponse' : 'variantResponse';
    bytes = { head: Buffer.from(`{"type":"${item.type}","${member}":${p.head}`), tail: Buffer.from(`${p.tail}}`) };
    batchItemBytes.set(result, bytes);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// OFREP (behavior.md §6.2): an evaluated flag has no per-request field at all.

export { ofrepReason };

// Kept as UTF-8 bytes: a bulk answer is then one copy of each flag's bytes into the answer, where a
// string would be joined, measured (content-length) and encoded again on every request.
const ofrepBoolean = new WeakMap<BooleanEvaluation, Buffer>();
const ofrepVariant = new WeakMap<VariantEvaluation, Buffer>();

/** OFREP's EvaluatedFlag for an evaluated (found) flag: key, reason, variant, metadata, value. */
export function ofrepFlagJson(item: FlagEvaluation): Buffer {
  if (item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE') {
    const r = item.booleanResponse;
    let json = ofrepBoolean.get(r);
    if (json === undefined) {
      json = Buffer.from(
        `{"key":${str(r.flagKey)},"reason":"${ofrepReason(r.reason)}","variant":"${r.enabled}",` +
          `"metadata":{},"value":${r.enabled}}`,
      );
      ofrepBoolean.set(r, json);
    }
    return json;
  }
  if (item.type === 'VARIANT_EVALUATION_RESPONSE_TYPE') {
    const r = item.variantResponse;
    let json = ofrepVariant.get(r);
    if (json === undefined) {
      // Metadata: the matched segments (comma-separated) and the attachment, each only when present.
      const metadata: string[] = [];
      if (r.segmentKeys.length > 0) metadata.push(`"segments":${str(r.segmentKeys.join(','))}`);
      if (r.variantAttachment !== '') metadata.push(`"attachment":${str(r.variantAttachment)}`);
      const variant = str(r.variantKey);
      json = Buffer.from(
        `{"key":${str(r.flagKey)},"reason":"${ofrepReason(r.reason)}","variant":${variant},` +
          `"metadata":{${metadata.join(',')}},"value":${variant}}`,
      );
      ofrepVariant.set(r, json);
    }
    return json;
  }
  throw new Error(`flag "${item.errorResponse.flagKey}" was not evaluated`);
}

const BULK_HEAD = Buffer.from('{"flags":[');
const BULK_TAIL = Buffer.from(']}');
const COMMA = 0x2c;

// Bulk and batch answers are cut from slabs, as Node cuts Buffers under 4 KiB from its pool: a larger
// answer would get an ArrayBuffer of its own, which costs (measured: docs/performance.md). Each answer is written once and
// handed to the socket; later answers take the space after it, never the same bytes, and a slab is
// freed once no answer cut from it is referenced.
const SLAB_SIZE = 256 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
let slabUsed = 0;

function answerBuffer(length: number): Buffer {
  if (length > SLAB_SIZE / 8) return Buffer.allocUnsafe(length);
  if (slabUsed + length > SLAB_SIZE) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + length);
  slabUsed += (length + 7) & ~7;
  return out;
}

/**
 * OFREP's bulk answer from evaluated flags' JSON, copied once into one buffer. `tail` closes the flags
 * array and the object; with event streams on it carries `"eventStreams"` (features/event-streams/ofrep-advert.ts).
 */
export function ofrepBulkJson(flags: readonly Buffer[], tail: Buffer = BULK_TAIL): Buffer {
  let length = BULK_HEAD.length + tail.length + Math.max(flags.length - 1, 0);
  for (let i = 0; i < flags.length; i++) length += (flags[i] as Buffer).length;
  const out = answerBuffer(length);
  out.set(BULK_HEAD, 0);
  let at = BULK_HEAD.length;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] as Buffer;
    if (i > 0) out[at++] = COMMA;
    out.set(flag, at);
    at += flag.length;
  }
  out.set(tail, at);
  return out;
}
