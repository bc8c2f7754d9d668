// The evaluation fast path's reading of its two request messages, flipt.evaluation.EvaluationRequest
// and BatchEvaluationRequest, in the shape they nearly always have: known fields only, each with its
// own wire type, lengths within the message. protobufjs's generic decoding (a message object with
// prototype defaults, then proto-loader's toObject copying it into a plain one) was the largest part of
// a call that was Vexil's own (docs/performance.md, technique 29); this reads the bytes once into the
// plain object toObject would give. Strings come from one Latin-1 decoding of the message when a
// string's bytes are ASCII (Latin-1 is then UTF-8), and from Buffer's UTF-8 decoding otherwise, as
// protobufjs reads them on Node.
//
// It is not a protobuf decoder: anything else — an unknown field, a field with another wire type, a
// varint longer than a length needs, a length past its message — gives undefined and the caller decodes
// with proto-loader, which stays the authority on what a message means and on what is malformed
// (evaluation-request-reader.test.ts holds the two equal over generated messages and random bytes;
// docs/adr/0050-evaluation-request-reader.md).

import { isAscii } from 'node:buffer';
import type { BatchRequestMessage, EvaluationRequestMessage } from './evaluation-rpcs.js';

// Tags (field number << 3 | wire type 2, length-delimited): every field these messages have.
const REQUEST_ID = 0x0a; // 1, both messages
const NAMESPACE_KEY = 0x12; // 2
const FLAG_KEY = 0x1a; // 3
const ENTITY_ID = 0x22; // 4
const CONTEXT = 0x2a; // 5, a map<string, string> entry
const REFERENCE = 0x32; // 6
const MAP_KEY = 0x0a; // an entry's key, 1
const MAP_VALUE = 0x12; // an entry's value, 2
const BATCH_REQUESTS = 0x1a; // 3, an EvaluationRequest
const BATCH_REFERENCE = 0x22; // 4

/** Thrown to give up on the message (the caller decodes it with proto-loader); made once, compared by identity. */
const NOT_PLAIN = new Error('not a plain evaluation request');

/**
 * Context keys repeat from call to call, and each new string stored as a property is internalized
 * (hashed, looked up in V8's string table). So a key whose bytes match the one last seen in its slot is
 * that same string, already internalized. A slot is picked by the key's length and end bytes; a miss
 * replaces it. Values and ids, which vary, are not kept; nor flag and namespace keys, which are only
 * hashed for a Map and of which a batch holds many (a miss costs more than the hash it saves).
 */
const KEY_SLOTS = 64;
const LONGEST_KEPT_KEY = 64;
const recentContextKeys: (string | undefined)[] = new Array<string | undefined>(KEY_SLOTS).fill(undefined);

/** A position in one message's bytes and their Latin-1 text (for ASCII, their UTF-8 one). */
class Cursor {
  pos = 0;
  readonly text: string;
  /** Every byte of the message is ASCII (the usual request), so no string needs a look of its own. */
  readonly ascii: boolean;

  constructor(readonly bytes: Buffer) {
    this.text = bytes.toString('latin1');
    this.ascii = isAscii(bytes);
  }

  /** A length: a varint of at most four bytes (a message is far below 2^28 bytes), within `end`. */
  length(end: number): number {
    const { bytes } = this;
    let pos = this.pos;
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw NOT_PLAIN;
      const byte = bytes[pos++] as number;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        if (pos + value > end) throw NOT_PLAIN;
        this.pos = pos;
        return value;
      }
    }
    throw NOT_PLAIN;
  }

  /** Moves past a length-delimited field's bytes and returns where they start (they end at `pos`). */
  skip(end: number): number {
    const length = this.length(end);
    const start = this.pos;
    this.pos = start + length;
    return start;
  }

  string(end: number): string {
    const start = this.skip(end);
    const stop = this.pos;
    if (!this.asciiBetween(start, stop)) return this.bytes.toString('utf8', start, stop);
    return this.text.slice(start, stop);
  }

  /** A context key (recentContextKeys). */
  contextKey(end: number): string {
    const start = this.skip(end);
    const stop = this.pos;
    const length = stop - start;
    const { bytes } = this;
    if (!this.asciiBetween(start, stop)) return bytes.toString('utf8', start, stop);
    if (length === 0 || length > LONGEST_KEPT_KEY) return this.text.slice(start, stop);
    const slot = (length * 31 + (bytes[start] as number) * 7 + (bytes[stop - 1] as number)) & (KEY_SLOTS - 1);
    const recent = recentContextKeys[slot];
    if (recent !== undefined && recent.length === length && this.text.startsWith(recent, start)) return recent;
    // Up to 12 characters a slice is a copy; a longer one would keep the message's text alive.
    const fresh = length <= 12 ? this.text.slice(start, stop) : bytes.toString('latin1', start, stop);
    recentContextKeys[slot] = fresh;
    return fresh;
  }

  asciiBetween(start: number, stop: number): boolean {
    if (this.ascii) return true;
    const { bytes } = this;
    for (let i = start; i < stop; i++) {
      if ((bytes[i] as number) >= 0x80) return false;
    }
    return true;
  }

  /** An EvaluationRequest from here to `end`, in the shape and key order proto-loader gives it. */
  request(end: number): EvaluationRequestMessage {
    const message: EvaluationRequestMessage = {
      context: {},
      request_id: '',
      namespace_key: '',
      flag_key: '',
      entity_id: '',
      reference: '',
    };
    const { bytes } = this;
    while (this.pos < end) {
      switch (bytes[this.pos++]) {
        case REQUEST_ID:
          message.request_id = this.string(end);
          break;
        case NAMESPACE_KEY:
          message.namespace_key = this.string(end);
          break;
        case FLAG_KEY:
          message.flag_key = this.string(end);
          break;
        case ENTITY_ID:
          message.entity_id = this.string(end);
          break;
        case CONTEXT: {
          const length = this.length(end);
          this.contextEntry(message.context, this.pos + length);
          break;
        }
        case REFERENCE:
          message.reference = this.string(end);
          break;
        default:
          throw NOT_PLAIN;
      }
    }
    return message;
  }

  /** One map entry; a missing key or value is '' and a later entry for a key replaces an earlier one, as protobufjs reads them. */
  contextEntry(context: Record<string, string>, end: number): void {
    let key = '';
    let value = '';
    const { bytes } = this;
    while (this.pos < end) {
      switch (bytes[this.pos++]) {
        case MAP_KEY:
          key = this.contextKey(end);
          break;
        case MAP_VALUE:
          value = this.string(end);
          break;
        default:
          throw NOT_PLAIN;
      }
    }
    // An own property named __proto__, as protobufjs (and JSON.parse over HTTP) make it, not the prototype.
    if (key === '__proto__')
      Object.defineProperty(context, key, { value, enumerable: true, configurable: true, writable: true });
    else context[key] = value;
  }

  batch(end: number): BatchRequestMessage {
    const message: BatchRequestMessage = { requests: [], request_id: '', reference: '' };
    const { bytes } = this;
    while (this.pos < end) {
      switch (bytes[this.pos++]) {
        case REQUEST_ID:
          message.request_id = this.string(end);
          break;
        case BATCH_REQUESTS: {
          const length = this.length(end);
          message.requests.push(this.request(this.pos + length));
          break;
        }
        case BATCH_REFERENCE:
          message.reference = this.string(end);
          break;
        default:
          throw NOT_PLAIN;
      }
    }
    return message;
  }
}

/** `body` over the whole message, or undefined when the message is not plain. */
function read<T>(message: Buffer, body: (cursor: Cursor, end: number) => T): T | undefined {
  try {
    return body(new Cursor(message), message.length);
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}

const request = (cursor: Cursor, end: number) => cursor.request(end);
const batch = (cursor: Cursor, end: number) => cursor.batch(end);

/** An EvaluationRequest's bytes (no gRPC prefix) as proto-loader decodes them, or undefined when they are not plain. */
export function readEvaluationRequest(message: Buffer): EvaluationRequestMessage | undefined {
  return read(message, request);
}

/** A BatchEvaluationRequest's bytes as proto-loader decodes them, or undefined when they are not plain. */
export function readBatchRequest(message: Buffer): BatchRequestMessage | undefined {
  return read(message, batch);
}
