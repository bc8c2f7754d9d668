// How long recorded changes are kept (issue 28): `audit.retention`, 90 days when unset, 0 for forever;
// and the removal of older ones, a `one instance` job of the jobs room (its own lease, `changes_retention`,
// on the token cleanup's interval, which is when it ran before it had a lease of its own).

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { deleteChangesBefore } from '../storage/changes.js';
import type { Database } from '../storage/schema.js';

export const DEFAULT_CHANGES_RETENTION = '2160h';

/** The lease of the retention job on `operation_lock`. */
export const CHANGES_RETENTION_OPERATION = 'changes_retention';

export function changesRetention(config: Config): number {
  const audit = (config as { audit?: { retention?: unknown } }).audit;
  const value =
    typeof audit?.retention === 'string' && audit.retention !== '' ? audit.retention : DEFAULT_CHANGES_RETENTION;
  return ms(value);
}

/** Deletes the changes recorded more than `retentionMs` before `now`; returns how many went. */
export async function removeExpiredChanges(
  db: Kysely<Database>,
  retentionMs: number,
  now: Date,
  logger: Logger,
): Promise<number> {
  const before = new Date(now.getTime() - retentionMs);
  const deleted = await deleteChangesBefore(db, before);
  logger.info({ deleted, before }, 'old recorded changes removed');
  return deleted;
}
