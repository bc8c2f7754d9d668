// The frame of every write use case: one transaction that also bumps the namespace revision, then
// the change published once the transaction has committed.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import { NotFoundError } from '../domain/errors.js';
import type { Database } from '../storage/schema.js';
import { bumpRevision, inTransaction, readRevisionTag, type Tx } from '../storage/transaction.js';
import type { ChangeFeed } from './changes.js';

/** What a caller's writes left behind: the namespace and the revision tag its last write created. */
export interface WriteReceipt {
  namespaceKey?: string;
  revision?: string;
}

/**
 * Set by a caller that wants to know the revision its writes produced (the HTTP layer, for the
 * X-Vexil-Revision header). Outside of it, writes read nothing back.
 */
export const writeReceipts = new AsyncLocalStorage<WriteReceipt>();

export interface WriteContext {
  db: Kysely<Database>;
  changes: ChangeFeed;
}

export async function runWrite<T>(ctx: WriteContext, namespaceKey: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await inTransaction(ctx.db, async (tx) => {
    const value = await work(tx);
    if (!(await bumpRevision(tx, namespaceKey))) throw new NotFoundError(`namespace "${namespaceKey}"`);
    const receipt = writeReceipts.getStore();
    if (receipt) {
      // Read back inside the transaction: exactly this write's revision, even beside concurrent writes.
      receipt.namespaceKey = namespaceKey;
      receipt.revision = await readRevisionTag(tx, namespaceKey);
    }
    return value;
  });
  ctx.changes.publish(namespaceKey);
  return result;
}
