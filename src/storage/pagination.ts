// Flipt's list paging on SQL storage: no limit means everything; with a limit, one extra row is
// fetched to know whether a next page exists, and the token is base64(JSON {key, offset}).

import type { Kysely, Selectable } from 'kysely';
import { InvalidArgumentError } from '../domain/errors.js';
import type { Database } from './schema.js';

export interface ListQuery {
  /** 0 means no limit. */
  limit: number;
  offset: number;
  pageToken: string;
}

export const ALL: ListQuery = { limit: 0, offset: 0, pageToken: '' };

/**
 * The row offset a list query starts at. `requireLimit` is Flipt's check for flags, segments and rules:
 * an offset or token without a limit is refused.
 */
export function startOffset(query: ListQuery, requireLimit: boolean): number {
  if (requireLimit && query.limit === 0 && (query.offset > 0 || query.pageToken !== '')) {
    throw new InvalidArgumentError('limit must be set when offset or pageToken is set');
  }
  if (query.pageToken !== '') return decodePageToken(query.pageToken);
  return Math.max(0, query.offset);
}

export function decodePageToken(token: string): number {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { offset?: unknown };
    const offset = decoded?.offset;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // fall through to the error below
  }
  throw new InvalidArgumentError(`pageToken is not valid: "${token}"`);
}

export function encodePageToken(key: string, offset: number): string {
  return Buffer.from(JSON.stringify({ key, offset })).toString('base64');
}

/** The SQL limit to ask for: one more than the page size, or none. */
export function fetchLimit(query: ListQuery): number | undefined {
  return query.limit > 0 ? query.limit + 1 : undefined;
}

/** Cuts the extra row off and makes the next page's token from it. */
export function toPage<T>(rows: T[], query: ListQuery, offset: number, keyOf: (item: T) => string) {
  if (query.limit > 0 && rows.length > query.limit) {
    const next = rows[query.limit] as T;
    return { items: rows.slice(0, query.limit), nextPageToken: encodePageToken(keyOf(next), offset + query.limit) };
  }
  return { items: rows, nextPageToken: '' };
}

/**
 * One page of a namespace's flags or segments in creation order (Flipt's order for both), with the
 * total under the namespace. An unknown namespace is an empty page, as in Flipt.
 */
export async function pageOfNamespaceRows<T extends 'flags' | 'segments'>(
  db: Kysely<Database>,
  table: T,
  namespaceKey: string,
  query: ListQuery,
): Promise<{ rows: Selectable<Database[T]>[]; offset: number; nextPageToken: string; totalCount: number }> {
  const offset = startOffset(query, true);
  const select = db
    .selectFrom(table as 'flags')
    .selectAll()
    .where('namespace_key', '=', namespaceKey)
    .orderBy('created_at')
    .orderBy('key')
    .offset(offset)
    .limit(fetchLimit(query) ?? Number.MAX_SAFE_INTEGER);
  const [rows, count] = await Promise.all([
    select.execute(),
    db
      .selectFrom(table as 'flags')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('namespace_key', '=', namespaceKey)
      .executeTakeFirstOrThrow(),
  ]);
  const page = toPage(rows, query, offset, (r) => r.key);
  return {
    rows: page.items as Selectable<Database[T]>[],
    offset,
    nextPageToken: page.nextPageToken,
    totalCount: Number(count.n),
  };
}
