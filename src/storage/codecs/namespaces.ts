// The namespaces table's codec.

import type { Selectable } from 'kysely';
import type { Namespace } from '../../domain/types.js';
import { toBool, toDate } from '../rows.js';
import type { NamespacesTable } from '../schema.js';

export function namespaceOf(row: Selectable<NamespacesTable>): Namespace {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    protected: toBool(row.protected),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}
