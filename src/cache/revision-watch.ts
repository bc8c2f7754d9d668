// The one place where "namespace X now has revision R" is known on every instance, for the change
// streams (OFREP event streams, the native stream, gRPC). Three sources feed it, whichever the cache
// backend: this instance's own writes (the change feed, then one indexed read of the revision), the
// Redis revisions channel (which carries the revision), and the revision poll (which reads every
// namespace's revision anyway). Only namespaces somebody watches are kept, and a revision only moves
// forward, so a poll that read the table just before a broadcast cannot announce an older revision.

/** A change as the streams send it. */
export interface RevisionChange {
  namespaceKey: string;
  /** The revision tag (X-Vexil-Revision); '' when the namespace does not exist (any more). */
  revision: string;
  /** When this instance learned of it, in Unix seconds. */
  lastModified: number;
}

export type RevisionListener = (change: RevisionChange) => void;

interface Watched {
  listeners: Set<RevisionListener>;
  /** The latest change known, or undefined until the first read of the revision returns. */
  latest: RevisionChange | undefined;
  /** That first read, shared by the watchers that arrive while it runs. */
  reading: Promise<RevisionChange> | undefined;
}

const TAG = /^(\d+)\.(\d+)$/;

/**
 * Whether revision tag `next` is later than `held` (storage/revision-tag.ts: `<created ms>.<counter>`).
 * A namespace created again has a new creation time: any tag of it counts as later, and so does any
 * tag at all against '' (no namespace). A tag that cannot be read is never later.
 */
export function isLaterRevision(next: string, held: string): boolean {
  if (next === held) return false;
  const n = TAG.exec(next);
  if (n === null) return next === '' && held !== '';
  const h = TAG.exec(held);
  if (h === null) return true;
  if (n[1] !== h[1]) return true;
  return Number(n[2]) > Number(h[2]);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export class RevisionWatch {
  readonly #watched = new Map<string, Watched>();

  constructor(
    /** The namespace's current revision tag (one indexed read), or undefined when it does not exist. */
    private readonly revisionOf: (namespaceKey: string) => Promise<string | undefined>,
  ) {}

  /** Namespaces with at least one watcher. */
  get size(): number {
    return this.#watched.size;
  }

  /** Watchers over every namespace. */
  get watchers(): number {
    let n = 0;
    for (const w of this.#watched.values()) n += w.listeners.size;
    return n;
  }

  /**
   * Starts watching; resolves with the namespace's current revision once known. The listener is called
   * for every later revision. The returned promise's `stop` ends the watch (also before it resolves).
   */
  watch(namespaceKey: string, listener: RevisionListener): { current: Promise<RevisionChange>; stop: () => void } {
    let watched = this.#watched.get(namespaceKey);
    if (watched === undefined) {
      watched = { listeners: new Set(), latest: undefined, reading: undefined };
      this.#watched.set(namespaceKey, watched);
    }
    const entry = watched;
    entry.listeners.add(listener);
    const stop = () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0 && this.#watched.get(namespaceKey) === entry) this.#watched.delete(namespaceKey);
    };
    const current = entry.latest !== undefined ? Promise.resolve(entry.latest) : this.#read(namespaceKey, entry);
    return { current, stop };
  }

  /** The latest revision known of a watched namespace. */
  latest(namespaceKey: string): RevisionChange | undefined {
    return this.#watched.get(namespaceKey)?.latest;
  }

  /** A write committed on this instance: its revision is read once if anybody watches the namespace. */
  written(namespaceKey: string): void {
    if (!this.#watched.has(namespaceKey)) return;
    this.revisionOf(namespaceKey).then(
      (revision) => this.announce(namespaceKey, revision ?? ''),
      () => {
        // The database is away: the revision poll catches up when it returns.
      },
    );
  }

  /** Another instance's write (Redis revisions channel). */
  announce(namespaceKey: string, revision: string): void {
    const watched = this.#watched.get(namespaceKey);
    if (watched === undefined) return;
    if (watched.latest !== undefined && !isLaterRevision(revision, watched.latest.revision)) return;
    this.#publish(namespaceKey, watched, revision);
  }

  /** Every namespace's revision, as the revision poll read it. */
  polled(revisions: ReadonlyMap<string, string>): void {
    for (const [namespaceKey, watched] of this.#watched) {
      const revision = revisions.get(namespaceKey) ?? '';
      if (watched.latest !== undefined && isLaterRevision(revision, watched.latest.revision)) {
        this.#publish(namespaceKey, watched, revision);
      }
    }
  }

  #publish(namespaceKey: string, watched: Watched, revision: string): void {
    const change: RevisionChange = { namespaceKey, revision, lastModified: nowSeconds() };
    watched.latest = change;
    for (const listener of [...watched.listeners]) listener(change);
  }

  #read(namespaceKey: string, watched: Watched): Promise<RevisionChange> {
    if (watched.reading !== undefined) return watched.reading;
    const reading = this.revisionOf(namespaceKey)
      .then((revision) => {
        const read: RevisionChange = { namespaceKey, revision: revision ?? '', lastModified: nowSeconds() };
        // A change announced while the read ran is at least as new.
        if (watched.latest === undefined || isLaterRevision(read.revision, watched.latest.revision)) {
          watched.latest = read;
        }
        return watched.latest;
      })
      .finally(() => {
        if (watched.reading === reading) watched.reading = undefined;
      });
    watched.reading = reading;
    return reading;
  }
}
