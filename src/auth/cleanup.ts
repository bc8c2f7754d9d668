// The cleanup of expired tokens (and, for a sign-in method, expired sessions and abandoned sign-ins):
// each run deletes the method's authentications whose expiry is older than `cleanup.grace_period`.
// It runs as a `one instance` job of the jobs room (app/jobs/list.ts): with several instances on one
// database, each run first wins a lease of one interval on the `operation_lock` row
// `cleanup_auth_METHOD_TOKEN` (storage/operation-lock.ts), so two instances never both clean in the
// same interval; the room's scheduler wins that lease and then calls `clean`.
//
// Observability: every run is logged, counted in `authTokenCleanupStats` and passed to the listeners
// of `onAuthTokenCleanup` (the app counts deleted tokens in its metrics there).

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AuthMethod } from '../domain/authentication.js';
import { deleteExpiredAuthentications } from '../storage/authentications.js';
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

export interface TokenCleanupOptions {
  db: Kysely<Database>;
  intervalMs: number;
  gracePeriodMs: number;
  logger: Logger;
  method?: AuthMethod;
  /** Also delete sign-ins under way whose state expired (a sign-in method's job: OIDC). */
  loginStates?: boolean;
}

export type CleanupAttempt = { acquired: true; run: CleanupRun } | { acquired: false; entry: LockEntry };

export class TokenCleanupJob {
  readonly instance = randomUUID();
  readonly method: AuthMethod;
  readonly operation: string;

  constructor(private readonly options: TokenCleanupOptions) {
    if (!(options.intervalMs > 0) || !(options.gracePeriodMs > 0)) {
      throw new Error('authentication cleanup interval and grace period must be greater than 0');
    }
    this.method = options.method ?? 'METHOD_TOKEN';
    this.operation = cleanupOperation(this.method);
  }

  get intervalMs(): number {
    return this.options.intervalMs;
  }

  /** One attempt as the scheduler makes it: win the lease, then clean. For tests (a clock of their own). */
  async runOnce(now: Date = new Date()): Promise<CleanupAttempt> {
    const attempt = await tryAcquireLock(this.options.db, this.operation, this.options.intervalMs, now);
    if (!attempt.acquired) return { acquired: false, entry: attempt.entry };
    return { acquired: true, run: await this.clean(now, attempt.entry) };
  }

  /** One run under the lease `lease`, won at `now` for one interval. */
  async clean(now: Date, lease: LockEntry): Promise<CleanupRun> {
    const { db, intervalMs, gracePeriodMs, logger } = this.options;
    const expiredBefore = new Date(now.getTime() - gracePeriodMs);
    const deleted = await deleteExpiredAuthentications(db, this.method, expiredBefore);
    if (this.options.loginStates) {
      const abandoned = await deleteExpiredLoginStates(db, now);
      if (abandoned > 0) logger.debug({ deleted: abandoned }, 'abandoned sign-ins removed');
    }
    const run: CleanupRun = {
      instance: this.instance,
      operation: this.operation,
      method: this.method,
      version: lease.version,
      leaseStart: lease.lastAcquiredAt ?? now,
      leaseEnd: lease.acquiredUntil ?? new Date(now.getTime() + intervalMs),
      expiredBefore,
      deleted,
    };
    authTokenCleanupStats.runs += 1;
    authTokenCleanupStats.deleted += deleted;
    logger.info({ method: this.method, deleted, expiredBefore }, 'expired authentications cleaned up');
    for (const listener of listeners) {
      try {
        listener(run);
      } catch (err) {
        logger.warn({ err }, 'authentication cleanup listener failed');
      }
    }
    return run;
  }
}
