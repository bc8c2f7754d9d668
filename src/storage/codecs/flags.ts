// The flags table's codec: a row read as a flag, and a flag written as a row. Every reader and writer
// of the table goes through it, so the type's integer and the metadata's text are read one way.

import type { Insertable, Selectable } from 'kysely';
import { FLAG_TYPES, type Flag, type FlagType, type Variant } from '../../domain/types.js';
import { enumIndex, enumName, toBool, toDate } from '../rows.js';
import type { FlagsTable } from '../schema.js';

export function flagTypeOf(value: number | string): FlagType {
  return enumName(FLAG_TYPES, value);
}

export function flagTypeColumn(type: FlagType): number {
  return enumIndex(FLAG_TYPES, type);
}

/** The stored metadata; none for null, '', an empty object or text that is not a JSON object. */
export function metadataOf(text: string | null): Record<string, unknown> | undefined {
  if (text === null || text === '') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const object = value as Record<string, unknown>;
      return Object.keys(object).length > 0 ? object : undefined;
    }
  } catch {
    // Only possible through hand edits: such a value reads as none rather than failing every read.
  }
  return undefined;
}

/** Only an object with fields is stored: an empty one is the same as none. */
export function metadataColumn(metadata: Record<string, unknown> | undefined): string | null {
  return metadata !== undefined && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : null;
}

export interface FlagFields {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
}

export function flagOf(row: Selectable<FlagsTable>, variants: Variant[], defaultVariant: Variant | undefined): Flag {
  const flag: Flag = {
    key: row.key,
    name: row.name,
    description: row.description,
    enabled: toBool(row.enabled),
    namespaceKey: row.namespace_key,
    type: flagTypeOf(row.type),
    variants,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
  if (defaultVariant) flag.defaultVariant = defaultVariant;
  const metadata = metadataOf(row.metadata);
  if (metadata) flag.metadata = metadata;
  return flag;
}

/**
 * A new flag's row. Its default variant is written afterwards: flags and variants reference each
 * other, so the flag goes in first without it.
 */
export function flagRow(
  namespaceKey: string,
  flag: FlagFields & { metadata?: Record<string, unknown> },
  createdAt: Date,
  updatedAt: Date = createdAt,
): Insertable<FlagsTable> {
  return {
    namespace_key: namespaceKey,
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    type: flagTypeColumn(flag.type),
    default_variant_id: null,
    metadata: metadataColumn(flag.metadata),
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
