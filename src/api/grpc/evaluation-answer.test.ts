// The bytes evaluation-answer.ts writes are the bytes proto-loader's serializer (what grpc-js would
// use) makes of the same answer in object form, for every shape of result, request id and time; framed
// (for the fast path), the same bytes after gRPC's message prefix.

import type { ServiceDefinition } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import type { BooleanEvaluation, FlagEvaluation, VariantEvaluation } from '../../evaluation/index.js';
import { batchAnswerBytes, booleanAnswerBytes, passEncodedAnswers, variantAnswerBytes } from './evaluation-answer.js';
import { snakeFields } from './field-case.js';
import { timestampMessage } from './messages.js';
import { fliptGrpcObject } from './protos.js';

const service = fliptGrpcObject().flipt.evaluation.EvaluationService.service as unknown as ServiceDefinition;
const serialize = (method: string, answer: object): Buffer =>
  service[method]?.responseSerialize(snakeFields(answer)) as Buffer;

/** `bytes` as gRPC frames a message: not compressed, its length (big-endian), the bytes. */
const frame = (bytes: Buffer): Buffer => {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([prefix, bytes]);
};
const FRAMINGS = [false, true] as const;
const expectedBytes = (bytes: Buffer, framed: boolean) => (framed ? frame(bytes) : bytes);

const REQUEST_IDS = ['', 'b8c5a7a0-6a5e-4c5e-9d3e-1f2a3b4c5d6e', 'ünïcödé ✓', 'x'.repeat(200)];
const DURATIONS = [0, 0.0123, 1234.5];
const TIMES = [0, 999, Date.UTC(2026, 10, 28, 2, 0, 0, 123), Date.UTC(2100, 0, 1)];

const booleans: BooleanEvaluation[] = [
  { enabled: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['a'], flagKey: 'bool-0' },
  { enabled: false, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: [], flagKey: 'b' },
  { enabled: false, reason: 'FLAG_DISABLED_EVALUATION_REASON', segmentKeys: [], flagKey: '' },
  { enabled: true, reason: 'UNKNOWN_EVALUATION_REASON', segmentKeys: [], flagKey: 'ключ' },
];

const variants: VariantEvaluation[] = [
  {
    match: true,
    segmentKeys: ['pro-eu', 'adults-beta'],
    reason: 'MATCH_EVALUATION_REASON',
    variantKey: 'treatment-a',
    variantAttachment: '{"variant":"treatment-a","weight":3}',
    flagKey: 'variant-1',
  },
  {
    match: false,
    segmentKeys: [],
    reason: 'DEFAULT_EVALUATION_REASON',
    variantKey: '',
    variantAttachment: '',
    flagKey: 'v',
  },
  {
    match: false,
    segmentKeys: [],
    reason: 'FLAG_DISABLED_EVALUATION_REASON',
    variantKey: 'x',
    variantAttachment: `{"long":"${'é'.repeat(300)}"}`,
    flagKey: 'v2',
  },
  {
    match: true,
    segmentKeys: ['s'],
    reason: 'UNKNOWN_EVALUATION_REASON',
    variantKey: 'k',
    variantAttachment: '',
    flagKey: 'v3',
  },
];

const stamped = (requestId: string, duration: number, millis: number) => ({
  requestId,
  requestDurationMillis: duration,
  timestamp: timestampMessage(new Date(millis)),
});

const cases = <T>(results: T[]) =>
  results.flatMap((result) =>
    REQUEST_IDS.flatMap((id) => DURATIONS.flatMap((d) => TIMES.map((t) => [result, id, d, t] as const))),
  );

describe('gRPC evaluation answers written as bytes', () => {
  it.each(cases(booleans))('Boolean %o, request id %j, %d ms, at %d', (result, id, duration, millis) => {
    // Twice: the second answer comes from the cached parts.
    const expected = serialize('Boolean', { ...result, ...stamped(id, duration, millis) });
    for (const framed of FRAMINGS) {
      for (let i = 0; i < 2; i++) {
        expect(booleanAnswerBytes(result, id, duration, millis, framed)).toEqual(expectedBytes(expected, framed));
      }
    }
  });

  it.each(cases(variants))('Variant %o, request id %j, %d ms, at %d', (result, id, duration, millis) => {
    const expected = serialize('Variant', { ...result, ...stamped(id, duration, millis) });
    for (const framed of FRAMINGS) {
      for (let i = 0; i < 2; i++) {
        expect(variantAnswerBytes(result, id, duration, millis, framed)).toEqual(expectedBytes(expected, framed));
      }
    }
  });

  const items: FlagEvaluation[] = [
    ...booleans.map((r) => ({ type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE' as const, booleanResponse: r })),
    ...variants.map((r) => ({ type: 'VARIANT_EVALUATION_RESPONSE_TYPE' as const, variantResponse: r })),
    {
      type: 'ERROR_EVALUATION_RESPONSE_TYPE',
      errorResponse: { flagKey: 'missing', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' },
    },
  ];
  const batches: [string, FlagEvaluation[], { requestId: string; namespaceKey: string }[]][] = [
    ['empty', [], []],
    [
      'every kind of item',
      items,
      items.map((_, i) => ({
        requestId: REQUEST_IDS[i % REQUEST_IDS.length] as string,
        namespaceKey: i % 2 ? 'ns' : '',
      })),
    ],
    ['200 items', Array.from({ length: 200 }, (_, i) => items[i % items.length] as FlagEvaluation), []],
  ];

  it.each(batches.flatMap((batch) => FRAMINGS.map((framed) => [...batch, framed] as const)))(
    'Batch: %s, framed: %s',
    (_, batchItems, requests, framed) => {
      // Each item's duration and time as the handler stamps them: here a counter and a moving clock.
      let calls = 0;
      const durationAt = () => ++calls * 0.25;
      let clock = Date.UTC(2026, 10, 28, 2, 0, 0, 998);
      const millisAt = () => clock++;
      const bytes = batchAnswerBytes('batch-id', requests, batchItems, durationAt, millisAt, framed);

      calls = 0;
      clock = Date.UTC(2026, 10, 28, 2, 0, 0, 998);
      const responses = batchItems.map((item, i) => {
        const request = requests[i];
        if (item.type === 'ERROR_EVALUATION_RESPONSE_TYPE') {
          return {
            type: item.type,
            errorResponse: { ...item.errorResponse, namespaceKey: request?.namespaceKey ?? '' },
          };
        }
        const stamp = stamped(request?.requestId ?? '', durationAt(), millisAt());
        return item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE'
          ? { type: item.type, booleanResponse: { ...item.booleanResponse, ...stamp } }
          : { type: item.type, variantResponse: { ...item.variantResponse, ...stamp } };
      });
      const expected = serialize('Batch', { requestId: 'batch-id', responses, requestDurationMillis: durationAt() });
      expect(bytes).toEqual(expectedBytes(expected, framed));
    },
  );

  it('leaves answers in object form to the serializer, and passes bytes through', () => {
    const passing = passEncodedAnswers(service);
    const answer = { ...booleans[0], ...stamped('id', 1, 1000) };
    const bytes = serialize('Boolean', answer);
    expect(passing.Boolean?.responseSerialize(snakeFields(answer))).toEqual(bytes);
    expect(passing.Boolean?.responseSerialize(bytes)).toBe(bytes);
  });
});
