import Type from 'typebox';
import { Timestamp } from './common.js';

export const NamespaceSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    description: Type.String(),
    protected: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Namespace' },
);

export const NamespaceListSchema = Type.Object({
  namespaces: Type.Array(NamespaceSchema),
  nextPageToken: Type.String(),
  totalCount: Type.Integer(),
});

export const NamespaceBody = Type.Object({
  key: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
});
