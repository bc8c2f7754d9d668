// Ranks of a flag's rules or rollouts: Flipt's order endpoint sets rank = position + 1 for the
// listed ids, and a delete renumbers what is left 1..n. Rules and rollouts share this exactly.

import type { Kysely } from 'kysely';
import { writeTime } from './rows.js';
import type { Database } from './schema.js';

export type RankedTable = 'rules' | 'rollouts';

/** Sets rank = position + 1 for each listed id of the flag; ids of other flags are left alone. */
export async function setRanks(
  db: Kysely<Database>,
  table: RankedTable,
  namespaceKey: string,
  flagKey: string,
  ids: readonly string[],
): Promise<void> {
  const now = writeTime();
  for (const [index, id] of ids.entries()) {
    await db
      .updateTable(table)
      .set({ rank: index + 1, updated_at: now })
      .where('id', '=', id)
      .where('namespace_key', '=', namespaceKey)
      .where('flag_key', '=', flagKey)
      .execute();
  }
}

/**
 * Deletes one row of the flag (nothing when unknown), then renumbers the remaining ones 1..n in rank
 * order. Every remaining row is re-ranked and so gets a new updatedAt, as Flipt's delete does.
 */
export async function deleteAndRenumber(
  db: Kysely<Database>,
  table: RankedTable,
  namespaceKey: string,
  flagKey: string,
  id: string,
): Promise<void> {
  await db
    .deleteFrom(table)
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .execute();
  const remaining = await db
    .selectFrom(table)
    .select('id')
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .orderBy('rank')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  await setRanks(
    db,
    table,
    namespaceKey,
    flagKey,
    remaining.map((r) => r.id),
  );
}
