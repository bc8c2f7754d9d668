// What the snapshot cache loads from the database: one namespace's source (read by the namespace
// reader, which the export shares), and every namespace's revision tag, which tells an instance which
// of its snapshots are out of date.

import type { Kysely } from 'kysely';
import type { NamespaceSource } from '../evaluation/source.js';
import type { DialectName } from './db.js';
import { readNamespace } from './namespace-reader.js';
import { revisionTag } from './revision-tag.js';
import type { Database } from './schema.js';

/**
 * Every namespace's revision tag: the one cheap read (a scan of a table with a row per namespace)
 * that tells an instance what other instances changed.
 */
export async function namespaceRevisionTags(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('namespaces').select(['key', 'revision', 'created_at']).execute();
  return new Map(rows.map((r) => [r.key, revisionTag(r.created_at, r.revision)]));
}

/** The namespace's source, read consistently; undefined when the namespace does not exist. */
export async function loadNamespaceSource(
  db: Kysely<Database>,
  dialect: DialectName,
  namespaceKey: string,
): Promise<NamespaceSource | undefined> {
  return (await readNamespace(db, dialect, namespaceKey, { details: false }))?.source;
}
