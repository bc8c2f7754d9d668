// Memory and CPU of many open event streams (issue 29): `npx tsx bench/event-streams.ts`.
//
// Starts the real program (`src/main.ts serve` under tsx) on SQLite with ofrep.event_streams on,
// opens N OFREP event streams from this process (each waits for its first message), then changes a
// flag once a second for D seconds. Prints the server's resident memory before and with the streams
// (the difference per stream), its CPU use idle without streams, idle with them (heartbeats only) and
// while changes are pushed, and how long each change took to reach every stream (from the write's
// answer to the last stream's message).
//
// Options: --streams N (5000) --changes D (60) --idle S (20: each idle CPU sample)

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOnHelp } from './help.js';
import { freePort, median, ROOT, rssMiB } from './server-process.js';

exitOnHelp(import.meta.url);

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const STREAMS = option('streams', 5000);
const CHANGES = option('changes', 60);
const IDLE_S = option('idle', 20);
const TICKS_PER_SECOND = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The process's user + system CPU time in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function cpuPercentOver(pid: number, seconds: number, during?: () => Promise<void>): Promise<number> {
  const start = cpuSeconds(pid);
  const began = performance.now();
  if (during) await during();
  else await sleep(seconds * 1000);
  const elapsed = (performance.now() - began) / 1000;
  return ((cpuSeconds(pid) - start) / elapsed) * 100;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'vexil-sse-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      VEXIL_DB_URL: `file:${join(dir, 'bench.db')}`,
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: String(port),
      VEXIL_SERVER_GRPC_PORT: String(await freePort()),
      VEXIL_LOG_LEVEL: 'warn',
      VEXIL_OFREP_EVENT_STREAMS_ENABLED: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const pid = server.pid as number;
  try {
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        // not yet
      }
      await sleep(200);
    }
    const write = async (enabled: boolean) => {
      const res = await fetch(`${base}/api/v1/namespaces/default/flags/f`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'f', enabled }),
      });
      if (res.status !== 200) throw new Error(`write answered ${res.status}`);
      return res.headers.get('x-vexil-revision') as string;
    };
    await fetch(`${base}/api/v1/namespaces/default/flags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE' }),
    });
    await fetch(`${base}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await sleep(3000);
    const rssBefore = rssMiB(pid) ?? Number.NaN;
    const cpuIdle = await cpuPercentOver(pid, IDLE_S);

    // Each stream records when it last saw each revision's message.
    const seen = new Map<string, number[]>();
    const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
    let opened = 0;
    const open = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(`${base}/ofrep/v1/namespaces/default/events`, { agent }, (res) => {
          res.setEncoding('utf8');
          let first = true;
          res.on('data', (chunk: string) => {
            for (const m of chunk.matchAll(/^id: (.*)$/gm)) {
              const id = m[1] as string;
              const times = seen.get(id) ?? [];
              if (times.length === 0) seen.set(id, times);
              times.push(performance.now());
            }
            if (first && chunk.includes('event: message')) {
              first = false;
              opened++;
              resolve();
            }
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    const openedAt = performance.now();
    for (let i = 0; i < STREAMS; i += 250) {
      await Promise.all(Array.from({ length: Math.min(250, STREAMS - i) }, open));
    }
    const openSeconds = (performance.now() - openedAt) / 1000;
    await sleep(5000);
    const rssStreams = rssMiB(pid) ?? Number.NaN;
    const cpuIdleStreams = await cpuPercentOver(pid, IDLE_S);

    const fanOut: number[] = [];
    let missing = 0;
    const cpuChanges = await cpuPercentOver(pid, CHANGES, async () => {
      for (let i = 0; i < CHANGES; i++) {
        const tick = performance.now();
        const revision = await write(i % 2 === 0);
        const written = performance.now();
        const deadline = written + 5000;
        while ((seen.get(revision)?.length ?? 0) < STREAMS && performance.now() < deadline) await sleep(5);
        const times = seen.get(revision) ?? [];
        missing += STREAMS - times.length;
        fanOut.push(Math.max(...times) - written);
        await sleep(Math.max(0, 1000 - (performance.now() - tick)));
      }
    });
    const rssAfter = rssMiB(pid) ?? Number.NaN;
    const result = {
      streams: opened,
      openSeconds: Number(openSeconds.toFixed(1)),
      rssMiB: {
        before: Number(rssBefore.toFixed(1)),
        withStreams: Number(rssStreams.toFixed(1)),
        afterChanges: Number(rssAfter.toFixed(1)),
      },
      kibPerStream: Number((((rssStreams - rssBefore) * 1024) / STREAMS).toFixed(2)),
      cpuPercent: {
        idleNoStreams: Number(cpuIdle.toFixed(1)),
        idleWithStreams: Number(cpuIdleStreams.toFixed(1)),
        oneChangePerSecond: Number(cpuChanges.toFixed(1)),
      },
      fanOutMs: { median: Math.round(median(fanOut)), max: Math.round(Math.max(...fanOut)) },
      messagesMissing: missing,
    };
    console.log(JSON.stringify(result, null, 2));
    agent.destroy();
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

function existsShm(): boolean {
  try {
    return readFileSync('/proc/mounts', 'utf8').includes(' /dev/shm ');
  } catch {
    return false;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
