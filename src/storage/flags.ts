// Flags in SQL: read with their variants and default variant, listed in creation order with Flipt's
// paging, and written with Flipt's messages for duplicates and unknown namespaces or variants.

import type { Selectable } from 'kysely';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../domain/errors.js';
import type { Flag, Page, Variant } from '../domain/types.js';
import { flagOf, flagRow, metadataColumn } from './codecs/flags.js';
import { classifyDriverError, tooLongError } from './errors.js';
import { flagExists } from './flag-exists.js';
import { type ListQuery, pageOfNamespaceRows } from './pagination.js';
import { writeTime } from './rows.js';
import type { FlagsTable } from './schema.js';
import type { Executor, FlagCreate, FlagStore, FlagUpdate } from './store.js';
import { findVariant, variantsByIds, variantsOfFlags } from './variants.js';

/** Flags from rows, each with its variants and default variant, loaded in two or three queries. */
async function assemble(db: Executor, namespaceKey: string, rows: Selectable<FlagsTable>[]): Promise<Flag[]> {
  const variants = await variantsOfFlags(
    db,
    namespaceKey,
    rows.map((r) => r.key),
  );
  // A default variant is one of the flag's own variants (the update checks it); anything else was
  // written around the API, and is still shown as it is stored.
  const foreign = rows
    .filter(
      (r) => r.default_variant_id !== null && !(variants.get(r.key) ?? []).some((v) => v.id === r.default_variant_id),
    )
    .map((r) => r.default_variant_id as string);
  const foreignVariants = await variantsByIds(db, foreign);
  return rows.map((row) => {
    const own = variants.get(row.key) ?? [];
    const id = row.default_variant_id;
    const defaultVariant: Variant | undefined =
      id === null ? undefined : (own.find((v) => v.id === id) ?? foreignVariants.get(id));
    return flagOf(row, own, defaultVariant);
  });
}

async function findFlag(db: Executor, namespaceKey: string, key: string): Promise<Flag | undefined> {
  const row = await db
    .selectFrom('flags')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  const [flag] = await assemble(db, namespaceKey, [row]);
  return flag;
}

async function getFlag(db: Executor, namespaceKey: string, key: string): Promise<Flag> {
  const flag = await findFlag(db, namespaceKey, key);
  if (!flag) throw new NotFoundError(`flag "${namespaceKey}/${key}"`);
  return flag;
}

/** Flags of a namespace in creation order; an unknown namespace is an empty list, as in Flipt. */
async function listFlags(db: Executor, namespaceKey: string, query: ListQuery): Promise<Page<Flag>> {
  const page = await pageOfNamespaceRows(db, 'flags', namespaceKey, query);
  return {
    items: await assemble(db, namespaceKey, page.rows),
    nextPageToken: page.nextPageToken,
    totalCount: page.totalCount,
  };
}

async function insertFlag(db: Executor, namespaceKey: string, input: FlagCreate): Promise<Flag> {
  const ns = await db.selectFrom('namespaces').select('key').where('key', '=', namespaceKey).executeTakeFirst();
  if (!ns) throw new NotFoundError(`namespace "${namespaceKey}"`);
  const now = writeTime();
  try {
    await db
      .insertInto('flags')
      .values(flagRow(namespaceKey, input, now))
      .execute();
  } catch (err) {
    const kind = classifyDriverError(err);
    if (kind === 'unique') throw new AlreadyExistsError(`flag "${namespaceKey}/${input.key}" is not unique`);
    if (kind === 'foreign-key') throw new NotFoundError(`namespace "${namespaceKey}"`);
    throw tooLongError(err) ?? err;
  }
  const flag: Flag = {
    key: input.key,
    name: input.name,
    description: input.description,
    enabled: input.enabled,
    namespaceKey,
    type: input.type,
    variants: [],
    createdAt: now,
    updatedAt: now,
  };
  // Flipt echoes the metadata as sent, even an empty object it did not store.
  if (input.metadata !== undefined) flag.metadata = input.metadata;
  return flag;
}

/** Sets name, description, enabled and the default variant; metadata only when given. */
async function updateFlag(db: Executor, namespaceKey: string, key: string, input: FlagUpdate): Promise<Date> {
  if (!(await flagExists(db, namespaceKey, key))) throw new NotFoundError(`flag "${namespaceKey}/${key}"`);
  if (input.defaultVariantId !== '' && !(await findVariant(db, namespaceKey, key, input.defaultVariantId))) {
    throw new InvalidArgumentError(`variant "${input.defaultVariantId}" not found for flag "${namespaceKey}/${key}"`);
  }
  const values: Partial<{
    name: string;
    description: string;
    enabled: boolean;
    default_variant_id: string | null;
    metadata: string | null;
    updated_at: Date;
  }> = {
    name: input.name,
    description: input.description,
    enabled: input.enabled,
    default_variant_id: input.defaultVariantId === '' ? null : input.defaultVariantId,
  };
  const updatedAt = writeTime();
  values.updated_at = updatedAt;
  if (input.metadata !== undefined) values.metadata = metadataColumn(input.metadata);
  try {
    await db
      .updateTable('flags')
      .set(values)
      .where('namespace_key', '=', namespaceKey)
      .where('key', '=', key)
      .execute();
  } catch (err) {
    // The variant was deleted between the check and the write.
    if (classifyDriverError(err) === 'foreign-key') {
      throw new InvalidArgumentError(`variant "${input.defaultVariantId}" not found for flag "${namespaceKey}/${key}"`);
    }
    throw tooLongError(err) ?? err;
  }
  return updatedAt;
}

/**
 * Deletes a flag (nothing when it does not exist) with its variants, rules, distributions and
 * rollouts, all through the schema's cascades.
 */
async function deleteFlag(db: Executor, namespaceKey: string, key: string): Promise<void> {
  // Dropping the flag's own reference to its default variant first keeps MySQL from meeting the
  // flags → variants → flags (SET NULL) cycle inside one cascade.
  await db
    .updateTable('flags')
    .set({ default_variant_id: null })
    .where('namespace_key', '=', namespaceKey)
    .where('key', '=', key)
    .where('default_variant_id', 'is not', null)
    .execute();
  await db.deleteFrom('flags').where('namespace_key', '=', namespaceKey).where('key', '=', key).execute();
}

export const sqlFlagStore: FlagStore = {
  get: getFlag,
  list: listFlags,
  exists: flagExists,
  insert: insertFlag,
  update: updateFlag,
  delete: deleteFlag,
};
