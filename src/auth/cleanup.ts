// The background job that deletes expired tokens (and, for a sign-in method, expired sessions and
// abandoned sign-ins): every `cleanup.interval` it deletes METHOD_TOKEN
// authentications whose expiry is older than `cleanup.grace_period`. With several instances on one
// database, one instance at a time runs it: each run first wins a lease of one interval on the
// `operation_lock` row `cleanup_auth_METHOD_TOKEN` (storage/operation-lock.ts), so two instances never
// both clean in the same interval. After a database error it retries after min(interval, 5m).
//
// The same run, under the same lease, also removes recorded changes older than the change log's
// retention (issue 28), so one instance at a time does that too.
//
// Observability: every run is logged, counted in `authTokenCleanupStats` and passed to the listeners
// of `onAuthTokenCleanup` (the metrics module registers its Prometheus counter there).

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AuthMethod } from '../domain/authentication.js';
import { deleteExpiredAuthentications } from '../storage/authentications.js';
import { deleteChangesBefore } from '../storage/changes.js';
import { deleteExpiredLoginStates } from '../storage/login-states.js';
import { type LockEntry, tryAcquireLock } from '../storage/operation-lock.js';
import type { Database } from '../storage/schema.js';

export interface CleanupRun {
  /** The job instance that ran it (one per app). */
  instance: string;
  operation: string;
  method: AuthMethod;
  /** The lease number won for this run: unique across instances. */
  version: number;
  leaseStart: Date;
  leaseEnd: Date;
  /** Authentications that expired before this were deleted. */
  expiredBefore: Date;
  deleted: number;
  /** Changes recorded before `changesBefore` were deleted (retention); absent when retention is off. */
  changesBefore?: Date;
  changesDeleted: number;
}

/** Process-wide totals, for the metrics engineer (`vexil_auth_tokens_deleted_total`). */
export const authTokenCleanupStats = { runs: 0, deleted: 0 };

const listeners = new Set<(run: CleanupRun) => void>();

/** Calls `listener` after every cleanup run of any job in this process; returns the unsubscribe. */
export function onAuthTokenCleanup(listener: (run: CleanupRun) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function cleanupOperation(method: AuthMethod): string {
  return `cleanup_auth_${method}`;
}

const MAX_RETRY_MS = 5 * 60_000;
/** Never poll the lock faster than this, whatever the clocks say. */
const MIN_WAIT_MS = 10;

export interface TokenCleanupOptions {
  db: Kysely<Database>;
  intervalMs: number;
  gracePeriodMs: number;
  logger: Logger;
  method?: AuthMethod;
  /** False: the token method is off and the job only applies the change log's retention. */
  tokens?: boolean;
  /** How long recorded changes are kept; undefined or 0: forever. */
  changesRetentionMs?: number;
  /** Also delete sign-ins under way whose state expired (a sign-in method's job: OIDC). */
  loginStates?: boolean;
}

export type CleanupAttempt = { acquired: true; run: CleanupRun } | { acquired: false; entry: LockEntry };

export class TokenCleanupJob {
  readonly instance = randomUUID();
  readonly method: AuthMethod;
  readonly operation: string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(private readonly options: TokenCleanupOptions) {
    if (!(options.intervalMs > 0) || !(options.gracePeriodMs > 0)) {
      throw new Error('authentication cleanup interval and grace period must be greater than 0');
    }
    this.method = options.method ?? 'METHOD_TOKEN';
    this.operation = cleanupOperation(this.method);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops scheduling and waits for a run in progress to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One attempt: win the lease, then delete. Exposed for tests and for the loop. */
  async runOnce(now: Date = new Date()): Promise<CleanupAttempt> {
    const { db, intervalMs, gracePeriodMs, logger } = this.options;
    const attempt = await tryAcquireLock(db, this.operation, intervalMs, now);
    if (!attempt.acquired) {
      logger.debug(
        { operation: this.operation, until: attempt.entry.acquiredUntil },
        'authentication cleanup held by another instance',
      );
      return { acquired: false, entry: attempt.entry };
    }
    const expiredBefore = new Date(now.getTime() - gracePeriodMs);
    const deleted =
      this.options.tokens === false ? 0 : await deleteExpiredAuthentications(db, this.method, expiredBefore);
    if (this.options.loginStates) {
      const abandoned = await deleteExpiredLoginStates(db, now);
      if (abandoned > 0) logger.debug({ deleted: abandoned }, 'abandoned sign-ins removed');
    }
    const retention = this.options.changesRetentionMs ?? 0;
    const changesBefore = retention > 0 ? new Date(now.getTime() - retention) : undefined;
    const changesDeleted = changesBefore ? await deleteChangesBefore(db, changesBefore) : 0;
    const run: CleanupRun = {
      instance: this.instance,
      operation: this.operation,
      method: this.method,
      version: attempt.entry.version,
      leaseStart: attempt.entry.lastAcquiredAt ?? now,
      leaseEnd: attempt.entry.acquiredUntil ?? new Date(now.getTime() + intervalMs),
      expiredBefore,
      deleted,
      ...(changesBefore ? { changesBefore } : {}),
      changesDeleted,
    };
    authTokenCleanupStats.runs += 1;
    authTokenCleanupStats.deleted += deleted;
    logger.info({ method: this.method, deleted, expiredBefore }, 'expired authentications cleaned up');
    if (changesBefore) logger.info({ deleted: changesDeleted, before: changesBefore }, 'old recorded changes removed');
    for (const listener of listeners) {
      try {
        listener(run);
      } catch (err) {
        logger.warn({ err }, 'authentication cleanup listener failed');
      }
    }
    return { acquired: true, run };
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => {
        this.#running = undefined;
      });
    }, delayMs);
    // The job must never keep a stopping process alive.
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    let next: number;
    try {
      const attempt = await this.runOnce();
      next = attempt.acquired
        ? this.options.intervalMs
        : (attempt.entry.acquiredUntil?.getTime() ?? Date.now()) - Date.now();
    } catch (err) {
      this.options.logger.error({ err, operation: this.operation }, 'authentication cleanup failed; retrying later');
      next = Math.min(this.options.intervalMs, MAX_RETRY_MS);
    }
    this.#schedule(Math.max(MIN_WAIT_MS, next));
  }
}
