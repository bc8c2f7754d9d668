// What recording a change costs a write (issue 28): single-flag create and update over real HTTP,
// sequential, against two servers in one process on identical fresh databases — this tree (records
// every change) and a baseline tree without the change log (default /work/main, or VEXIL_BASELINE).
// Rounds alternate which server goes first, so drift on a shared machine hits both alike; the
// report is the median of each round's median latency, and the ratio.
//
//   npx tsx bench/change-recording.ts [requests per round] [rounds]
//   backends: SQLite always; PostgreSQL when VEXIL_BENCH_POSTGRES_URL or VEXIL_TEST_POSTGRES_URL is set.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { exitOnHelp } from './help.js';

exitOnHelp(import.meta.url);

const N = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 7);
const BASELINE = process.env.VEXIL_BASELINE ?? '/work/main';

interface Db {
  url: string;
  drop(): Promise<void>;
}

async function database(kind: 'sqlite' | 'postgres', adminUrl?: string): Promise<Db> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-bench-'));
    return { url: `file:${join(dir, 'vexil.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `vexil_b_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl as string);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

type BuildApp = (
  config: unknown,
  options: { logger: unknown },
) => Promise<{
  listen(): Promise<{ httpPort: number }>;
  close(): Promise<void>;
}>;

async function server(tree: string, url: string) {
  const { buildApp } = (await import(`${tree}/src/app/build-app.ts`)) as { buildApp: BuildApp };
  const { loadConfig } = (await import(`${tree}/src/config/load.ts`)) as {
    loadConfig(o: { env: object; overrides: object }): unknown;
  };
  const config = loadConfig({
    env: {},
    overrides: { db: { url }, log: { level: 'error' }, server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } },
  });
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) });
  const { httpPort } = await app.listen();
  return { app, base: `http://127.0.0.1:${httpPort}` };
}

async function timed(url: string, method: string, body: unknown): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

async function round(base: string, r: number): Promise<{ create: number; update: number }> {
  const creates: number[] = [];
  const updates: number[] = [];
  for (let i = 0; i < N; i++) {
    creates.push(await timed(`${base}/api/v1/namespaces/default/flags`, 'POST', { key: `f-${r}-${i}`, name: 'F' }));
  }
  for (let i = 0; i < N; i++) {
    updates.push(
      await timed(`${base}/api/v1/namespaces/default/flags/f-${r}-${i}`, 'PUT', { name: 'G', enabled: i % 2 === 0 }),
    );
  }
  return { create: median(creates), update: median(updates) };
}

async function measure(kind: 'sqlite' | 'postgres', adminUrl?: string): Promise<void> {
  const dbs = [await database(kind, adminUrl), await database(kind, adminUrl)];
  const recording = await server(new URL('..', import.meta.url).pathname.replace(/\/$/, ''), (dbs[0] as Db).url);
  const baseline = await server(BASELINE, (dbs[1] as Db).url);
  const results = {
    recording: { create: [] as number[], update: [] as number[] },
    baseline: { create: [] as number[], update: [] as number[] },
  };
  try {
    // One warm-up round each, not counted.
    await round(recording.base, -1);
    await round(baseline.base, -1);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['recording', 'baseline'] as const) : (['baseline', 'recording'] as const);
      for (const which of order) {
        const res = await round(which === 'recording' ? recording.base : baseline.base, r);
        results[which].create.push(res.create);
        results[which].update.push(res.update);
      }
    }
  } finally {
    await recording.app.close();
    await baseline.app.close();
    for (const db of dbs) await db.drop();
  }
  for (const op of ['create', 'update'] as const) {
    const a = median(results.recording[op]);
    const b = median(results.baseline[op]);
    console.log(
      `${kind.padEnd(8)} ${op.padEnd(6)} baseline ${b.toFixed(2)} ms  recording ${a.toFixed(2)} ms  ` +
        `extra ${(((a - b) / b) * 100).toFixed(1)} %  (medians of ${ROUNDS} rounds × ${N} sequential requests)`,
    );
  }
}

await measure('sqlite');
const pgUrl = process.env.VEXIL_BENCH_POSTGRES_URL ?? process.env.VEXIL_TEST_POSTGRES_URL;
if (pgUrl) await measure('postgres', pgUrl);
else console.log('postgres: skipped (no VEXIL_BENCH_POSTGRES_URL / VEXIL_TEST_POSTGRES_URL)');
