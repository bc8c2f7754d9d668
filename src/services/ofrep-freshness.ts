// Read-your-writes for pushed changes: a bulk re-fetch that a change message triggered names the
// revision it was told of (`flagConfigEtag`). When this instance has not reached that revision yet
// (the message came from an instance that heard first), it reloads the namespace once before
// answering, instead of answering from the older snapshot until its own poll comes round. Concurrent
// requests share the one reload; a value that is not a revision tag is ignored, and a revision already
// reloaded for is not reloaded for again (a made-up one must not make every request read the database).

import { isLaterRevision } from '../cache/revision-watch.js';
import type { SnapshotCache } from '../cache/snapshot-cache.js';
import type { NamespaceSnapshot } from '../evaluation/index.js';

const TAG = /^\d{1,16}\.\d{1,16}$/;
/** Namespaces remembered with the revision last reloaded for; cleared when full. */
const MAX_REMEMBERED = 1024;

export class OfrepFreshness {
  readonly #snapshots: SnapshotCache;
  readonly #pending = new Map<string, Promise<NamespaceSnapshot>>();
  readonly #reloadedFor = new Map<string, string>();

  constructor(snapshots: SnapshotCache) {
    this.#snapshots = snapshots;
  }

  /** The namespace's snapshot, reloaded first when `wanted` names a later revision than the one held. */
  snapshot(namespaceKey: string, wanted: unknown): NamespaceSnapshot | Promise<NamespaceSnapshot> {
    const held = this.#snapshots.get(namespaceKey);
    // A snapshot being loaded is read from the database now: as fresh as a reload would be.
    if (typeof wanted !== 'string' || held instanceof Promise || !TAG.test(wanted)) return held;
    if (!isLaterRevision(wanted, held.revision)) return held;
    const pending = this.#pending.get(namespaceKey);
    if (pending !== undefined) return pending;
    if (this.#reloadedFor.get(namespaceKey) === wanted) return held;
    if (this.#reloadedFor.size >= MAX_REMEMBERED) this.#reloadedFor.clear();
    this.#reloadedFor.set(namespaceKey, wanted);
    this.#snapshots.invalidate(namespaceKey, 'broadcast');
    const reload = Promise.resolve(this.#snapshots.get(namespaceKey)).finally(() => {
      if (this.#pending.get(namespaceKey) === reload) this.#pending.delete(namespaceKey);
    });
    this.#pending.set(namespaceKey, reload);
    return reload;
  }
}
