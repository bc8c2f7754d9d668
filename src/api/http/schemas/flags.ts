// Wire shapes of flags and variants (Flipt v1 JSON, keys in proto field order) and their request
// bodies. Bodies are as lenient as Flipt's decoder: null means absent, unknown fields are ignored.

import Type, { type TSchema } from 'typebox';
import { FLAG_TYPES } from '../../../domain/types.js';
import { EnumLike, JsonObject, Timestamp } from './common.js';

/** An optional body field that may also be sent as null (= absent). */
export function OptionalNullable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

export const VariantSchema = Type.Object(
  {
    id: Type.String(),
    flagKey: Type.String(),
    key: Type.String(),
    name: Type.String(),
    description: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    attachment: Type.String(),
    namespaceKey: Type.String(),
  },
  { $id: 'Variant' },
);

const FlagProperties = {
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  variants: Type.Array(VariantSchema),
  namespaceKey: Type.String(),
  type: Type.Enum(FLAG_TYPES),
  defaultVariant: Type.Optional(VariantSchema),
  metadata: Type.Optional(JsonObject),
};

export const FlagSchema = Type.Object(FlagProperties, { $id: 'Flag' });

export const FlagListSchema = Type.Object({
  flags: Type.Array(FlagSchema),
  nextPageToken: Type.String(),
  totalCount: Type.Integer(),
});

export const FlagCreateBody = Type.Object({
  key: OptionalNullable(Type.String()),
  name: OptionalNullable(Type.String()),
  description: OptionalNullable(Type.String()),
  enabled: OptionalNullable(Type.Boolean()),
  type: OptionalNullable(EnumLike(FLAG_TYPES)),
  metadata: OptionalNullable(JsonObject),
  namespaceKey: OptionalNullable(Type.String()),
});

export const FlagUpdateBody = Type.Object({
  key: OptionalNullable(Type.String()),
  name: OptionalNullable(Type.String()),
  description: OptionalNullable(Type.String()),
  enabled: OptionalNullable(Type.Boolean()),
  defaultVariantId: OptionalNullable(Type.String()),
  metadata: OptionalNullable(JsonObject),
  namespaceKey: OptionalNullable(Type.String()),
});

export const VariantBody = Type.Object({
  id: OptionalNullable(Type.String()),
  flagKey: OptionalNullable(Type.String()),
  key: OptionalNullable(Type.String()),
  name: OptionalNullable(Type.String()),
  description: OptionalNullable(Type.String()),
  attachment: OptionalNullable(Type.String()),
  namespaceKey: OptionalNullable(Type.String()),
});
