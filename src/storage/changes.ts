// The `changes` table (migration 004): one row per recorded write, inserted in the write's own
// transaction; read newest first for the history API and revert; old rows removed by retention.

import { setImmediate as nextTurn } from 'node:timers/promises';
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

/**
 * Rows per statement, well under every database's bound parameters. On SQLite a statement holds the
 * event loop, and the cost per row grows with its size (each row's revision is a subquery): 500 rows
 * took 65 ms, 100 rows 8–10 ms, 50 rows 1.4 ms, the import no slower (ADR 0042).
 */
const CHANGES_PER_INSERT = 50;

/**
 * Inserts the changes of one write, CHANGES_PER_INSERT rows a statement: an import records one change
 * per object, and 30,000 flags in one statement were more parameters than any database binds (a 500).
 * An event-loop turn between statements, as the import's own inserts do (ADR 0013): SQLite's driver
 * answers synchronously.
 */
export async function insertChanges(tx: Tx, changes: readonly NewChange[]): Promise<void> {
  for (let i = 0; i < changes.length; i += CHANGES_PER_INSERT) {
    if (i > 0) await nextTurn();
    await insertChangeRows(tx, changes.slice(i, i + CHANGES_PER_INSERT));
  }
}

async function insertChangeRows(tx: Tx, changes: readonly NewChange[]): Promise<void> {
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

/** The id of the newest recorded change, 0 when there is none (one index read: the revision poll's). */
export async function newestChangeId(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/**
 * What a write touched, as the objects whose later changes conflict with it: a flag with every part of
 * it (variants, rules, their distributions, rollouts); a rule with its distributions; a segment with
 * its constraints; a flag's rule or rollout order (every rule or rollout of the flag); the namespace's
 * own settings; any other object by itself.
 */
export interface TouchedObjects {
  namespace: boolean;
  flags: readonly string[];
  rules: readonly string[];
  segments: readonly string[];
  /** Flags whose rule order, or rollout order, was written. */
  ruleOrders: readonly string[];
  rolloutOrders: readonly string[];
  /** Objects by themselves: variants, distributions, rollouts, constraints, by type. */
  single: ReadonlyMap<string, readonly string[]>;
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
  const { flags, rules, segments, ruleOrders, rolloutOrders } = objects;
  let query = tx
    .selectFrom('changes')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .where('revision', '>', revision)
    .where((eb) => {
      const is = (type: string | string[], column: 'resource_key' | 'parent_key', keys: readonly string[]) =>
        eb.and([
          Array.isArray(type) ? eb('resource_type', 'in', type) : eb('resource_type', '=', type),
          eb(column, 'in', [...keys]),
        ]);
      const any = [];
      if (objects.namespace) any.push(is('namespace', 'resource_key', [namespaceKey]));
      if (flags.length > 0) {
        any.push(is('flag', 'resource_key', flags));
        any.push(is(['variant', 'rule', 'rollout'], 'parent_key', flags));
        any.push(
          eb.and([
            eb('resource_type', '=', 'distribution'),
            eb(
              'parent_key',
              'in',
              eb
                .selectFrom('rules')
                .select('rules.id')
                .where('rules.namespace_key', '=', namespaceKey)
                .where('rules.flag_key', 'in', [...flags]),
            ),
          ]),
        );
      }
      if (rules.length > 0) {
        any.push(is('rule', 'resource_key', rules));
        any.push(is('distribution', 'parent_key', rules));
      }
      if (segments.length > 0) {
        any.push(is('segment', 'resource_key', segments));
        any.push(is('constraint', 'parent_key', segments));
      }
      if (ruleOrders.length > 0) any.push(is('rule', 'parent_key', ruleOrders));
      if (rolloutOrders.length > 0) any.push(is('rollout', 'parent_key', rolloutOrders));
      for (const [type, keys] of objects.single) any.push(is(type, 'resource_key', keys));
      return any.length > 0 ? eb.or(any) : eb.lit(false);
    })
    .orderBy('id', 'desc')
    .limit(1);
  if (!(tx.getExecutor().adapter instanceof SqliteAdapter)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toChange(row) : undefined;
}
