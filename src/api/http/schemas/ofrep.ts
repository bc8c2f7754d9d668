// Wire shapes of OFREP (OpenFeature Remote Evaluation Protocol) as Flipt serves it (behavior.md §6):
// request contexts of string values, EvaluatedFlag results in Flipt's key order, OFREP's own error
// body {"key"?, "errorCode", "errorDetails"}, and the provider configuration.

import Type, { type Static } from 'typebox';
import { StringEnum } from './evaluation.js';

const NullableString = { type: ['string', 'null'] } as const;

/** `{"context": {string: string}}`; null values read as "" (Flipt). */
export const OfrepEvaluateBody = Type.Unsafe<{ context?: Record<string, string | null> | null }>({
  type: 'object',
  properties: { context: { type: ['object', 'null'], additionalProperties: NullableString } },
});
export type OfrepEvaluateBody = Static<typeof OfrepEvaluateBody>;

/**
 * Bulk: as above, and `context.flags` chooses the flags: an array of keys (interface.md) or Flipt's
 * comma-separated string.
 */
export const OfrepBulkBody = Type.Unsafe<{
  context?: (Record<string, string | null> & { flags?: string | string[] | null }) | null;
}>({
  type: 'object',
  properties: {
    context: {
      type: ['object', 'null'],
      properties: { flags: { anyOf: [{ type: ['string', 'null'] }, { type: 'array', items: { type: 'string' } }] } },
      additionalProperties: NullableString,
    },
  },
});
export type OfrepBulkBody = Static<typeof OfrepBulkBody>;

export const OFREP_REASONS = ['UNKNOWN', 'DISABLED', 'TARGETING_MATCH', 'DEFAULT'] as const;
export type OfrepReason = (typeof OFREP_REASONS)[number];

export const EvaluatedFlagSchema = Type.Object({
  key: Type.String(),
  reason: StringEnum(OFREP_REASONS),
  variant: Type.String(),
  metadata: Type.Object(
    { segments: Type.Optional(Type.String()), attachment: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
  // A type list, not anyOf: fast-json-stringify picks a branch of anyOf by running a validator on the
  // value, which costs more than the rest of the flag's serialization.
  value: Type.Unsafe<boolean | string>({ type: ['boolean', 'string'] }),
});

export interface EvaluatedFlag {
  key: string;
  reason: OfrepReason;
  variant: string;
  metadata: { segments?: string; attachment?: string };
  value: boolean | string;
}

/** OFREP's event stream entry (ADR 0008): a full `url`, or an `endpoint` joined to the client's origin. */
const EventStreamSchema = Type.Object({
  type: Type.String(),
  url: Type.Optional(Type.String()),
  endpoint: Type.Optional(Type.Object({ requestUri: Type.String(), origin: Type.Optional(Type.String()) })),
  inactivityDelaySec: Type.Optional(Type.Integer()),
});

export const BulkEvaluationSchema = Type.Object({
  flags: Type.Array(EvaluatedFlagSchema),
  /** Only with ofrep.event_streams.enabled. */
  eventStreams: Type.Optional(Type.Array(EventStreamSchema)),
});

export const OFREP_ERROR_CODES = [
  'FLAG_NOT_FOUND',
  'PARSE_ERROR',
  'TARGETING_KEY_MISSING',
  'INVALID_CONTEXT',
  'GENERAL',
] as const;
export type OfrepErrorCode = (typeof OFREP_ERROR_CODES)[number];

export const OfrepErrorSchema = Type.Object(
  {
    key: Type.Optional(Type.String()),
    errorCode: StringEnum(OFREP_ERROR_CODES),
    errorDetails: Type.String(),
  },
  { description: 'OFREP error body' },
);

export interface OfrepErrorBody {
  key?: string;
  errorCode: OfrepErrorCode;
  errorDetails: string;
}

export const ofrepErrorResponses = {
  400: OfrepErrorSchema,
  401: OfrepErrorSchema,
  403: OfrepErrorSchema,
  404: OfrepErrorSchema,
  500: OfrepErrorSchema,
};

export const OfrepConfigurationSchema = Type.Object({
  name: Type.String(),
  capabilities: Type.Object({
    cacheInvalidation: Type.Object({
      polling: Type.Object({ enabled: Type.Boolean(), minPollingIntervalMs: Type.Integer() }),
    }),
    flagEvaluation: Type.Object({ supportedTypes: Type.Array(Type.String()) }),
  }),
});
