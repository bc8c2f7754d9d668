// The fast path's reader gives exactly what proto-loader's decoding gives, or gives up (undefined) and
// leaves the message to proto-loader: over a table of plain and not-plain messages, over messages
// proto-loader encodes from generated values, and over random and damaged bytes. A plain message is
// read (not left to the fallback), so a reader that always gave up would fail here too.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readBatchRequest, readEvaluationRequest } from './evaluation-request-reader.js';
import { fliptPackageDefinition } from './protos.js';

type Method = {
  requestSerialize(value: unknown): Buffer;
  requestDeserialize(bytes: Buffer): unknown;
  requestType: { type: { field: { name: string; number: number }[] } };
};
const service = fliptPackageDefinition()['flipt.evaluation.EvaluationService'] as unknown as Record<string, Method>;
const boolean = service.Boolean as Method;
const batch = service.Batch as Method;

const READERS = [
  { name: 'EvaluationRequest', method: boolean, read: readEvaluationRequest },
  { name: 'BatchEvaluationRequest', method: batch, read: readBatchRequest },
] as const;

/** A length-delimited field (wire type 2) with these raw bytes. */
function field(number: number, bytes: number[] | string): number[] {
  const raw = typeof bytes === 'string' ? [...Buffer.from(bytes)] : bytes;
  return [(number << 3) | 2, raw.length, ...raw];
}

/** proto-loader's decoding, a refusal as `{ error }`. */
function decoded(method: Method, bytes: Buffer): unknown {
  try {
    return method.requestDeserialize(bytes);
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const SINGLE = {
  request_id: 'r-1',
  namespace_key: 'default',
  flag_key: 'new-ui',
  entity_id: 'user-1234',
  context: { plan: 'pro', country: 'de', age: '34' },
  reference: 'main',
};

const PLAIN: { name: string; method: Method; bytes: Buffer }[] = [
  { name: 'every field, ASCII', method: boolean, bytes: boolean.requestSerialize(SINGLE) },
  { name: 'empty message (every default)', method: boolean, bytes: Buffer.alloc(0) },
  { name: 'empty strings', method: boolean, bytes: Buffer.from([...field(3, ''), ...field(4, '')]) },
  {
    name: 'a context entry without key, one without value, one empty',
    method: boolean,
    bytes: Buffer.from([...field(5, field(2, 'v')), ...field(5, field(1, 'k')), ...field(5, [])]),
  },
  {
    name: 'value before key in an entry',
    method: boolean,
    bytes: Buffer.from(field(5, [...field(2, 'v'), ...field(1, 'k')])),
  },
  {
    name: 'a field twice (the last wins) and a context key twice (the last wins)',
    method: boolean,
    bytes: Buffer.from([
      ...field(3, 'first'),
      ...field(3, 'second'),
      ...field(5, [...field(1, 'k'), ...field(2, 'a')]),
      ...field(5, [...field(1, 'k'), ...field(2, 'b')]),
    ]),
  },
  {
    name: 'context keys __proto__, constructor and numbers',
    method: boolean,
    bytes: Buffer.from([
      ...field(5, [...field(1, '__proto__'), ...field(2, 'x')]),
      ...field(5, [...field(1, 'constructor'), ...field(2, 'y')]),
      ...field(5, [...field(1, '10'), ...field(2, 'ten')]),
      ...field(5, [...field(1, '2'), ...field(2, 'two')]),
    ]),
  },
  {
    name: 'a string of 200 bytes (a two-byte length)',
    method: boolean,
    bytes: boolean.requestSerialize({ ...SINGLE, entity_id: 'e'.repeat(200) }),
  },
  {
    name: 'a batch of fifty',
    method: batch,
    bytes: batch.requestSerialize({
      request_id: 'b',
      requests: Array.from({ length: 50 }, () => SINGLE),
      reference: 'x',
    }),
  },
  {
    name: 'two-, three- and four-byte characters in a value, keys and ids',
    method: boolean,
    bytes: boolean.requestSerialize({ ...SINGLE, entity_id: 'ユーザー', context: { city: 'München', '🚩': '✓' } }),
  },
  { name: 'a byte over 0x7f alone (invalid UTF-8)', method: boolean, bytes: Buffer.from(field(4, [0x61, 0xff, 0x62])) },
  {
    name: 'a truncated multi-byte sequence and an overlong encoding',
    method: boolean,
    bytes: Buffer.from([...field(3, [0xe3, 0x81]), ...field(4, [0xc0, 0xaf])]),
  },
  {
    name: 'a batch whose item is over 127 bytes (a length byte over 0x7f)',
    method: batch,
    bytes: batch.requestSerialize({ requests: [{ ...SINGLE, entity_id: 'e'.repeat(150) }, SINGLE] }),
  },
  {
    name: 'a batch with one non-ASCII item',
    method: batch,
    bytes: batch.requestSerialize({ requests: [SINGLE, { ...SINGLE, context: { city: 'Zürich' } }] }),
  },
  { name: 'an empty batch', method: batch, bytes: Buffer.alloc(0) },
  { name: 'a batch of empty requests', method: batch, bytes: Buffer.from([...field(3, []), ...field(3, [])]) },
];

const NOT_PLAIN: { name: string; method: Method; bytes: Buffer }[] = [
  { name: 'an unknown field', method: boolean, bytes: Buffer.from([...field(3, 'f'), ...field(9, 'x')]) },
  { name: 'a known field as a varint', method: boolean, bytes: Buffer.from([(3 << 3) | 0, 1, ...field(4, 'e')]) },
  { name: 'a string longer than what is left', method: boolean, bytes: Buffer.from([(4 << 3) | 2, 9, 0x61, 0x62]) },
  { name: 'a length that never ends', method: boolean, bytes: Buffer.from([(4 << 3) | 2, 0x80, 0x80]) },
  {
    name: 'a five-byte length',
    method: boolean,
    bytes: Buffer.from([(4 << 3) | 2, 0x81, 0x80, 0x80, 0x80, 0x00, 0x61]),
  },
  { name: 'a tag in two bytes', method: boolean, bytes: Buffer.from([0x9a, 0x00, 1, 0x61]) },
  {
    name: 'an unknown field in a context entry',
    method: boolean,
    bytes: Buffer.from(field(5, [...field(1, 'k'), ...field(3, 'z')])),
  },
  {
    name: 'a context entry whose key runs past the entry',
    method: boolean,
    bytes: Buffer.from([(5 << 3) | 2, 2, (1 << 3) | 2, 3, 0x61, 0x62, 0x63]),
  },
  { name: "a batch's field 2 (unused on Flipt's wire)", method: batch, bytes: Buffer.from(field(2, 'x')) },
  {
    name: 'a batch item with a non-plain field',
    method: batch,
    bytes: Buffer.from([...field(3, field(3, 'f')), ...field(3, [(3 << 3) | 0, 1])]),
  },
];

describe('evaluation request reader', () => {
  it.each(PLAIN)('$name: read, as proto-loader decodes it', ({ method, bytes }) => {
    const read = method === batch ? readBatchRequest(bytes) : readEvaluationRequest(bytes);
    expect(read).toBeDefined();
    expect(read).toStrictEqual(decoded(method, bytes));
  });

  it("knows every field of the proto's two messages (a new one must be read here too)", () => {
    const fields = (method: Method) => method.requestType.type.field.map((f) => [f.name, f.number]);
    expect(fields(boolean)).toEqual([
      ['request_id', 1],
      ['namespace_key', 2],
      ['flag_key', 3],
      ['entity_id', 4],
      ['context', 5],
      ['reference', 6],
    ]);
    expect(fields(batch)).toEqual([
      ['request_id', 1],
      ['requests', 3],
      ['reference', 4],
    ]);
  });

  it('reads context keys that share a slot with earlier ones as themselves', () => {
    // Keys of one length whose slots collide, each read twice, in turns: a slot's key is reused only
    // for the same bytes.
    const names = Array.from({ length: 300 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    for (const round of [0, 1]) {
      for (const [i, name] of names.entries()) {
        const bytes = boolean.requestSerialize({
          flag_key: name,
          namespace_key: names[(i + round) % names.length],
          context: { [name]: 'v' },
        });
        expect(readEvaluationRequest(bytes)).toStrictEqual(decoded(boolean, bytes));
      }
    }
  });

  it('reads a __proto__ context key as an own property, leaving the prototype alone', () => {
    const read = readEvaluationRequest(Buffer.from(field(5, [...field(1, '__proto__'), ...field(2, 'x')])));
    expect(Object.getPrototypeOf(read?.context)).toBe(Object.prototype);
    expect(Object.entries(read?.context ?? {})).toEqual([['__proto__', 'x']]);
  });

  it.each(NOT_PLAIN)('$name: left to proto-loader', ({ method, bytes }) => {
    expect(method === batch ? readBatchRequest(bytes) : readEvaluationRequest(bytes)).toBeUndefined();
  });

  const ascii = fc.string({ maxLength: 40 });
  const request = fc.record({
    request_id: ascii,
    namespace_key: ascii,
    flag_key: ascii,
    entity_id: ascii,
    context: fc.dictionary(ascii, ascii, { maxKeys: 8 }),
    reference: ascii,
  });
  const anyText = fc.string({ unit: 'grapheme', maxLength: 20 });

  it('reads every request proto-loader encodes, as proto-loader decodes it', () => {
    fc.assert(
      fc.property(request, (value) => {
        const bytes = boolean.requestSerialize(value);
        const read = readEvaluationRequest(bytes);
        expect(read).toBeDefined();
        expect(read).toStrictEqual(decoded(boolean, bytes));
      }),
    );
    fc.assert(
      fc.property(fc.array(request, { maxLength: 5 }), ascii, (requests, id) => {
        const bytes = batch.requestSerialize({ request_id: id, requests });
        const read = readBatchRequest(bytes);
        expect(read).toBeDefined();
        expect(read).toStrictEqual(decoded(batch, bytes));
      }),
    );
  });

  it('reads requests with any text, as proto-loader decodes them', () => {
    fc.assert(
      fc.property(request, anyText, anyText, (value, key, text) => {
        const bytes = boolean.requestSerialize({
          ...value,
          entity_id: text,
          context: { ...value.context, [key]: text },
        });
        const read = readEvaluationRequest(bytes);
        expect(read).toBeDefined();
        expect(read).toStrictEqual(decoded(boolean, bytes));
      }),
    );
  });

  it.each(READERS)(
    '$name: random and damaged bytes are read as proto-loader reads them, or left to it',
    ({ method, read }) => {
      const plain =
        method === batch ? batch.requestSerialize({ requests: [SINGLE, SINGLE] }) : boolean.requestSerialize(SINGLE);
      const damaged = fc
        .tuple(fc.nat({ max: plain.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.nat({ max: plain.length }))
        .map(([at, byte, cut]) => {
          const bytes = Buffer.from(plain);
          bytes[at] = byte;
          return bytes.subarray(0, cut);
        });
      fc.assert(
        fc.property(
          fc.oneof(
            fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b)),
            damaged,
          ),
          (bytes) => {
            const got = read(bytes);
            if (got !== undefined) expect(got).toStrictEqual(decoded(method, bytes));
          },
        ),
        { numRuns: 2_000 },
      );
    },
  );
});
