// The fast path's reader decodes every request message to what proto-loader's own decoding gives:
// ASCII strings from one Latin-1 decoding, anything else through protobufjs's UTF-8 reading, whatever
// the bytes (multi-byte characters, invalid UTF-8, lengths past the end).

import { describe, expect, it } from 'vitest';
import { AsciiMessageReader } from './ascii-reader.js';
import { fliptPackageDefinition } from './protos.js';

type Method = { requestSerialize(value: unknown): Buffer; requestDeserialize(bytes: Buffer): unknown };
const service = fliptPackageDefinition()['flipt.evaluation.EvaluationService'] as unknown as Record<string, Method>;
const boolean = service.Boolean as Method;
const batch = service.Batch as Method;

/** A string field (tag `field`, wire type 2) with these raw bytes. */
function stringField(field: number, bytes: number[]): number[] {
  return [(field << 3) | 2, bytes.length, ...bytes];
}

const SINGLE = { namespace_key: 'default', flag_key: 'new-ui', entity_id: 'user-1234', context: { plan: 'pro' } };

const ROWS: { name: string; method: Method; bytes: Buffer }[] = [
  { name: 'ASCII throughout', method: boolean, bytes: boolean.requestSerialize(SINGLE) },
  { name: 'empty message', method: boolean, bytes: Buffer.alloc(0) },
  {
    name: 'empty strings and an empty context value',
    method: boolean,
    bytes: boolean.requestSerialize({ flag_key: '', entity_id: '', context: { k: '' } }),
  },
  {
    name: 'two-byte characters in a context value',
    method: boolean,
    bytes: boolean.requestSerialize({ ...SINGLE, context: { city: 'München', name: 'José' } }),
  },
  {
    name: 'three- and four-byte characters in keys and ids',
    method: boolean,
    bytes: boolean.requestSerialize({ ...SINGLE, entity_id: 'ユーザー', context: { '🚩': '✓' } }),
  },
  {
    name: 'a byte over 0x7f alone (invalid UTF-8)',
    method: boolean,
    bytes: Buffer.from(stringField(4, [0x61, 0xff, 0x62])),
  },
  {
    name: 'a truncated multi-byte sequence and an overlong encoding',
    method: boolean,
    bytes: Buffer.from([...stringField(3, [0xe3, 0x81]), ...stringField(4, [0xc0, 0xaf])]),
  },
  { name: 'a string longer than what is left', method: boolean, bytes: Buffer.from([(4 << 3) | 2, 9, 0x61, 0x62]) },
  {
    name: 'a batch of fifty, ASCII',
    method: batch,
    bytes: batch.requestSerialize({ request_id: 'b', requests: Array.from({ length: 50 }, () => SINGLE) }),
  },
  {
    name: 'a batch with one non-ASCII item',
    method: batch,
    bytes: batch.requestSerialize({ requests: [SINGLE, { ...SINGLE, context: { city: 'Zürich' } }] }),
  },
];

/** What decoding gives, an error as its message (the safe decoder turns it into INVALID_ARGUMENT). */
function decoded(decode: () => unknown): unknown {
  try {
    return decode();
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('AsciiMessageReader', () => {
  it.each(ROWS)('$name: decodes as proto-loader does from the Buffer', ({ method, bytes }) => {
    const expected = decoded(() => method.requestDeserialize(bytes));
    const viaReader = decoded(() => method.requestDeserialize(new AsciiMessageReader(bytes) as never));
    expect(viaReader).toEqual(expected);
  });

  it('takes its strings from the one decoding only when every byte is ASCII', () => {
    const ascii = new AsciiMessageReader(Buffer.from(stringField(2, [0x61, 0x62])));
    ascii.uint32();
    expect(ascii.string()).toBe('ab');
    const other = new AsciiMessageReader(Buffer.from(stringField(2, [0xc3, 0xa9])));
    other.uint32();
    expect(other.string()).toBe('é');
  });
});
