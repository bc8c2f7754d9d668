// The variants table's codec. An attachment is compact JSON text, stored as null when there is none.

import type { Insertable, Selectable } from 'kysely';
import type { Variant } from '../../domain/types.js';
import { toDate } from '../rows.js';
import type { VariantsTable } from '../schema.js';
import type { VariantWrite } from '../store.js';

export function attachmentOf(column: string | null): string {
  return column ?? '';
}

export function attachmentColumn(attachment: string): string | null {
  return attachment === '' ? null : attachment;
}

export function variantOf(row: Selectable<VariantsTable>): Variant {
  return {
    id: row.id,
    flagKey: row.flag_key,
    key: row.key,
    name: row.name,
    description: row.description,
    attachment: attachmentOf(row.attachment),
    namespaceKey: row.namespace_key,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** The columns a variant's update replaces. */
export function variantFieldColumns(v: VariantWrite) {
  return { key: v.key, name: v.name, description: v.description, attachment: attachmentColumn(v.attachment) };
}

/** Imports build these by the hundred thousand: one object each, no spread of another. */
export function variantRow(
  id: string,
  namespaceKey: string,
  flagKey: string,
  v: VariantWrite,
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<VariantsTable> {
  return {
    id,
    namespace_key: namespaceKey,
    flag_key: flagKey,
    key: v.key,
    name: v.name,
    description: v.description,
    attachment: attachmentColumn(v.attachment),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
