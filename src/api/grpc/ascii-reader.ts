// Request messages read with their strings taken from one decoding of the whole message, when every
// byte of it is ASCII (the usual evaluation request: keys, ids and context values). protobufjs reads
// each string of a Buffer through `Buffer#utf8Slice`, a call into C++ per string, which cost the
// evaluation fast path about as much as the rest of its own work (docs/performance.md, issue 39);
// for ASCII bytes a Latin-1 decoding is the UTF-8 one, so the message decodes to the same object.
// Any byte at or above 0x80 leaves the reader to protobufjs's own `string()`.

import { isAscii } from 'node:buffer';
import protobuf from 'protobufjs';

export class AsciiMessageReader extends protobuf.BufferReader {
  readonly #text: string | undefined;

  constructor(message: Buffer) {
    super(message);
    this.#text = isAscii(message) ? message.toString('latin1') : undefined;
  }

  override string(): string {
    const text = this.#text;
    if (text === undefined) return super.string();
    const length = this.uint32();
    const start = this.pos;
    this.pos = Math.min(start + length, this.len);
    return text.slice(start, this.pos);
  }
}
