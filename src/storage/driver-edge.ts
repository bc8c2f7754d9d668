// The storage edge every query passes, on every dialect: a wrapper around the dialect's driver that
// turns connection-level errors (refused, reset, terminated, admin shutdown, pool or connect timeout,
// …) into UnavailableError wherever a query runs — writes, management reads, snapshot loads, token
// lookups — so every transport answers 503 code 14 "database unavailable" while the database
// restarts; any other error passes unchanged, so the stores still classify unique and foreign-key
// violations. It also applies the check for text no database stores (unstorable-text.ts), and tells
// a listener when the database goes away and when it answers again (AvailabilityListener), so an
// outage is reported once rather than by every query it fails.

import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { UnavailableError } from '../domain/errors.js';
import { classifyDriverError } from './errors.js';
import { storableQuery } from './unstorable-text.js';

/** `err` as UnavailableError when it is a connection-level failure, else `err` itself. */
export function asUnavailable(err: unknown): unknown {
  return classifyDriverError(err) === 'unavailable'
    ? new UnavailableError('database unavailable', { cause: err })
    : err;
}

/** Told of the database's comings and goings: each outage once, however many queries it fails. */
export interface AvailabilityListener {
  /** The database answered before and now fails at the connection level; `cause` is the driver's error. */
  unavailable(cause: unknown): void;
  /** It answers again: how long it was away, and how many queries and connection attempts failed. */
  available(outage: { ms: number; failures: number }): void;
}

/**
 * The database's availability as the queries see it. It is 'unknown' until a first query succeeds,
 * so the retries while the program starts (logged there) are not reported as an outage. Only a query
 * that began after the latest failure proves the database back: while a server shuts down, queries
 * already running on its connections still succeed as new ones fail.
 */
class Availability {
  #state: 'unknown' | 'up' | 'down' = 'unknown';
  #since = 0;
  #failures = 0;
  /** Counts connection-level failures; a query notes it when it starts. */
  #epoch = 0;

  constructor(private readonly listener: AvailabilityListener | undefined) {}

  get epoch(): number {
    return this.#epoch;
  }

  /** Rethrows `err`, as UnavailableError when it is a connection-level failure (noted). */
  readonly rethrow = (err: unknown): never => {
    const mapped = asUnavailable(err);
    if (mapped !== err && this.listener !== undefined) this.#failed(err);
    throw mapped;
  };

  /** A query that started at `epoch` succeeded: cheap while the database is up (one comparison). */
  readonly succeeded = (epoch: number): void => {
    if (this.#state === 'up') return;
    if (this.#state === 'down') {
      if (epoch !== this.#epoch) return;
      this.listener?.available({ ms: Date.now() - this.#since, failures: this.#failures });
    }
    this.#state = 'up';
  };

  #failed(cause: unknown): void {
    this.#epoch++;
    if (this.#state === 'down') {
      this.#failures++;
      return;
    }
    if (this.#state === 'unknown') return;
    this.#state = 'down';
    this.#since = Date.now();
    this.#failures = 1;
    this.listener?.unavailable(cause);
  }
}

type CompileQuery = QueryCompiler['compileQuery'];

/**
 * Patches a connection's query methods in place (as Kysely's own query logging does), once per
 * connection: the dialect's driver keeps private state on its connection objects, so they are
 * never replaced by wrappers.
 */
const guarded = new WeakSet<DatabaseConnection>();

function guard(connection: DatabaseConnection, availability: Availability): DatabaseConnection {
  if (guarded.has(connection)) return connection;
  guarded.add(connection);
  const { rethrow, succeeded } = availability;
  const executeQuery = connection.executeQuery.bind(connection);
  const streamQuery = connection.streamQuery.bind(connection);
  connection.executeQuery = async <R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> => {
    const epoch = availability.epoch;
    const result = await executeQuery<R>(storableQuery(compiledQuery)).catch(rethrow);
    succeeded(epoch);
    return result;
  };
  connection.streamQuery = async function* <R>(
    compiledQuery: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    const epoch = availability.epoch;
    try {
      yield* streamQuery<R>(storableQuery(compiledQuery), chunkSize);
      succeeded(epoch);
    } catch (err) {
      rethrow(err);
    }
  };
  return connection;
}

class EdgeDriver implements Driver {
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  readonly #availability: Availability;
  readonly #rethrow: (err: unknown) => never;

  constructor(
    private readonly inner: Driver,
    listener: AvailabilityListener | undefined,
  ) {
    this.#availability = new Availability(listener);
    const rethrow = this.#availability.rethrow;
    this.#rethrow = rethrow;
    // Kysely asks whether a driver supports savepoints by the presence of these methods.
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = inner;
    if (savepoint) {
      this.savepoint = (c: DatabaseConnection, name: string, compile: CompileQuery) =>
        savepoint.call(inner, c, name, compile).catch(rethrow);
    }
    if (rollbackToSavepoint) {
      this.rollbackToSavepoint = (c: DatabaseConnection, name: string, compile: CompileQuery) =>
        rollbackToSavepoint.call(inner, c, name, compile).catch(rethrow);
    }
    if (releaseSavepoint) {
      this.releaseSavepoint = (c: DatabaseConnection, name: string, compile: CompileQuery) =>
        releaseSavepoint.call(inner, c, name, compile).catch(rethrow);
    }
  }

  init(): Promise<void> {
    return this.inner.init().catch(this.#rethrow);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return guard(await this.inner.acquireConnection().catch(this.#rethrow), this.#availability);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings).catch(this.#rethrow);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection).catch(this.#rethrow);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection).catch(this.#rethrow);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * `dialect` with connection-level driver errors raised as UnavailableError and unstorable text checked;
 * `listener` hears of outages.
 */
export function withDriverEdge(dialect: Dialect, listener?: AvailabilityListener): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new EdgeDriver(dialect.createDriver(), listener),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
