// The `changes` table (migration 004): one row per recorded write, inserted in the write's own
// transaction; read newest first for the history API and revert; old rows removed by retention.

import { type Selectable, SqliteAdapter, sql } from 'kysely';
import type { Change, ChangeAction, ChangeActor, ChangeResourceType } from '../domain/changes.js';
import { InvalidArgumentError } from '../domain/errors.js';
import { toDate } from './rows.js';
import type { ChangesTable } from './schema.js';
import type { Executor } from './store.js';
import type { Tx } from './transaction.js';

export interface NewChange {
  createdAt: Date;
  batch?: string;
  namespaceKey?: string;
  resourceType: ChangeResourceType;
  resourceKey: string;
  parentKey?: string;
  action: ChangeAction;
  actor: ChangeActor;
  /** JSON of the state before and after. */
  beforeJson?: string;
  afterJson?: string;
  reverts?: string;
}

export interface ChangeFilter {
  /** Undefined: every namespace, and the changes outside any (tokens). */
  namespaces?: readonly string[];
  resourceType?: string;
  resourceKey?: string;
  /**
   * With resourceType and resourceKey: also the changes of these types whose parent is that key (a
   * flag's variants, rules and rollouts; a segment's constraints).
   */
  childTypes?: readonly string[];
  /** Matches the actor's token id or name. */
  actor?: string;
  batch?: string;
  since?: Date;
  until?: Date;
}

export interface ChangePageQuery {
  /** 1..1000. */
  limit: number;
  pageToken: string;
}

function parse(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toChange(row: Selectable<ChangesTable>): Change {
  const change: Change = {
    id: String(row.id),
    createdAt: toDate(row.created_at).toISOString(),
    resourceType: row.resource_type as ChangeResourceType,
    resourceKey: row.resource_key,
    action: row.action as ChangeAction,
    actor: (parse(row.actor) as ChangeActor | undefined) ?? { authentication: 'none' },
  };
  if (row.batch !== null) change.batch = row.batch;
  if (row.namespace_key !== null) change.namespaceKey = row.namespace_key;
  if (row.parent_key !== null) change.parentKey = row.parent_key;
  const before = parse(row.before_state);
  if (before !== undefined) change.before = before;
  const after = parse(row.after_state);
  if (after !== undefined) change.after = after;
  if (row.reverts !== null && row.reverts !== undefined) change.reverts = String(row.reverts);
  return change;
}

/** Inserts the rows of one transaction in one statement. */
export async function insertChanges(tx: Tx, changes: readonly NewChange[]): Promise<void> {
  if (changes.length === 0) return;
  await tx
    .insertInto('changes')
    .values(
      changes.map((c) => ({
        created_at: c.createdAt,
        batch: c.batch ?? null,
        namespace_key: c.namespaceKey ?? null,
        resource_type: c.resourceType,
        resource_key: c.resourceKey,
        parent_key: c.parentKey ?? null,
        action: c.action,
        actor: JSON.stringify(c.actor),
        before_state: c.beforeJson ?? null,
        after_state: c.afterJson ?? null,
        reverts: c.reverts === undefined ? null : Number(c.reverts),
        // The revision the write leaves behind (bumped earlier in the same transaction): what a
        // precondition compares with (changedAfter). A subquery, so a write pays no round trip for it.
        revision:
          c.namespaceKey === undefined
            ? null
            : sql<number>`(select ${sql.ref('revision')} from ${sql.table('namespaces')} where ${sql.ref('key')} = ${c.namespaceKey})`,
      })),
    )
    .execute();
}

/** The page token is the id the next page starts at (ids only grow), so new changes never shift a page. */
function decodeToken(token: string): number | undefined {
  if (token === '') return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { id?: unknown };
    if (typeof decoded?.id === 'number' && Number.isSafeInteger(decoded.id) && decoded.id > 0) return decoded.id;
  } catch {
    // fall through
  }
  throw new InvalidArgumentError(`pageToken is not valid: "${token}"`);
}

function encodeToken(id: number): string {
  return Buffer.from(JSON.stringify({ id })).toString('base64');
}

/** Newest first. */
export async function listChanges(
  db: Executor,
  filter: ChangeFilter,
  page: ChangePageQuery,
): Promise<{ items: Change[]; nextPageToken: string }> {
  const startId = decodeToken(page.pageToken);
  let query = db.selectFrom('changes').selectAll();
  if (filter.namespaces !== undefined) {
    if (filter.namespaces.length === 0) return { items: [], nextPageToken: '' };
    query = query.where('namespace_key', 'in', [...filter.namespaces]);
  }
  const { resourceType: type, resourceKey: key, childTypes } = filter;
  if (type !== undefined && key !== undefined && childTypes?.length) {
    query = query.where((eb) =>
      eb.or([
        eb.and([eb('resource_type', '=', type), eb('resource_key', '=', key)]),
        eb.and([eb('resource_type', 'in', [...childTypes]), eb('parent_key', '=', key)]),
      ]),
    );
  } else {
    if (type !== undefined) query = query.where('resource_type', '=', type);
    if (key !== undefined) query = query.where('resource_key', '=', key);
  }
  if (filter.batch !== undefined) query = query.where('batch', '=', filter.batch);
  if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('created_at', '<', filter.until);
  if (filter.actor !== undefined) {
    // The actor is JSON text; matching its serialized fields keeps the filter one indexed-scan query.
    const tokenId = `%"tokenId":${JSON.stringify(filter.actor)}%`;
    const name = `%"name":${JSON.stringify(filter.actor)}%`;
    const authentication = `%"authentication":${JSON.stringify(filter.actor)}%`;
    query = query.where((eb) =>
      eb.or([eb('actor', 'like', tokenId), eb('actor', 'like', name), eb('actor', 'like', authentication)]),
    );
  }
  if (startId !== undefined) query = query.where('id', '<=', startId);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const items = rows.slice(0, page.limit).map(toChange);
  const next = rows[page.limit];
  return { items, nextPageToken: next ? encodeToken(Number(next.id)) : '' };
}

/** Every change of one batch (an import, a namespace delete), oldest first. */
export async function batchChanges(db: Executor, batch: string): Promise<Change[]> {
  const rows = await db.selectFrom('changes').selectAll().where('batch', '=', batch).orderBy('id', 'asc').execute();
  return rows.map(toChange);
}

export async function findChange(db: Executor, id: string): Promise<Change | undefined> {
  if (!/^[0-9]{1,15}$/.test(id)) return undefined;
  const row = await db.selectFrom('changes').selectAll().where('id', '=', Number(id)).executeTakeFirst();
  return row ? toChange(row) : undefined;
}

/** Retention: deletes the changes recorded before `before`; returns how many. */
export async function deleteChangesBefore(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('changes').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The objects a write touched, by what owns them: a flag owns its variants, rules, distributions and rollouts; a segment its constraints. */
export interface TouchedObjects {
  namespace: boolean;
  flags: readonly string[];
  segments: readonly string[];
  /** Rules whose distributions count as their flag's (the flag's current rules are added here). */
  ruleIds: readonly string[];
}

/**
 * The newest change of the namespace recorded after `revision` to one of the objects or their parts,
 * if any. Inside a write's transaction, after its revision bump (which holds the namespace's row lock,
 * so no other write of the namespace can commit meanwhile); read with a lock where the database
 * supports one, so MySQL's repeatable read sees what committed before the bump, not its snapshot.
 */
export async function changedAfter(
  tx: Tx,
  namespaceKey: string,
  revision: number,
  objects: TouchedObjects,
): Promise<Change | undefined> {
  const { segments, ruleIds } = objects;
  // A distribution's owner is its rule's flag: that flag's other parts count too.
  const ruleFlags =
    ruleIds.length === 0
      ? []
      : (
          await tx
            .selectFrom('rules')
            .select('flag_key')
            .where('namespace_key', '=', namespaceKey)
            .where('id', 'in', [...ruleIds])
            .execute()
        ).map((r) => r.flag_key);
  const flags = [...new Set([...objects.flags, ...ruleFlags])];
  let query = tx
    .selectFrom('changes')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('revision', '>', revision)
    .where((eb) => {
      const any = [];
      if (objects.namespace)
        any.push(eb.and([eb('resource_type', '=', 'namespace'), eb('resource_key', '=', namespaceKey)]));
      if (flags.length > 0) {
        any.push(eb.and([eb('resource_type', '=', 'flag'), eb('resource_key', 'in', [...flags])]));
        any.push(
          eb.and([eb('resource_type', 'in', ['variant', 'rule', 'rollout']), eb('parent_key', 'in', [...flags])]),
        );
        any.push(
          eb.and([
            eb('resource_type', '=', 'distribution'),
            eb.or([
              eb(
                'parent_key',
                'in',
                eb
                  .selectFrom('rules')
                  .select('rules.id')
                  .where('rules.namespace_key', '=', namespaceKey)
                  .where('rules.flag_key', 'in', [...flags]),
              ),
              ...(ruleIds.length > 0 ? [eb('parent_key', 'in', [...ruleIds])] : []),
            ]),
          ]),
        );
      }
      if (segments.length > 0) {
        any.push(eb.and([eb('resource_type', '=', 'segment'), eb('resource_key', 'in', [...segments])]));
        any.push(eb.and([eb('resource_type', '=', 'constraint'), eb('parent_key', 'in', [...segments])]));
      }
      return any.length > 0 ? eb.or(any) : eb.lit(false);
    })
    .orderBy('id', 'desc')
    .limit(1);
  if (!(tx.getExecutor().adapter instanceof SqliteAdapter)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toChange(row) : undefined;
}
