// The frame of every write use case: one transaction that also bumps the namespace revision, then
// the change published once the transaction has committed.

import type { Kysely } from 'kysely';
import { NotFoundError } from '../domain/errors.js';
import type { Database } from '../storage/schema.js';
import { bumpRevision, inTransaction, type Tx } from '../storage/transaction.js';
import type { ChangeFeed } from './changes.js';

export interface WriteContext {
  db: Kysely<Database>;
  changes: ChangeFeed;
}

export async function runWrite<T>(ctx: WriteContext, namespaceKey: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await inTransaction(ctx.db, async (tx) => {
    const value = await work(tx);
    if (!(await bumpRevision(tx, namespaceKey))) throw new NotFoundError(`namespace "${namespaceKey}"`);
    return value;
  });
  ctx.changes.publish(namespaceKey);
  return result;
}
