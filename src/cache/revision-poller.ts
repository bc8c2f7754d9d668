// The poll of the database that lets this instance see writes made by other instances within one
// interval, even without Redis: it reads every namespace's revision (stale snapshots are dropped and
// the change streams' watch is told, through SnapshotCache.onRevisionsRead) and then whatever else
// reads along (`alsoPoll`: the newest recorded change, which wakes audit delivery), so one timer and
// one pass over the database serve them all. The jobs room runs it (`revision_poll`). A failed poll
// (database down) throws, and the held snapshots stay: evaluations go on answering from the last known
// configuration.

import type { SnapshotCache } from './snapshot-cache.js';

export interface RevisionPollerOptions {
  /** More to read on every poll, after the revisions. */
  alsoPoll?(): Promise<void>;
}

export class RevisionPoller {
  constructor(
    private readonly cache: SnapshotCache,
    private readonly options: RevisionPollerOptions = {},
  ) {}

  /** One poll; the scheduler never runs two at once. */
  async pollOnce(): Promise<void> {
    await this.cache.refreshFromRevisions();
    await this.options.alsoPoll?.();
  }
}
