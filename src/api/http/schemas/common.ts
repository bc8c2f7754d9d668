// Schema pieces shared by the routes. Inputs are as lenient as Flipt's decoder (enum names or
// numbers, numbers as JSON numbers or quoted); outputs are exact so Fastify compiles fast serializers.

import Type, { type TSchema } from 'typebox';
import { InvalidArgumentError } from '../../../domain/errors.js';
import type { ListQuery } from '../../../storage/pagination.js';

/** An int32 field: a JSON integer or a quoted one, as protojson accepts. */
export const IntLike = Type.Union([Type.Integer(), Type.String({ pattern: '^\\s*-?[0-9]+\\s*$' })]);

/** A float field: a JSON number or a quoted one. */
export const NumberLike = Type.Union([
  Type.Number(),
  Type.String({ pattern: '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$' }),
]);

export function toNumber(value: number | string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

/** An enum field: its name, or its number. */
export function EnumLike<const N extends readonly string[]>(names: N, description?: string) {
  return Type.Union(
    [Type.Union(names.map((n) => Type.Literal(n))), Type.Integer({ minimum: 0, maximum: names.length - 1 })],
    description ? { description } : {},
  );
}

/** The enum name for a name-or-number input; `fallback` when absent. */
export function enumName<N extends string>(names: readonly N[], value: unknown, fallback: N): N {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number') return names[value] ?? fallback;
  return value as N;
}

/** An enum in responses: always its name. */
export function EnumOut(names: readonly string[]) {
  return Type.Union(names.map((n) => Type.Literal(n)));
}

export const Timestamp = Type.String({ format: 'date-time' });

export const ErrorBodySchema = Type.Object(
  { code: Type.Integer(), message: Type.String(), details: Type.Array(Type.Unknown()) },
  { description: 'Flipt error body' },
);

export const EmptySchema = Type.Object({}, { additionalProperties: false });

/** Error responses every route may give, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  403: ErrorBodySchema,
  404: ErrorBodySchema,
  500: ErrorBodySchema,
};

const Digits = Type.String({ pattern: '^[0-9]+$' });

export const ListQuerystring = Type.Object({
  limit: Type.Optional(Digits),
  offset: Type.Optional(Digits),
  pageToken: Type.Optional(Type.String()),
  page_token: Type.Optional(Type.String()),
  reference: Type.Optional(Type.String()),
});

export const ReferenceQuerystring = Type.Object({ reference: Type.Optional(Type.String()) });

export function toListQuery(q: {
  limit?: string;
  offset?: string;
  pageToken?: string;
  page_token?: string;
}): ListQuery {
  const limit = q.limit === undefined ? 0 : Number(q.limit);
  const offset = q.offset === undefined ? 0 : Number(q.offset);
  if (limit > 2 ** 31 - 1 || offset > 2 ** 31 - 1) throw new InvalidArgumentError('limit and offset must be int32');
  return { limit, offset, pageToken: q.pageToken ?? q.page_token ?? '' };
}

/** A free-form JSON object (flag metadata). */
export const JsonObject = Type.Record(Type.String(), Type.Unknown());

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
