import Type from 'typebox';
import type { Namespace, Page } from '../../../domain/types.js';
import { timestamp } from '../wire.js';
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

export function namespaceToWire(ns: Namespace) {
  return {
    key: ns.key,
    name: ns.name,
    description: ns.description,
    protected: ns.protected,
    createdAt: timestamp(ns.createdAt),
    updatedAt: timestamp(ns.updatedAt),
  };
}

export function namespaceListToWire(page: Page<Namespace>) {
  return {
    namespaces: page.items.map(namespaceToWire),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}
