// The pool settings of `db` reach the drivers: max_open_conn bounds the server connections, and
// conn_max_lifetime recycles a connection once it is older (pg's maxLifetimeSeconds; for MySQL our own
// recycling, since mysql2 has no such option).

import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Db, type DbOptions, openDb } from '../../src/storage/db.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { CuttableProxy } from './cache-support.js';

describeEachBackend('database pool settings', (backend) => {
  const server = backend.name === 'sqlite' ? it.skip : it;
  let database: TestDatabase;
  const opened: Db[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await Promise.allSettled(opened.map((db) => db.close()));
    await database?.drop();
  });

  function open(options: Omit<DbOptions, 'url'>): Db {
    const db = openDb({ url: database.url, ...options });
    opened.push(db);
    return db;
  }

  /** The server's id of the connection a statement runs on. */
  async function connectionId(db: Db, hold = 0): Promise<string> {
    return db.kysely.connection().execute(async (conn) => {
      const query =
        db.dialect === 'mysql'
          ? sql<{ id: unknown }>`select connection_id() as id`
          : sql<{ id: unknown }>`select pg_backend_pid() as id`;
      const id = String((await query.execute(conn)).rows[0]?.id);
      if (hold) await new Promise((r) => setTimeout(r, hold));
      return id;
    });
  }

  server('never opens more server connections than max_open_conn', async () => {
    const db = open({ maxOpenConn: 2 });
    // Six statements at once, each holding its connection a moment: they share the two connections.
    const ids = await Promise.all(Array.from({ length: 6 }, () => connectionId(db, 100)));
    expect(new Set(ids).size).toBe(2);
  });

  server('keeps a connection without conn_max_lifetime', async () => {
    const db = open({ maxOpenConn: 1 });
    const first = await connectionId(db, backend.name === 'mysql' ? 150 : 1_100);
    expect(await connectionId(db)).toBe(first);
  });

  server('recycles a connection older than conn_max_lifetime', async () => {
    // pg counts the lifetime in whole seconds; our MySQL recycling in milliseconds.
    const lifetime = backend.name === 'mysql' ? 100 : 1_000;
    const db = open({ maxOpenConn: 1, connMaxLifetimeMs: lifetime });
    // Held past its lifetime, the connection is closed when handed back; the next query gets a new one.
    const first = await connectionId(db, lifetime + 100);
    const second = await connectionId(db);
    expect(second).not.toBe(first);
  });

  server('losing the server while a transaction waits between queries fails it, and ends nothing else', async () => {
    // pg-pool listens for a client's 'error' only while it is idle in the pool: a client checked out
    // (here, a transaction between two queries, as a namespace load is while it gives the event loop
    // a turn) whose server goes away emitted an error nobody heard, which ended the process.
    const url = new URL(database.url);
    const proxy = await CuttableProxy.start(url.hostname, Number(url.port || (backend.name === 'mysql' ? 3306 : 5432)));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', record);
    try {
      const db = openDb({ url: url.toString(), maxOpenConn: 1 });
      opened.push(db);
      const transaction = db.kysely.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        proxy.cut();
        await new Promise((r) => setTimeout(r, 300));
        await sql`select 1`.execute(trx);
      });
      await expect(transaction).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      // The pool replaces the lost connection once the server is back.
      proxy.restore();
      expect((await sql<{ one: number }>`select 1 as one`.execute(db.kysely)).rows[0]?.one).toBe(1);
    } finally {
      process.off('uncaughtException', record);
      proxy.restore();
      await proxy.close();
    }
  });
});
