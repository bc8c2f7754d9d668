// `npx tsx bench/transport-cost.ts`: the server's CPU per evaluation over gRPC against HTTP, both
// driven at the same request rate (a saturated transport would pay less per request for batching its
// work into fewer wake-ups, so a comparison at different rates says little).
//
// Compiles this tree, starts the server as production runs it on CPU 0, seeds the bench's flags
// (bench/seed.ts), restarts it, then in each round loads single boolean, single variant and a batch
// of 50, once over HTTP and once over gRPC, both from bench/grpc-load.ts at the same rate and on the
// same schedule (one connection per slot, the slots' sends spread evenly: a load that sends in bursts
// lets the server answer several requests per wake-up, and autocannon's `overallRate` does), from CPU 1, the order of the two alternating by round. The server's CPU time per
// request comes from /proc, less its idle CPU measured just before each load. Prints, per scenario, each transport's CPU µs per request and the ratio
// gRPC ÷ HTTP: medians and spreads of the rounds.
//
// The first row, "bare (Node's floor)", is the two transports with nothing behind them, loaded the same
// way: bench/bare-server.ts (Fastify answering a fixed JSON) over HTTP and bench/bare-grpc-server.mjs
// (node:http2 answering a fixed unary gRPC answer) over gRPC. Its ratio is what Node's HTTP/2 and a
// gRPC client's calls cost against HTTP/1.1 before Vexil does anything.
//
// The row "fixed gRPC answer in Vexil's process" is the floor where Vexil pays it: the same bare HTTP/2
// server preloaded into Vexil's server process (bench/bare-grpc-server.mjs; it listens beside Vexil's
// own ports), its fixed answers against Vexil's HTTP boolean evaluation. It is what a gRPC call would
// cost in the application's process if Vexil did no work for it at all.
//
// With --slices N (N > 1), each round loads the two transports from one process over connections kept
// open, in N alternating slices of duration ÷ N seconds each, reading the server's CPU at each slice's
// edges: the machine's speed drifts over seconds (a bare server's CPU per request moved 45–88 µs
// within one run), and alternating slices let the drift fall on both transports alike.
//
// Options: --rate N (requests/s, 2000) --duration S (8) --repeat R (5) --connections C (50)
// --slices N (1) --scenarios bare,floor,boolean,variant,batch (all)

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../src/runtime/runtime-flags.js';
import { type GrpcLoadOptions, runAlternatingLoad, runGrpcLoad, runPacedHttpLoad } from './grpc-load.js';
import { exitOnHelp } from './help.js';
import { BENCH_CONTEXT, seedBenchmark } from './seed.js';
import {
  compileServer,
  cpuMicros,
  freePort,
  median,
  ROOT,
  startPortPrinter,
  stop,
  waitHealthy,
} from './server-process.js';

exitOnHelp(import.meta.url);
const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  const n = i >= 0 ? Number(argv[i + 1]) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
};
const rate = option('rate', 2000);
const duration = option('duration', 8);
const repeat = option('repeat', 5);
const connections = option('connections', 50);
const slices = Math.round(option('slices', 1));
const scenarioIndex = argv.indexOf('--scenarios');
const wanted = new Set(
  scenarioIndex >= 0 ? String(argv[scenarioIndex + 1]).split(',') : ['bare', 'floor', 'boolean', 'variant', 'batch'],
);

const pins =
  availableParallelism() >= 2 && spawnSync('taskset', ['-V']).error === undefined
    ? { server: '0', load: '1' }
    : undefined;
if (pins) spawnSync('taskset', ['-a', '-p', '-c', pins.load, String(process.pid)], { stdio: 'ignore' });

const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'vexil-transport-'));
const httpPort = await freePort();
const grpcPort = await freePort();
/** The fixed-answer HTTP/2 server preloaded into Vexil's process (the "floor" scenario). */
const inProcessBarePort = wanted.has('floor') ? await freePort() : undefined;
const baseUrl = `http://127.0.0.1:${httpPort}`;
let server: ChildProcess | undefined;
let bareHttp: ChildProcess | undefined;
let bareGrpc: ChildProcess | undefined;

async function start(main: string): Promise<ChildProcess> {
  const preload = inProcessBarePort !== undefined ? ['--import', join(ROOT, 'bench/bare-grpc-server.mjs')] : [];
  const args = [...NODE_FLAGS, ...preload, main, 'serve'];
  const [cmd, cmdArgs] = pins ? ['taskset', ['-c', pins.server, process.execPath, ...args]] : [process.execPath, args];
  let output = '';
  const child = spawn(cmd, cmdArgs as string[], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...NODE_ENVIRONMENT,
      VEXIL_DB_URL: `file:${join(dir, 'bench.db')}`,
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: String(httpPort),
      VEXIL_SERVER_GRPC_PORT: String(grpcPort),
      VEXIL_LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...(preload.length > 0 ? { VEXIL_BENCH_BARE_GRPC_PORT: String(inProcessBarePort) } : {}),
    },
  });
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  await waitHealthy(baseUrl, child, () => output);
  return child;
}

try {
  const main = compileServer(join(dir, 'dist'));
  server = await start(main);
  const seeded = await seedBenchmark(baseUrl, 50);
  await stop(server);
  server = await start(main);

  const entityId = 'user-1234';
  const flagsInBatch = [...seeded.booleanFlags.slice(0, 25), ...seeded.variantFlags.slice(0, 25)];
  const batchKeys = Array.from({ length: 50 }, (_, i) => flagsInBatch[i % flagsInBatch.length] as string);
  const http = (flagKey: string) => ({ namespaceKey: 'default', flagKey, entityId, context: BENCH_CONTEXT });
  const grpc = (flagKey: string) => ({
    namespace_key: 'default',
    flag_key: flagKey,
    entity_id: entityId,
    context: BENCH_CONTEXT,
  });
  interface Scenario {
    name: string;
    path: string;
    body: unknown;
    method: 'Boolean' | 'Variant' | 'Batch';
    request: unknown;
    /** Where each transport's load goes, and whose CPU is read. */
    http: { target: string; pid: () => number | undefined };
    grpc: { target: string; pid: () => number | undefined };
  }
  const vexil = {
    http: { target: `127.0.0.1:${httpPort}`, pid: () => server?.pid },
    grpc: { target: `127.0.0.1:${grpcPort}`, pid: () => server?.pid },
  };
  const booleanRequest = {
    path: '/evaluate/v1/boolean',
    body: http(seeded.booleanFlags[0] as string),
    method: 'Boolean' as const,
    request: grpc(seeded.booleanFlags[0] as string),
  };
  const scenarios: Scenario[] = [];
  if (wanted.has('bare')) {
    const h = await startPortPrinter('bench/bare-server.ts', pins?.server);
    const g = await startPortPrinter('bench/bare-grpc-server.mjs', pins?.server);
    bareHttp = h.child;
    bareGrpc = g.child;
    scenarios.push({
      name: "bare (Node's floor)",
      ...booleanRequest,
      http: { target: `127.0.0.1:${h.port}`, pid: () => bareHttp?.pid },
      grpc: { target: `127.0.0.1:${g.port}`, pid: () => bareGrpc?.pid },
    });
  }
  if (inProcessBarePort !== undefined) {
    scenarios.push({
      name: "fixed gRPC answer in Vexil's process",
      ...booleanRequest,
      http: vexil.http,
      grpc: { target: `127.0.0.1:${inProcessBarePort}`, pid: () => server?.pid },
    });
  }
  if (wanted.has('boolean')) scenarios.push({ name: 'single boolean', ...booleanRequest, ...vexil });
  if (wanted.has('variant')) {
    scenarios.push({
      name: 'single variant',
      path: '/evaluate/v1/variant',
      body: http(seeded.variantFlags[0] as string),
      method: 'Variant',
      request: grpc(seeded.variantFlags[0] as string),
      ...vexil,
    });
  }
  if (wanted.has('batch')) {
    scenarios.push({
      name: 'batch of 50',
      path: '/evaluate/v1/batch',
      body: { requests: batchKeys.map(http) },
      method: 'Batch',
      request: { requests: batchKeys.map(grpc) },
      ...vexil,
    });
  }

  // What the server spends idle (timers, the revision poll) is paid whatever the transport; at a
  // few hundred requests/s it would be tens of µs per request, so it is measured before each load and
  // taken off.
  const idleMicrosPerSecond = async (pid: number | undefined): Promise<number> => {
    const before = cpuMicros(pid) ?? 0;
    await new Promise((r) => setTimeout(r, 3_000));
    return ((cpuMicros(pid) ?? 0) - before) / 3;
  };
  const perRequest = async (pid: number | undefined, load: () => Promise<{ total: number; failures: number }>) => {
    const idle = await idleMicrosPerSecond(pid);
    const started = performance.now();
    const before = cpuMicros(pid) ?? 0;
    const result = await load();
    const after = cpuMicros(pid) ?? 0;
    const seconds = (performance.now() - started) / 1000;
    if (result.failures > 0) throw new Error(`${result.failures} failed requests`);
    return { cpu: (after - before - idle * seconds) / result.total, rps: result.total / duration };
  };
  /** Each transport's load of `s` for `seconds`: the same options in both modes. */
  const httpLoad = (s: Scenario, seconds: number): GrpcLoadOptions & { http: { path: string } } => ({
    target: s.http.target,
    http: { path: s.path },
    method: s.method,
    request: s.body,
    connections,
    durationSeconds: seconds,
    cpus: pins?.load,
    rate,
  });
  const grpcLoad = (s: Scenario, seconds: number): GrpcLoadOptions => ({
    target: s.grpc.target,
    method: s.method,
    request: s.request,
    connections,
    durationSeconds: seconds,
    cpus: pins?.load,
    rate,
  });
  const overHttp = (s: Scenario, seconds: number) =>
    perRequest(s.http.pid(), () => runPacedHttpLoad(httpLoad(s, seconds)));
  const overGrpc = (s: Scenario, seconds: number) => perRequest(s.grpc.pid(), () => runGrpcLoad(grpcLoad(s, seconds)));

  /** One round of `s` as alternating slices over connections kept open (--slices). */
  const alternating = async (s: Scenario) => {
    const pids = [s.http.pid(), s.grpc.pid()] as const;
    const idle = [await idleMicrosPerSecond(pids[0])];
    idle.push(pids[1] === pids[0] ? (idle[0] as number) : await idleMicrosPerSecond(pids[1]));
    const loads: [GrpcLoadOptions, GrpcLoadOptions] = [httpLoad(s, duration / slices), grpcLoad(s, duration / slices)];
    const micros: [number, number] = [0, 0];
    let edge = { cpu: 0, at: 0 };
    const done = await runAlternatingLoad(loads, slices, duration / slices, pins?.load, (load, start) => {
      const now = { cpu: cpuMicros(pids[load]) ?? 0, at: performance.now() };
      if (start) edge = now;
      else micros[load] += now.cpu - edge.cpu - ((idle[load] as number) * (now.at - edge.at)) / 1000;
    });
    if (done.some((slice) => slice.failures > 0)) throw new Error('failed requests');
    const total = (load: 0 | 1) => done.filter((slice) => slice.load === load).reduce((n, x) => n + x.total, 0);
    const one = (load: 0 | 1) => ({ cpu: micros[load] / total(load), rps: total(load) / duration });
    return [one(0), one(1)] as const;
  };

  console.log(
    `gRPC against HTTP at ${rate} requests/s each: ${repeat} rounds of ${duration} s${slices > 1 ? ` in ${slices} alternating slices` : ''}, ${connections} connections, server on CPU ${pins?.server ?? '-'}`,
  );
  const samples = new Map(
    scenarios.map((s) => [s.name, [] as { http: number; grpc: number; rps: [number, number] }[]]),
  );
  for (let round = 0; round < repeat; round++) {
    for (const s of scenarios) {
      if (round === 0) {
        await overHttp(s, 2);
        await overGrpc(s, 2);
      }
      let h: { cpu: number; rps: number };
      let g: { cpu: number; rps: number };
      if (slices > 1) [h, g] = await alternating(s);
      else {
        const httpFirst = round % 2 === 0;
        const a = await (httpFirst ? overHttp(s, duration) : overGrpc(s, duration));
        const b = await (httpFirst ? overGrpc(s, duration) : overHttp(s, duration));
        [h, g] = httpFirst ? [a, b] : [b, a];
      }
      samples.get(s.name)?.push({ http: h.cpu, grpc: g.cpu, rps: [h.rps, g.rps] });
      console.log(
        `  round ${round + 1} ${s.name}: HTTP ${h.cpu.toFixed(1)} µs, gRPC ${g.cpu.toFixed(1)} µs (${(g.cpu / h.cpu).toFixed(2)}×)`,
      );
    }
  }
  const f = (n: number, d = 1) => n.toFixed(d);
  const spread = (xs: number[], d = 1) => `${f(median(xs), d)} (${f(Math.min(...xs), d)}–${f(Math.max(...xs), d)})`;
  console.log('');
  console.log('| scenario | HTTP CPU µs/request | gRPC CPU µs/request | gRPC ÷ HTTP | requests/s HTTP / gRPC |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, list] of samples) {
    console.log(
      `| ${name} | ${spread(list.map((x) => x.http))} | ${spread(list.map((x) => x.grpc))} | ${spread(
        list.map((x) => x.grpc / x.http),
        2,
      )} | ${f(median(list.map((x) => x.rps[0])), 0)} / ${f(median(list.map((x) => x.rps[1])), 0)} |`,
    );
  }
} finally {
  await stop(server);
  await stop(bareHttp);
  await stop(bareGrpc);
  rmSync(dir, { recursive: true, force: true });
}
