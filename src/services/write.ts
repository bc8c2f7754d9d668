// The frame of every write use case: one transaction that also bumps the namespace revision, then
// the change published once the transaction has committed.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import type { ChangeActor } from '../domain/changes.js';
import { NotFoundError } from '../domain/errors.js';
import type { RoleBinding } from '../domain/roles.js';
import { insertChanges, type NewChange } from '../storage/changes.js';
import { revisionTag } from '../storage/revision-tag.js';
import type { Database } from '../storage/schema.js';
import {
  bumpRevision,
  bumpRevisionTag,
  inTransaction,
  lockRevision,
  locksNamespaceFirst,
  readRevisionTag,
  type Tx,
} from '../storage/transaction.js';
import { ChangeRecorder, type RecordedChanges, type RecorderOptions, UNKNOWN_ACTOR } from './change-recorder.js';
import type { ChangeFeed } from './changes.js';
import { checkPrecondition } from './precondition.js';

/** What a caller's writes left behind: the namespace and the revision tag its last write created. */
export interface WriteReceipt {
  namespaceKey?: string;
  revision?: string;
  /** Who the writes are recorded as (set by the transport that opened the receipt). */
  actor?: ChangeActor;
  /** The actor's roles, when it has any (issue 41): its changes name the role they were made in. */
  actorRoles?: readonly RoleBinding[];
  /**
   * The client's precondition (HTTP `If-Match`, gRPC `if-match`, quotes removed): the namespace revision
   * it read; its writes are refused when what they touch changed after it (precondition.ts, ADR 0035).
   */
  ifMatch?: string;
}

/** The receipt of the writes running in the current async flow (see collectWrites). */
const writeReceipts = new AsyncLocalStorage<WriteReceipt>();
let openReceipts = 0;

/**
 * Runs `fn` so that the writes it starts, however deep in its async flow, record their namespace and
 * revision on `receipt` (the HTTP layer, for the X-Vexil-Revision header); outside of it, writes read
 * nothing back. Returns the function that closes the receipt: call it once the caller is done (its
 * response sent), exactly once.
 *
 * While any receipt is open the AsyncLocalStorage is enabled, and on Node 20 an enabled one installs
 * async and promise hooks that every promise, tick and socket of the process then pays for: after a
 * single management request, evaluations ran measurably slower, for good (measured:
 * docs/performance.md). So it is disabled again whenever
 * the last open receipt closes (ADR 0009); the next receipt enables it again.
 */
export function collectWrites(receipt: WriteReceipt, fn: () => void): () => void {
  openReceipts++;
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    openReceipts--;
    if (openReceipts === 0) writeReceipts.disable();
  };
  try {
    writeReceipts.run(receipt, fn);
  } catch (err) {
    close();
    throw err;
  }
  return close;
}

export interface WriteContext {
  db: Kysely<Database>;
  changes: ChangeFeed;
  /** Told of the changes each write recorded, after its commit (absent: nobody listens). */
  recorded?: RecordedChanges;
}

/** The actor of the current async flow's receipt; only transports that open a receipt name one. */
export function currentActor(): ChangeActor {
  return writeReceipts.getStore()?.actor ?? UNKNOWN_ACTOR;
}

/**
 * Runs `work` in one transaction with a recorder whose changes are inserted before the commit; the
 * recorder is new on every attempt, so a retried transaction records its changes once.
 */
export async function recordedTransaction<T>(
  ctx: Pick<WriteContext, 'db' | 'recorded'>,
  work: (tx: Tx, changes: ChangeRecorder) => Promise<T>,
  options: RecorderOptions = {},
): Promise<T> {
  let recorded: readonly NewChange[] = [];
  const actor = options.actor ?? currentActor();
  // An actor named by the caller brings its own roles, if any; else the receipt's actor brings its.
  const actorRoles = options.actor !== undefined ? options.actorRoles : writeReceipts.getStore()?.actorRoles;
  const result = await inTransaction(ctx.db, async (tx) => {
    const recorder = new ChangeRecorder({ ...options, actor, ...(actorRoles !== undefined ? { actorRoles } : {}) });
    const value = await work(tx, recorder);
    // After the work (which bumped the revision, holding the namespace's row lock) and before its own
    // changes are inserted: only others' changes count. Nothing at all when no precondition was sent.
    const ifMatch = writeReceipts.getStore()?.ifMatch;
    if (ifMatch !== undefined) await checkPrecondition(tx, recorder.pending, ifMatch);
    await insertChanges(tx, recorder.pending);
    recorded = recorder.pending;
    return value;
  });
  ctx.recorded?.publish(recorded);
  return result;
}

/**
 * Thrown out of a write's transaction when its use case recorded no change (a delete that found
 * nothing): the transaction is rolled back, with anything the use case wrote unrecorded, and the write
 * answers `value`. Not an Error: nothing reads its stack.
 */
class NothingChanged {
  constructor(readonly value: unknown) {}
}

/**
 * Runs a use case's `work` in one transaction that bumps the namespace revision, then tells the change
 * feed. A use case that records no change leaves the namespace's revision as it was and tells nobody
 * (ADR 0053): caches, event streams and watchers have nothing to reload.
 */
export async function runWrite<T>(
  ctx: WriteContext,
  namespaceKey: string,
  work: (tx: Tx, changes: ChangeRecorder) => Promise<T>,
  options: RecorderOptions = {},
): Promise<T> {
  const missing = () => new NotFoundError(`namespace "${namespaceKey}"`);
  let result: T;
  try {
    result = await recordedTransaction(
      ctx,
      async (tx, changes) => {
        // The namespace row's lock first, where foreign-key locks would otherwise deadlock writers (ADR 0031).
        const lockFirst = locksNamespaceFirst(tx);
        const locked = lockFirst ? await lockRevision(tx, namespaceKey) : undefined;
        const value = await work(tx, changes);
        const receipt = writeReceipts.getStore();
        /** The revision the client is told this write left (read or made inside the transaction). */
        const tell = (revision: string) => {
          if (!receipt) return;
          receipt.namespaceKey = namespaceKey;
          receipt.revision = revision;
        };
        if (changes.pending.length === 0) {
          const current = lockFirst
            ? locked && revisionTag(locked.createdAt, locked.revision)
            : await readRevisionTag(tx, namespaceKey);
          if (current === undefined) throw missing();
          // A precondition that is no revision is bad input, whatever the write found.
          if (receipt?.ifMatch !== undefined) await checkPrecondition(tx, [], receipt.ifMatch);
          tell(current);
          throw new NothingChanged(value);
        }
        if (lockFirst) {
          if (!locked) throw missing();
          await bumpRevision(tx, namespaceKey);
          // Nobody else bumps it while the lock is held: this write's revision is the next one.
          tell(revisionTag(locked.createdAt, locked.revision + 1));
        } else if (receipt) {
          // Taken inside the transaction: exactly this write's revision, even beside concurrent writes.
          const revision = await bumpRevisionTag(tx, namespaceKey);
          if (revision === undefined) throw missing();
          tell(revision);
        } else if (!(await bumpRevision(tx, namespaceKey))) {
          throw missing();
        }
        return value;
      },
      options,
    );
  } catch (err) {
    if (err instanceof NothingChanged) return err.value as T;
    throw err;
  }
  ctx.changes.publish(namespaceKey);
  return result;
}

/** Runs `work` with its writes recorded as made by `actor` (the CLI, start-up jobs). */
export async function actingAs<T>(actor: ChangeActor, work: () => Promise<T>): Promise<T> {
  let pending: Promise<T> | undefined;
  const close = collectWrites({ actor }, () => {
    pending = work();
  });
  try {
    return await (pending as Promise<T>);
  } finally {
    close();
  }
}

/** Who the command line's writes are recorded as. */
export const CLI_ACTOR: ChangeActor = { authentication: 'cli' };
