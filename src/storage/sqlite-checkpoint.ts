// SQLite's WAL checkpoint after a large write, on a worker thread (ADR 0042). better-sqlite3 answers on
// the event loop, and SQLite runs the automatic checkpoint inside the COMMIT that pushes the WAL over
// `wal_autocheckpoint` pages: after a 50 MB import that copied the whole import into the database file
// in one call, 1–3 s during which /health and every evaluation waited. So a large write runs with the
// automatic checkpoint off, and afterwards a second connection on a worker thread runs a PASSIVE
// checkpoint (which never blocks the writer or readers) before the automatic one is turned on again.

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Kysely, SqliteAdapter, sql } from 'kysely';

/** SQLite's default `wal_autocheckpoint`, in pages, which the connection returns to afterwards. */
export const WAL_AUTOCHECKPOINT_PAGES = 1000;

/** What the worker answers: SQLite's `wal_checkpoint` row, or the reason it could not run. */
export type CheckpointOutcome = { busy: number; log: number; checkpointed: number } | { error: string };

/** A few lines of CommonJS, so the worker needs no module of ours (and no TypeScript loader in tests). */
// It answers after closing its connection, so that once the answer is in, nothing holds the files.
const CHECKPOINT_WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
let outcome;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  outcome = db.pragma('wal_checkpoint(PASSIVE)')[0];
} catch (err) {
  outcome = { error: String(err && err.message || err) };
} finally {
  try {
    if (db) db.close();
  } catch {}
}
parentPort.postMessage(outcome);
`;

const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');

/** Runs a PASSIVE checkpoint of the WAL database `file` from a connection on a worker thread. */
export function checkpointOffThread(file: string): Promise<CheckpointOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(CHECKPOINT_WORKER, { eval: true, workerData: { driver: driverPath, file } });
    // Shutdown never waits for it: an unfinished checkpoint leaves the WAL as it was, which is safe.
    worker.unref();
    worker.once('message', (outcome: CheckpointOutcome) => resolve(outcome));
    worker.once('error', (err) => resolve({ error: err.message }));
    worker.once('exit', (code) => resolve({ error: `checkpoint worker exited with code ${code}` }));
  });
}

interface DeferralState {
  /** Writes running with the automatic checkpoint off. */
  running: number;
  /** The checkpoints (and the switching back on) queued so far, in order. */
  settled: Promise<void>;
}

const deferrals = new WeakMap<object, DeferralState>();

/** The database file when `db` is an SQLite database in WAL mode (not in memory); else undefined. */
async function walFile<DB>(db: Kysely<DB>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return undefined;
  const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
  if (mode.rows[0]?.journal_mode !== 'wal') return undefined;
  const files = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
  const main = files.rows.find((row) => row.name === 'main')?.file;
  return main ? main : undefined;
}

async function setAutocheckpoint<DB>(db: Kysely<DB>, pages: number): Promise<void> {
  await sql`pragma ${sql.raw(`wal_autocheckpoint = ${pages}`)}`.execute(db);
}

/**
 * Runs `write` (a large transaction) with SQLite's automatic checkpoint off, then checkpoints on a
 * worker thread and turns the automatic one on again once no such write is left. Other dialects, and
 * SQLite not in WAL mode, run `write` as it is. Resolves with `write`'s answer as soon as it has one;
 * the checkpoint follows in the background. Writes that commit meanwhile only add to the WAL.
 */
export async function withCheckpointOffThread<DB, T>(db: Kysely<DB>, write: () => Promise<T>): Promise<T> {
  const file = await walFile(db);
  if (file === undefined) return write();
  let state = deferrals.get(db);
  if (!state) {
    state = { running: 0, settled: Promise.resolve() };
    deferrals.set(db, state);
  }
  const current = state;
  current.running++;
  try {
    // SQLite's single connection runs statements in the order given, so this lands before the write's
    // transaction begins, and after a switch back on that a checkpoint finishing meanwhile queued.
    await setAutocheckpoint(db, 0);
    return await write();
  } finally {
    current.running--;
    current.settled = current.settled.then(async () => {
      if (current.running > 0) return; // the last write still running checkpoints after itself
      await checkpointOffThread(file);
      // Checked again: a write that began during the checkpoint has switched it off and will follow.
      if (current.running > 0) return;
      // A database closed meanwhile (a command that has finished) needs nothing switched back on.
      await setAutocheckpoint(db, WAL_AUTOCHECKPOINT_PAGES).catch(() => undefined);
    });
  }
}

/** Resolves once the checkpoints queued for `db` so far have run and closed their connections (tests). */
export function checkpointsSettled<DB>(db: Kysely<DB>): Promise<void> {
  return deferrals.get(db)?.settled ?? Promise.resolve();
}
