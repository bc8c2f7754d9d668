// The evaluation answers written by evaluation-json.ts must be, byte for byte, what Fastify's own
// serializer makes of the same answer under the routes' response schemas: generated results (any
// text in keys, ids and attachments, quotes and control characters included) go through both.

import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BooleanEvaluation, EvaluationReason, FlagEvaluation, VariantEvaluation } from '../../evaluation/index.js';
import {
  batchResponseJson,
  booleanResponseJson,
  jsonString,
  millisText,
  ofrepBulkJson,
  ofrepFlagJson,
  variantResponseJson,
} from './evaluation-json.js';
import {
  BatchEvaluationResponseSchema,
  BooleanEvaluationResponseSchema,
  VariantEvaluationResponseSchema,
} from './schemas/evaluation.js';
import { BulkEvaluationSchema, EvaluatedFlagSchema } from './schemas/ofrep.js';

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom('', 'a"b', 'back\\slash', 'line\nbreak\t\u0000\u001f', '{"color":"blue","n":[1,2]}', 'é€😀'),
);
const reason = fc.constantFrom<EvaluationReason>(
  'UNKNOWN_EVALUATION_REASON',
  'FLAG_DISABLED_EVALUATION_REASON',
  'MATCH_EVALUATION_REASON',
  'DEFAULT_EVALUATION_REASON',
);
const segmentKeys = fc.array(text, { maxLength: 3 });

const booleanResult = fc.record({ enabled: fc.boolean(), reason, segmentKeys, flagKey: text });
const variantResult = fc.record({
  match: fc.boolean(),
  segmentKeys,
  reason,
  variantKey: text,
  variantAttachment: text,
  flagKey: text,
});
const requestFields = fc.record({
  requestId: text,
  durationMillis: fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.nat()),
  timestamp: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
});

/** The answers give durations in whole milliseconds (millisText). */
const whole = (ms: number) => Math.round(ms);

let app: FastifyInstance;
let payload: unknown;

/** What Fastify's serializer writes for `value` under the response schema of `route`. */
async function serialized(route: string, value: unknown): Promise<string> {
  payload = value;
  const res = await app.inject({ method: 'GET', url: route });
  expect(res.statusCode).toBe(200);
  return res.body;
}

beforeAll(async () => {
  app = Fastify();
  const routes = {
    '/boolean': BooleanEvaluationResponseSchema,
    '/variant': VariantEvaluationResponseSchema,
    '/batch': BatchEvaluationResponseSchema,
    '/ofrep': EvaluatedFlagSchema,
    '/ofrep-bulk': BulkEvaluationSchema,
  };
  for (const [url, schema] of Object.entries(routes)) {
    app.get(url, { schema: { response: { 200: schema } } }, async () => payload);
  }
  await app.ready();
});

afterAll(() => app.close());

/** The OFREP mapping of behavior.md §6.2, restated for the check. */
function expectedOfrepFlag(item: FlagEvaluation) {
  const ofrepReason = (r: string) =>
    ({
      MATCH_EVALUATION_REASON: 'TARGETING_MATCH',
      FLAG_DISABLED_EVALUATION_REASON: 'DISABLED',
      DEFAULT_EVALUATION_REASON: 'DEFAULT',
    })[r] ?? 'UNKNOWN';
  if (item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE') {
    const r = item.booleanResponse;
    return {
      key: r.flagKey,
      reason: ofrepReason(r.reason),
      variant: String(r.enabled),
      metadata: {},
      value: r.enabled,
    };
  }
  if (item.type !== 'VARIANT_EVALUATION_RESPONSE_TYPE') throw new Error('not evaluated');
  const r = item.variantResponse;
  const metadata: Record<string, string> = {};
  if (r.segmentKeys.length > 0) metadata.segments = r.segmentKeys.join(',');
  if (r.variantAttachment !== '') metadata.attachment = r.variantAttachment;
  return { key: r.flagKey, reason: ofrepReason(r.reason), variant: r.variantKey, metadata, value: r.variantKey };
}

const flagItem: fc.Arbitrary<FlagEvaluation> = fc.oneof(
  booleanResult.map((booleanResponse) => ({ type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE' as const, booleanResponse })),
  variantResult.map((variantResponse) => ({ type: 'VARIANT_EVALUATION_RESPONSE_TYPE' as const, variantResponse })),
);

describe('per-request text', () => {
  it('jsonString is JSON.stringify for any string', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary' }), fc.uuid()), (value) => {
        expect(jsonString(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
    expect(jsonString('\ud800')).toBe('"\\ud800"');
    expect(jsonString('\u007f')).toBe(JSON.stringify('\u007f'));
  });

  it('millisText writes a duration in whole milliseconds, rounded: an integer, as interface.md types it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => {
        const text = millisText(ms);
        expect(text).toMatch(/^\d+$/);
        expect(Number(text)).toBe(Math.round(ms));
      }),
      { numRuns: 5000 },
    );
    expect([0, 0.0004, 0.4999, 0.5, 1, 12.3456, 12.5, 1000.05].map(millisText)).toEqual([
      '0',
      '0',
      '0',
      '1',
      '1',
      '12',
      '13',
      '1000',
    ]);
  });
});

describe('evaluation answers written from cached pieces', () => {
  it('boolean: the same text as the schema serializer', async () => {
    await fc.assert(
      fc.asyncProperty(booleanResult, requestFields, async (r, f) => {
        const ours = booleanResponseJson(r as BooleanEvaluation, f.requestId, f.durationMillis, f.timestamp);
        const theirs = await serialized('/boolean', {
          enabled: r.enabled,
          reason: r.reason,
          requestId: f.requestId,
          requestDurationMillis: whole(f.durationMillis),
          timestamp: f.timestamp,
          flagKey: r.flagKey,
          segmentKeys: r.segmentKeys,
        });
        expect(ours).toBe(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('variant: the same text as the schema serializer', async () => {
    await fc.assert(
      fc.asyncProperty(variantResult, requestFields, async (r, f) => {
        const ours = variantResponseJson(r as VariantEvaluation, f.requestId, f.durationMillis, f.timestamp);
        const theirs = await serialized('/variant', {
          ...r,
          requestId: f.requestId,
          requestDurationMillis: whole(f.durationMillis),
          timestamp: f.timestamp,
        });
        expect(ours).toBe(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('a result object answers many requests: only the request fields change', () => {
    const r: BooleanEvaluation = Object.freeze({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      segmentKeys: Object.freeze(['s']),
      flagKey: 'f',
    });
    expect(JSON.parse(booleanResponseJson(r, 'a', 1, 't1'))).toEqual({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      requestId: 'a',
      requestDurationMillis: 1,
      timestamp: 't1',
      flagKey: 'f',
      segmentKeys: ['s'],
    });
    expect(JSON.parse(booleanResponseJson(r, 'b', 2.5, 't2'))).toMatchObject({
      requestId: 'b',
      requestDurationMillis: 3,
      timestamp: 't2',
    });
  });

  it('batch: the same text as the schema serializer, error items included', async () => {
    const item = fc.oneof(
      flagItem,
      text.map((flagKey) => ({
        type: 'ERROR_EVALUATION_RESPONSE_TYPE' as const,
        errorResponse: { flagKey, reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' as const },
      })),
    );
    const entry = fc.record({
      item,
      request: fc.record({ requestId: fc.option(text), namespaceKey: fc.option(text) }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 6 }), requestFields, async (entries, f) => {
        const items: FlagEvaluation[] = entries.map((e) => e.item);
        const requests = entries.map((e) => e.request);
        const ours = batchResponseJson(f.requestId, requests, items, f.durationMillis, f.timestamp).toString('utf8');
        const stamp = (requestId: string | null) => ({
          requestId: requestId ?? '',
          requestDurationMillis: whole(f.durationMillis),
          timestamp: f.timestamp,
        });
        const theirs = await serialized('/batch', {
          requestId: f.requestId,
          responses: entries.map(({ item: i, request }) =>
            i.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE'
              ? { type: i.type, booleanResponse: { ...i.booleanResponse, ...stamp(request.requestId) } }
              : i.type === 'VARIANT_EVALUATION_RESPONSE_TYPE'
                ? { type: i.type, variantResponse: { ...i.variantResponse, ...stamp(request.requestId) } }
                : {
                    type: i.type,
                    errorResponse: {
                      flagKey: i.errorResponse.flagKey,
                      namespaceKey: request.namespaceKey ?? '',
                      reason: i.errorResponse.reason,
                    },
                  },
          ),
          requestDurationMillis: whole(f.durationMillis),
        });
        expect(ours).toBe(theirs);
      }),
      { numRuns: 200 },
    );
  });

  it('OFREP: bulk answers keep their bytes while later ones are written (slabs, large answers)', () => {
    const flag = (key: string, enabled: boolean): FlagEvaluation => ({
      type: 'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      booleanResponse: Object.freeze({
        enabled,
        reason: 'DEFAULT_EVALUATION_REASON',
        flagKey: key,
        segmentKeys: [],
      }) as BooleanEvaluation,
    });
    const kept: { buffer: Buffer; text: string }[] = [];
    // Enough answers to fill several slabs, of varied sizes, and a few larger than a slab's share.
    for (let i = 0; i < 3000; i++) {
      const count = i % 97 === 0 ? 2000 : 1 + (i % 60);
      const items = Array.from({ length: count }, (_, j) => flag(`f${i}-${j}`, (i + j) % 2 === 0));
      const buffer = ofrepBulkJson(items.map(ofrepFlagJson));
      const text = buffer.toString();
      expect(JSON.parse(text).flags).toHaveLength(count);
      kept.push({ buffer, text });
    }
    for (const { buffer, text } of kept) expect(buffer.toString()).toBe(text);
  });

  it('OFREP: evaluated flags and bulk answers as the schema serializer writes the §6.2 mapping', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(flagItem, { maxLength: 5 }), async (items) => {
        for (const item of items) {
          expect(ofrepFlagJson(item).toString()).toBe(await serialized('/ofrep', expectedOfrepFlag(item)));
        }
        expect(ofrepBulkJson(items.map(ofrepFlagJson)).toString()).toBe(
          await serialized('/ofrep-bulk', { flags: items.map(expectedOfrepFlag) }),
        );
      }),
      { numRuns: 200 },
    );
  });
});
