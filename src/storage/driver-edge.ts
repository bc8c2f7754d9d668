// The storage edge every query passes, on every dialect: a wrapper around the dialect's driver that
// turns connection-level errors (refused, reset, terminated, admin shutdown, pool or connect timeout,
// …) into UnavailableError wherever a query runs — writes, management reads, snapshot loads, token
// lookups — so every transport answers 503 code 14 "database unavailable" while the database
// restarts; any other error passes unchanged, so the stores still classify unique and foreign-key
// violations. It also applies the check for text no database stores (unstorable-text.ts).

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

function rethrow(err: unknown): never {
  throw asUnavailable(err);
}

type CompileQuery = QueryCompiler['compileQuery'];

/**
 * Patches a connection's query methods in place (as Kysely's own query logging does), once per
 * connection: the dialect's driver keeps private state on its connection objects, so they are
 * never replaced by wrappers.
 */
const guarded = new WeakSet<DatabaseConnection>();

function guard(connection: DatabaseConnection): DatabaseConnection {
  if (guarded.has(connection)) return connection;
  guarded.add(connection);
  const executeQuery = connection.executeQuery.bind(connection);
  const streamQuery = connection.streamQuery.bind(connection);
  connection.executeQuery = async <R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> =>
    executeQuery<R>(storableQuery(compiledQuery)).catch(rethrow);
  connection.streamQuery = async function* <R>(
    compiledQuery: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* streamQuery<R>(storableQuery(compiledQuery), chunkSize);
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

  constructor(private readonly inner: Driver) {
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
    return this.inner.init().catch(rethrow);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return guard(await this.inner.acquireConnection().catch(rethrow));
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings).catch(rethrow);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection).catch(rethrow);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection).catch(rethrow);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `dialect` with connection-level driver errors raised as UnavailableError and unstorable text checked. */
export function withDriverEdge(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new EdgeDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
