// Namespaces in SQL: the containers every other resource lives in, each with its revision.

import { AlreadyExistsError, NotFoundError } from '../domain/errors.js';
import type { Namespace, Page } from '../domain/types.js';
import { namespaceOf } from './codecs/namespaces.js';
import { classifyDriverError } from './errors.js';
import { fetchLimit, type ListQuery, startOffset, toPage } from './pagination.js';
import { writeTime } from './rows.js';
import type { Executor, NamespaceCreate, NamespaceStore, NamespaceUpdate } from './store.js';

async function findNamespace(db: Executor, key: string): Promise<Namespace | undefined> {
  const row = await db.selectFrom('namespaces').selectAll().where('key', '=', key).executeTakeFirst();
  return row ? namespaceOf(row) : undefined;
}

async function getNamespace(db: Executor, key: string): Promise<Namespace> {
  const ns = await findNamespace(db, key);
  if (!ns) throw new NotFoundError(`namespace "${key}"`);
  return ns;
}

async function listNamespaces(db: Executor, query: ListQuery, only?: readonly string[]): Promise<Page<Namespace>> {
  const offset = startOffset(query, false);
  if (only !== undefined && only.length === 0) {
    return { ...toPage<Namespace>([], query, offset, (n) => n.key), totalCount: 0 };
  }
  let select = db.selectFrom('namespaces').selectAll().orderBy('created_at').orderBy('key').offset(offset);
  let counted = db.selectFrom('namespaces').select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (only !== undefined) {
    select = select.where('key', 'in', only);
    counted = counted.where('key', 'in', only);
  }
  const limit = fetchLimit(query);
  select = limit === undefined ? select.limit(Number.MAX_SAFE_INTEGER) : select.limit(limit);
  const [rows, count] = await Promise.all([select.execute(), counted.executeTakeFirstOrThrow()]);
  const page = toPage(rows.map(namespaceOf), query, offset, (n) => n.key);
  return { ...page, totalCount: Number(count.n) };
}

async function insertNamespace(db: Executor, input: NamespaceCreate): Promise<Namespace> {
  const now = writeTime();
  try {
    await db
      .insertInto('namespaces')
      .values({ ...input, protected: false, revision: 1, created_at: now, updated_at: now, state_modified_at: now })
      .execute();
  } catch (err) {
    if (classifyDriverError(err) === 'unique') throw new AlreadyExistsError(`namespace "${input.key}" is not unique`);
    throw err;
  }
  return { ...input, protected: false, createdAt: now, updatedAt: now };
}

async function updateNamespace(db: Executor, key: string, input: NamespaceUpdate): Promise<void> {
  const result = await db
    .updateTable('namespaces')
    .set({ ...input, updated_at: writeTime() })
    .where('key', '=', key)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new NotFoundError(`namespace "${key}"`);
}

async function deleteNamespace(db: Executor, key: string): Promise<void> {
  // Flags go first: rules and rollouts hold RESTRICT references to segments, which the namespace
  // cascade would otherwise meet before the flags' own cascades on some databases.
  await db.deleteFrom('flags').where('namespace_key', '=', key).execute();
  await db.deleteFrom('namespaces').where('key', '=', key).execute();
}

async function countFlags(db: Executor, namespaceKey: string): Promise<number> {
  const row = await db
    .selectFrom('flags')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('namespace_key', '=', namespaceKey)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const sqlNamespaceStore: NamespaceStore = {
  find: findNamespace,
  get: getNamespace,
  list: listNamespaces,
  countFlags,
  insert: insertNamespace,
  update: updateNamespace,
  delete: deleteNamespace,
};
