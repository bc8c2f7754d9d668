// A large write on SQLite leaves its checkpoint to a worker thread: during the write the automatic
// checkpoint is off (the commit copies nothing into the database file), afterwards the worker has
// copied the WAL into the file and the automatic checkpoint is on again; overlapping writes and a
// failing one leave it the same; an in-memory database is left alone.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from './db.js';
import {
  checkpointOffThread,
  checkpointsSettled,
  WAL_AUTOCHECKPOINT_PAGES,
  withCheckpointOffThread,
} from './sqlite-checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'vexil-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
async function walDatabase() {
  const file = join(dir, `db-${files++}.db`);
  const db = openDb({ url: `file:${file}` });
  await sql`create table t (id integer primary key, v text)`.execute(db.kysely);
  // The table in the file itself, so a copy of the file alone can be counted.
  await sql`pragma wal_checkpoint(truncate)`.execute(db.kysely);
  return { file, db };
}

const autocheckpoint = async <DB>(db: Kysely<DB>) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]?.wal_autocheckpoint;

/** Rows of `t` in the database file itself, the WAL ignored: what a checkpoint has copied so far. */
function rowsInFile(file: string): number {
  const copy = `${file}.alone`;
  copyFileSync(file, copy);
  const reader = new SqliteDatabase(copy);
  try {
    return (reader.prepare('select count(*) as n from t').get() as { n: number }).n;
  } finally {
    reader.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  }
}

/** A transaction of `rows` rows, far over the automatic checkpoint's 1000 pages; `fail`: rolled back. */
async function bigWrite<DB>(db: Kysely<DB>, rows: number, fail = false, first = 0): Promise<number | undefined> {
  const during = await autocheckpoint(db);
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows; i += 500) {
      const values = Array.from({ length: 500 }, (_, j) => sql`(${first + i + j}, ${'x'.repeat(2000)})`);
      await sql`insert into t (id, v) values ${sql.join(values)}`.execute(tx);
    }
    if (fail) throw new Error('refused after writing');
  });
  return during;
}

describe('withCheckpointOffThread on SQLite in WAL mode', () => {
  it.each([
    ['one write', 1, false],
    ['two overlapping writes', 2, false],
    ['a write that fails after its inserts', 1, true],
  ])('%s: automatic checkpoint off during, WAL copied by the worker, on again after', async (_n, writes, fails) => {
    const { file, db } = await walDatabase();
    try {
      const runs = Array.from({ length: writes }, (_, w) =>
        withCheckpointOffThread(db.kysely, () => bigWrite(db.kysely, 3000 + w * 3000, fails, w * 3000)),
      );
      const outcomes = await Promise.allSettled(runs);
      if (fails) expect(outcomes.map((o) => o.status)).toEqual(['rejected']);
      else expect(outcomes).toEqual(runs.map(() => ({ status: 'fulfilled', value: 0 })));
      // Committed with nothing checkpointed into the file (the commit copied nothing).
      if (!fails) expect(rowsInFile(file)).toBe(0);
      await checkpointsSettled(db.kysely);
      expect(await autocheckpoint(db.kysely)).toBe(WAL_AUTOCHECKPOINT_PAGES);
      expect(rowsInFile(file)).toBe(fails ? 0 : 3000 + (writes - 1) * 6000);
    } finally {
      await db.close();
    }
  });

  it('in memory: the write runs as it is, the setting untouched', async () => {
    const db = openDb({ url: ':memory:' });
    try {
      expect(await withCheckpointOffThread(db.kysely, () => autocheckpoint(db.kysely))).toBe(WAL_AUTOCHECKPOINT_PAGES);
      await checkpointsSettled(db.kysely);
    } finally {
      await db.close();
    }
  });
});

describe('checkpointOffThread', () => {
  it('answers SQLite’s checkpoint row, or why it could not run', async () => {
    const { file, db } = await walDatabase();
    try {
      await sql`pragma wal_autocheckpoint = 0`.execute(db.kysely);
      await bigWrite(db.kysely, 1000);
      const outcome = await checkpointOffThread(file);
      expect(outcome).toMatchObject({ busy: 0 });
      expect(outcome).toHaveProperty('log', (outcome as { checkpointed: number }).checkpointed);
      expect(rowsInFile(file)).toBe(1000);
    } finally {
      await db.close();
    }
    expect(await checkpointOffThread(join(dir, 'missing.db'))).toEqual({
      error: expect.stringContaining('unable to open database file'),
    });
  });
});
