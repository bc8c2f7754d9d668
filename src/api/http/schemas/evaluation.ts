// Wire shapes of the evaluation APIs: /evaluate/v1 (boolean, variant, batch) and the legacy
// /api/v1/evaluate and batch-evaluate (Flipt v1 JSON, keys in proto field order, behavior.md §1.6/§1.7).
// Response schemas are exact so Fastify compiles them into fast-json-stringify serializers: the
// evaluation hot path spends most of its time here, not in the engine.
//
// Request bodies are as lenient as Flipt's decoder: null means absent, unknown fields are ignored,
// and every context value must be a string (or null, read as ""); anything else is 400
// `invalid values for key(s) in json body` (error-handler.ts words failures under `context` so).

import Type, { type Static } from 'typebox';
import { ErrorBodySchema, Timestamp } from './common.js';

/**
 * A string enum in answers, typed as a string so fast-json-stringify writes it directly (an untyped
 * `enum`, as Type.Enum emits, falls back to JSON.stringify for every value).
 */
export function StringEnum<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

/** A string body field that may be sent as null (= absent). One JSON-schema type list: cheap to validate. */
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

/** `map<string,string>`: values must be strings; null values read as "". */
export const EvaluationContextSchema = Type.Unsafe<Record<string, string | null> | null>({
  type: ['object', 'null'],
  additionalProperties: { type: ['string', 'null'] },
});

const RequestFields = {
  requestId: Type.Optional(NullableString),
  namespaceKey: Type.Optional(NullableString),
  flagKey: Type.Optional(NullableString),
  entityId: Type.Optional(NullableString),
  context: Type.Optional(EvaluationContextSchema),
  reference: Type.Optional(NullableString),
};

export const EvaluationRequestBody = Type.Object(RequestFields);
export type EvaluationRequestBody = Static<typeof EvaluationRequestBody>;

export const BatchEvaluationRequestBody = Type.Object({
  requestId: Type.Optional(NullableString),
  requests: Type.Optional(
    Type.Unsafe<EvaluationRequestBody[] | null>({ type: ['array', 'null'], items: EvaluationRequestBody }),
  ),
  reference: Type.Optional(NullableString),
});
export type BatchEvaluationRequestBody = Static<typeof BatchEvaluationRequestBody>;

/** `?explain=true` (beyond Flipt) adds an `explain` object to boolean and variant answers. */
export const ExplainQuerystring = Type.Object({ explain: Type.Optional(Type.String()) });

export function wantsExplain(query: { explain?: string } | undefined): boolean {
  const v = query?.explain;
  return v === 'true' || v === '1' || v === '';
}

const Reason = StringEnum([
  'UNKNOWN_EVALUATION_REASON',
  'FLAG_DISABLED_EVALUATION_REASON',
  'MATCH_EVALUATION_REASON',
  'DEFAULT_EVALUATION_REASON',
] as const);

/** Shared frozen arrays may stand in for segment keys (the engine never copies them). */
const SegmentKeys = Type.Unsafe<readonly string[]>({ type: 'array', items: { type: 'string' } });

/** The explanation (src/evaluation/explain.ts, minus its `result`): serialized with JSON.stringify. */
const Explain = Type.Optional(Type.Unknown({ description: 'How the result came about (only with ?explain=true)' }));

const VariantFields = {
  match: Type.Boolean(),
  segmentKeys: SegmentKeys,
  reason: Reason,
  variantKey: Type.String(),
  variantAttachment: Type.String(),
  requestId: Type.String(),
  requestDurationMillis: Type.Integer(),
  timestamp: Timestamp,
  flagKey: Type.String(),
};

const BooleanFields = {
  enabled: Type.Boolean(),
  reason: Reason,
  requestId: Type.String(),
  requestDurationMillis: Type.Integer(),
  timestamp: Timestamp,
  flagKey: Type.String(),
  segmentKeys: SegmentKeys,
};

export const VariantEvaluationResponseSchema = Type.Object({ ...VariantFields, explain: Explain });
export const BooleanEvaluationResponseSchema = Type.Object({ ...BooleanFields, explain: Explain });

const ErrorItem = Type.Object({
  flagKey: Type.String(),
  namespaceKey: Type.String(),
  reason: StringEnum(['UNKNOWN_ERROR_EVALUATION_REASON', 'NOT_FOUND_ERROR_EVALUATION_REASON'] as const),
});

/** One batch item: `type` and exactly one of the three members (protojson omits unset oneof members). */
const BatchItem = Type.Object({
  type: StringEnum([
    'VARIANT_EVALUATION_RESPONSE_TYPE',
    'BOOLEAN_EVALUATION_RESPONSE_TYPE',
    'ERROR_EVALUATION_RESPONSE_TYPE',
  ] as const),
  booleanResponse: Type.Optional(Type.Object(BooleanFields)),
  variantResponse: Type.Optional(Type.Object(VariantFields)),
  errorResponse: Type.Optional(ErrorItem),
});

export const BatchEvaluationResponseSchema = Type.Object({
  requestId: Type.String(),
  responses: Type.Array(BatchItem),
  requestDurationMillis: Type.Integer(),
});

export const evaluationErrorResponses = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  500: ErrorBodySchema,
};

// ---------------------------------------------------------------------------------------------
// Legacy /api/v1/evaluate (§1.7)

export const LegacyEvaluationRequestBody = Type.Object({
  requestId: Type.Optional(NullableString),
  flagKey: Type.Optional(NullableString),
  entityId: Type.Optional(NullableString),
  context: Type.Optional(EvaluationContextSchema),
  namespaceKey: Type.Optional(NullableString),
});
export type LegacyEvaluationRequestBody = Static<typeof LegacyEvaluationRequestBody>;

export const LegacyBatchEvaluationRequestBody = Type.Object({
  requestId: Type.Optional(NullableString),
  requests: Type.Optional(
    Type.Unsafe<LegacyEvaluationRequestBody[] | null>({ type: ['array', 'null'], items: LegacyEvaluationRequestBody }),
  ),
  excludeNotFound: Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] })),
  namespaceKey: Type.Optional(NullableString),
});
export type LegacyBatchEvaluationRequestBody = Static<typeof LegacyBatchEvaluationRequestBody>;

export const LegacyEvaluationResponseSchema = Type.Object({
  requestId: Type.String(),
  entityId: Type.String(),
  requestContext: Type.Record(Type.String(), Type.String()),
  match: Type.Boolean(),
  flagKey: Type.String(),
  segmentKey: Type.String(),
  timestamp: Timestamp,
  value: Type.String(),
  requestDurationMillis: Type.Integer(),
  attachment: Type.String(),
  reason: Reason,
  namespaceKey: Type.String(),
  segmentKeys: SegmentKeys,
});

export const LegacyBatchEvaluationResponseSchema = Type.Object({
  requestId: Type.String(),
  responses: Type.Array(LegacyEvaluationResponseSchema),
  requestDurationMillis: Type.Integer(),
});
