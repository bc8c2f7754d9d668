// The change log as a use case (issue 28): list changes with filters and paging, and revert one. A
// revert writes the change's "before" state back (with the original ids and timestamps, so the
// resource reads back as it was) and is itself recorded as a new change that names the one it
// reverts. Whatever blocks it (the flag exists again, the segment an old rule used is gone) is a
// FAILED_PRECONDITION naming the blocker, and nothing is written.

import type { Change } from '../../domain/changes.js';
import { InvalidArgumentError, NotFoundError } from '../../domain/errors.js';
import type { ChangeRecorder } from '../../services/change-recorder.js';
import type { ResourceStates } from '../../services/resource-states.js';
import { recordedTransaction, runWrite, type WriteContext } from '../../services/write.js';
import { type ChangeFilter, findChange, listChanges } from '../../storage/changes.js';
import type { Tx } from '../../storage/transaction.js';
import { blocker, ChangeReverter, type RevertStores } from './revert.js';

export const DEFAULT_CHANGE_LIMIT = 25;
export const MAX_CHANGE_LIMIT = 1000;

export interface ChangeListQuery extends Omit<ChangeFilter, 'namespaces'> {
  limit?: number;
  pageToken?: string;
}

export class HistoryService {
  readonly #reverter: ChangeReverter;

  constructor(
    private readonly ctx: WriteContext,
    states: ResourceStates,
    stores: RevertStores,
  ) {
    this.#reverter = new ChangeReverter(states, stores);
  }

  /** `namespaces` undefined: every namespace and the changes outside any (tokens). */
  list(
    namespaces: readonly string[] | undefined,
    query: ChangeListQuery,
  ): Promise<{ items: Change[]; nextPageToken: string }> {
    const requested = query.limit ?? 0;
    if (requested < 0) throw new InvalidArgumentError('limit must not be negative');
    const limit = requested === 0 ? DEFAULT_CHANGE_LIMIT : Math.min(requested, MAX_CHANGE_LIMIT);
    const { limit: _limit, pageToken, ...filter } = query;
    return listChanges(
      this.ctx.db,
      { ...filter, ...(namespaces ? { namespaces } : {}) },
      {
        limit,
        pageToken: pageToken ?? '',
      },
    );
  }

  async get(namespaceKey: string, id: string): Promise<Change> {
    const change = await findChange(this.ctx.db, id);
    if (!change || change.namespaceKey !== namespaceKey) throw new NotFoundError(`change "${namespaceKey}/${id}"`);
    return change;
  }

  /** Restores the change's "before" state as a new change; answers the new change. */
  async revert(namespaceKey: string, id: string): Promise<Change> {
    const change = await this.get(namespaceKey, id);
    const ns = namespaceKey;
    const undo = async (tx: Tx, changes: ChangeRecorder) => {
      try {
        await (change.resourceType === 'namespace' && change.action !== 'updated'
          ? this.#reverter.undoNamespaceLife(tx, changes, change)
          : this.#reverter.undo(tx, changes, ns, change));
      } catch (err) {
        throw blocker(err, change);
      }
    };
    if (change.resourceType === 'namespace' && change.action !== 'updated') {
      // The namespace itself comes or goes: there is no revision to bump until it exists.
      await recordedTransaction(this.ctx, undo, { reverts: change.id });
      this.ctx.changes.publish(ns);
    } else {
      await runWrite(this.ctx, ns, undo, { reverts: change.id });
    }
    // The new change is the newest of this namespace naming the reverted one.
    const page = await listChanges(this.ctx.db, { namespaces: [ns] }, { limit: 20, pageToken: '' });
    const recordedId = page.items.find((c) => c.reverts === change.id)?.id;
    return recordedId ? await this.get(ns, recordedId) : change;
  }
}
