// Variants in SQL: the values a variant flag can take, each with an optional JSON attachment. They
// have no list or get endpoint of their own; flags embed them (storage/flags.ts loads them in bulk).

import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, NotFoundError } from '../domain/errors.js';
import type { Variant } from '../domain/types.js';
import { variantFieldColumns, variantOf, variantRow } from './codecs/variants.js';
import { classifyDriverError, tooLongError } from './errors.js';
import { flagExists } from './flag-exists.js';
import { MAX_IN_LIST, writeTime } from './rows.js';
import type { Executor, VariantStore, VariantWrite } from './store.js';

/** The variants of the given flags of one namespace, each list in creation order. */
export async function variantsOfFlags(
  db: Executor,
  namespaceKey: string,
  flagKeys: readonly string[],
): Promise<Map<string, Variant[]>> {
  const byFlag = new Map<string, Variant[]>();
  if (flagKeys.length === 0) return byFlag;
  const keys = new Set(flagKeys);
  let select = db.selectFrom('variants').selectAll().where('namespace_key', '=', namespaceKey);
  // A long IN list would meet the databases' bound-parameter limits; a whole namespace is one scan.
  if (keys.size <= MAX_IN_LIST) select = select.where('flag_key', 'in', [...keys]);
  const rows = await select.orderBy('created_at').orderBy('id').execute();
  for (const row of rows) {
    if (!keys.has(row.flag_key)) continue;
    const list = byFlag.get(row.flag_key);
    if (list) list.push(variantOf(row));
    else byFlag.set(row.flag_key, [variantOf(row)]);
  }
  return byFlag;
}

export async function variantsByIds(db: Executor, ids: readonly string[]): Promise<Map<string, Variant>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, Variant>();
  for (let i = 0; i < unique.length; i += MAX_IN_LIST) {
    const rows = await db
      .selectFrom('variants')
      .selectAll()
      .where('id', 'in', unique.slice(i, i + MAX_IN_LIST))
      .execute();
    for (const row of rows) found.set(row.id, variantOf(row));
  }
  return found;
}

/** The variant with this id, if it belongs to this flag of this namespace. */
export async function findVariant(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  id: string,
): Promise<Variant | undefined> {
  const row = await db
    .selectFrom('variants')
    .selectAll()
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .executeTakeFirst();
  return row ? variantOf(row) : undefined;
}

function notUnique(namespaceKey: string, flagKey: string, key: string): AlreadyExistsError {
  return new AlreadyExistsError(`variant "${key}" is not unique for flag "${namespaceKey}/${flagKey}"`);
}

async function insertVariant(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  input: VariantWrite,
): Promise<Variant> {
  // Checked first because a foreign-key error would not say which key was missing.
  if (!(await flagExists(db, namespaceKey, flagKey))) throw new NotFoundError(`flag "${namespaceKey}/${flagKey}"`);
  const now = writeTime();
  const id = randomUUID();
  try {
    await db
      .insertInto('variants')
      .values(variantRow(id, namespaceKey, flagKey, input, now))
      .execute();
  } catch (err) {
    const kind = classifyDriverError(err);
    if (kind === 'unique') throw notUnique(namespaceKey, flagKey, input.key);
    if (kind === 'foreign-key') throw new NotFoundError(`flag "${namespaceKey}/${flagKey}"`);
    throw tooLongError(err) ?? err;
  }
  return { id, flagKey, namespaceKey, ...input, createdAt: now, updatedAt: now };
}

/** Replaces key, name, description and attachment; Flipt names the new key in the not-found message. */
async function updateVariant(
  db: Executor,
  namespaceKey: string,
  flagKey: string,
  id: string,
  input: VariantWrite,
): Promise<Variant> {
  let updated: bigint;
  try {
    const result = await db
      .updateTable('variants')
      .set({ ...variantFieldColumns(input), updated_at: writeTime() })
      .where('id', '=', id)
      .where('namespace_key', '=', namespaceKey)
      .where('flag_key', '=', flagKey)
      .executeTakeFirst();
    updated = result.numUpdatedRows;
  } catch (err) {
    if (classifyDriverError(err) === 'unique') throw notUnique(namespaceKey, flagKey, input.key);
    throw tooLongError(err) ?? err;
  }
  // MySQL counts only rows whose values changed; the timestamp always changes, so 0 means none matched.
  const variant = Number(updated) > 0 ? await findVariant(db, namespaceKey, flagKey, id) : undefined;
  if (!variant) throw new NotFoundError(`variant "${input.key}"`);
  return variant;
}

/**
 * Deletes a variant (nothing when it does not exist). Its distributions go with it (cascade) and a
 * flag that had it as default variant has none afterwards.
 */
async function deleteVariant(db: Executor, namespaceKey: string, flagKey: string, id: string): Promise<void> {
  const variant = await findVariant(db, namespaceKey, flagKey, id);
  if (!variant) return;
  // The foreign key says ON DELETE SET NULL too; clearing it here does not depend on how each
  // database orders cascades.
  await db.updateTable('flags').set({ default_variant_id: null }).where('default_variant_id', '=', id).execute();
  await db.deleteFrom('distributions').where('variant_id', '=', id).execute();
  await db
    .deleteFrom('variants')
    .where('id', '=', id)
    .where('namespace_key', '=', namespaceKey)
    .where('flag_key', '=', flagKey)
    .execute();
}

export const sqlVariantStore: VariantStore = {
  insert: insertVariant,
  update: updateVariant,
  delete: deleteVariant,
};
