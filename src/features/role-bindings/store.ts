// The role_bindings table (migration 009): every binding read at once (there are few, and every
// instance keeps them all in memory), one found by id, inserted, deleted. Rows become bindings here.

import type { Selectable } from 'kysely';
import { authMethodName, authMethodNumber } from '../../domain/authentication.js';
import { isRole } from '../../domain/roles.js';
import { toDate } from '../../storage/rows.js';
import type { RoleBindingsTable } from '../../storage/schema.js';
import type { Executor } from '../../storage/store.js';
import type { StoredRoleBinding } from './binding.js';

/** A row as a binding; undefined for one that does not read back as one (hand-edited): it grants nothing. */
function toBinding(row: Selectable<RoleBindingsTable>): StoredRoleBinding | undefined {
  if (!isRole(row.role)) return undefined;
  const metadata = row.match_metadata ?? undefined;
  const claim = row.match_claim ?? undefined;
  if ((metadata === undefined) === (claim === undefined)) return undefined;
  return {
    id: row.id,
    match: {
      ...(row.method !== null ? { method: authMethodName(Number(row.method)) } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
      ...(claim !== undefined ? { claim } : {}),
      pattern: row.pattern,
    },
    role: row.role,
    namespace: row.namespace_key,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Every binding, oldest first. */
export async function listBindings(db: Executor): Promise<StoredRoleBinding[]> {
  const rows = await db.selectFrom('role_bindings').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.flatMap((row) => toBinding(row) ?? []);
}

export async function findBinding(db: Executor, id: string): Promise<StoredRoleBinding | undefined> {
  const row = await db.selectFrom('role_bindings').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toBinding(row);
}

export async function insertBinding(db: Executor, binding: StoredRoleBinding): Promise<void> {
  await db
    .insertInto('role_bindings')
    .values({
      id: binding.id,
      method: binding.match.method === undefined ? null : authMethodNumber(binding.match.method),
      match_metadata: binding.match.metadata ?? null,
      match_claim: binding.match.claim ?? null,
      pattern: binding.match.pattern,
      role: binding.role,
      namespace_key: binding.namespace,
      created_at: binding.createdAt,
      updated_at: binding.updatedAt,
    })
    .execute();
}

/** Whether a row was deleted. */
export async function deleteBinding(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('role_bindings').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
