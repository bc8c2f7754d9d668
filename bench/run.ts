// `npm run bench`: load benchmark of the evaluation APIs against a ceiling.
//
// Starts the real program (`src/main.ts serve`) on SQLite, seeds N flags through the management API
// (bench/seed.ts), restarts it, makes one management read (as a deployed server has served its
// dashboard: ADR 0009), then measures, one scenario after the other with the same load: a bare Fastify
// server answering a fixed JSON to the same POST (the ceiling), single boolean, single variant, a
// batch of 50, and OFREP bulk. Prints requests/s, p50, p99, evaluations/s, each scenario's ratio to
// the bare server, and the server's resident memory.
//
// The ratio to the bare server is measured two ways in each round: back to back (each server alone
// on its core, one after the other), and sharing a core (both servers loaded at the same time on the
// same core, so each gets half of it: their requests/s then stand as their CPU costs per request,
// and the machine's speed, which drifts by tens of percent within seconds on a shared VM, cancels
// out; the rounds take turns at which load generator starts first). The second is the steadier
// figure; both are printed.
//
// Where `taskset` exists and there are two or more cores, the servers run on CPU 0 and the load
// generator on CPU 1, so they do not compete. wrk (Debian package `wrk`) is used when installed,
// else autocannon. The server runs as it does in production: compiled by tsc and started with the
// program's Node options (src/runtime/runtime-flags.ts). `--runtime tsx` runs the sources through tsx instead:
// quicker to start, but its loader adds ~50 MiB of memory. The database lives in /dev/shm when there
// is one, so seeding 10,000 flags is not bound by fsync.
//
// Options: --flags N (50) --duration S (10) --connections C (50) --warmup S (2)
//          --tool auto|wrk|autocannon (auto) --scenarios bare,boolean,variant,batch,ofrep,grpc-boolean,grpc-batch (all;
//          the gRPC ones load flipt.evaluation.EvaluationService with bench/grpc-load.ts)
//          --runtime compiled|tsx (compiled) --repeat R (1: measure each target R times, alternating,
//          and keep its best run — on a shared machine the best run is the least disturbed one; the
//          ratio to bare is also given as the median of the rounds' back-to-back ratios)
//          --auth (authentication required: every request, the bare server's too, carries a bearer token:
//          the bootstrap token, unlimited)
//          --roles (as --auth, but the measured requests carry a token made with roles [{role: client,
//          namespace: default}], so the role path is measured: compare with an --auth run, issue 41)
//          --same-processes (keep one Vexil and one bare server for every round; by default each round
//          after the first starts both afresh: one process can run 10–19 % faster or slower than another
//          of the same build for its whole life, ADR 0011, so rounds of one pair would all share its luck)
//          --compare REF (an A/B of the working tree against another build sharing a core: bench/compare.ts)
//          --cpu-prof DIR (write V8 CPU profiles of the measured servers, Vexil's and the bare one, into DIR,
//          one per server start)

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../src/runtime/runtime-flags.js';
import { runGrpcLoad } from './grpc-load.js';
import { exitOnHelp } from './help.js';
import { type LoadResult, type LoadTool, runLoad, wrkAvailable } from './load.js';
import { optionReaders } from './options.js';
import { BENCH_CONTEXT, roleLimitedToken, seedBenchmark } from './seed.js';
import { compileServer, cpuMicros, freePort, median, ROOT, rssMiB, stop, waitHealthy } from './server-process.js';

exitOnHelp(import.meta.url);

const SCENARIOS = ['bare', 'boolean', 'variant', 'batch', 'ofrep', 'grpc-boolean', 'grpc-batch'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** The same evaluations as `boolean` and `batch`, over gRPC (flipt.evaluation.EvaluationService). */
type GrpcScenario = Extract<Scenario, `grpc-${string}`>;
const isGrpc = (s: Scenario): s is GrpcScenario => s.startsWith('grpc-');

interface Options {
  runtime: 'compiled' | 'tsx';
  flags: number;
  duration: number;
  connections: number;
  warmup: number;
  repeat: number;
  tool: LoadTool;
  scenarios: Scenario[];
  cpuProfileDir: string | undefined;
  /** `unlimited`: --auth; `roles`: --roles (the measured requests carry a role-limited token). */
  auth: 'none' | 'unlimited' | 'roles';
  /** Every round after the first restarts both servers (unless --same-processes). */
  freshProcesses: boolean;
}

/** The bootstrap token of the server under --auth. */
const BENCH_TOKEN = 'vexil-bench-token';

function parseOptions(argv: string[]): Options {
  const { get, int } = optionReaders(argv);
  const toolOption = get('tool') ?? 'auto';
  if (!['auto', 'wrk', 'autocannon'].includes(toolOption)) throw new Error(`--tool must be auto, wrk or autocannon`);
  const tool: LoadTool = toolOption === 'auto' ? (wrkAvailable() ? 'wrk' : 'autocannon') : (toolOption as LoadTool);
  if (tool === 'wrk' && !wrkAvailable())
    throw new Error('wrk is not installed (apt-get install wrk), use --tool autocannon');
  const scenarios = (get('scenarios') ?? SCENARIOS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as Scenario[];
  for (const s of scenarios)
    if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario "${s}" (${SCENARIOS.join(', ')})`);
  const runtime = get('runtime') ?? 'compiled';
  if (runtime !== 'compiled' && runtime !== 'tsx') throw new Error('--runtime must be compiled or tsx');
  return {
    runtime,
    flags: int('flags', 50, 2),
    duration: int('duration', 10, 1),
    connections: int('connections', 50, 1),
    warmup: int('warmup', 2, 0),
    repeat: int('repeat', 1, 1),
    tool,
    scenarios,
    cpuProfileDir: get('cpu-prof'),
    auth: argv.includes('--roles') ? 'roles' : argv.includes('--auth') ? 'unlimited' : 'none',
    freshProcesses: !argv.includes('--same-processes'),
  };
}

/** CPU 0 for the servers, CPU 1 for the load generator, when that can be arranged. */
function pinning(): { server: string; load: string } | undefined {
  if (availableParallelism() < 2) return undefined;
  if (spawnSync('taskset', ['-V'], { encoding: 'utf8' }).error !== undefined) return undefined;
  return { server: '0', load: '1' };
}

function spawnPinned(cpus: string | undefined, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [cmd, cmdArgs] = cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
  return spawn(cmd, cmdArgs, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

interface Measured {
  result: LoadResult;
  /** Server CPU time (user + system) per request, in µs: steadier than requests/s on a busy machine. */
  cpuPerRequest: number | undefined;
}

interface Row {
  scenario: string;
  evaluationsPerRequest: number;
  measured: Measured;
  ceiling: Measured | undefined;
  /** Each round's requests/s over the bare server's in the same round (measured back to back). */
  roundRatios: number[];
  /** Each round's requests/s over the bare server's, both loaded at once while sharing one core. */
  sharedRatios: number[];
}

function format(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const pins = pinning();
  // The load generator (autocannon runs in this process) gets its own CPU.
  if (pins) spawnSync('taskset', ['-a', '-p', '-c', pins.load, String(process.pid)], { stdio: 'ignore' });

  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'vexil-bench-'));
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  let server: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  let bareUrl: string | undefined;
  let serverOutput = '';
  try {
    let entry: string[];
    if (options.runtime === 'compiled') {
      const started = performance.now();
      entry = [compileServer(join(dir, 'dist'))];
      console.log(`compiled the server with tsc (${format((performance.now() - started) / 1000, 1)} s)`);
    } else {
      entry = ['--import', 'tsx', 'src/main.ts'];
    }
    const profiling = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
    const startServer = async (): Promise<ChildProcess> => {
      const child = spawnPinned(pins?.server, process.execPath, [...NODE_FLAGS, ...profiling, ...entry, 'serve'], {
        ...process.env,
        ...NODE_ENVIRONMENT,
        VEXIL_DB_URL: `file:${join(dir, 'bench.db')}`,
        VEXIL_SERVER_HOST: '127.0.0.1',
        VEXIL_SERVER_HTTP_PORT: String(httpPort),
        VEXIL_SERVER_GRPC_PORT: String(grpcPort),
        VEXIL_LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        ...(options.auth !== 'none'
          ? {
              VEXIL_AUTHENTICATION_REQUIRED: 'true',
              VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
              VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BENCH_TOKEN,
            }
          : {}),
      });
      child.stdout?.on('data', (d) => {
        serverOutput += d;
      });
      child.stderr?.on('data', (d) => {
        serverOutput += d;
      });
      await waitHealthy(baseUrl, child, () => serverOutput);
      return child;
    };
    server = await startServer();
    // Seeding and the management read use the bootstrap token; the measured requests use `authHeaders`.
    const adminHeaders: Record<string, string> =
      options.auth !== 'none' ? { authorization: `Bearer ${BENCH_TOKEN}` } : {};
    let authHeaders = adminHeaders;
    const authLabel = { none: '', unlimited: ', authentication required', roles: ', a token with role client' }[
      options.auth
    ];

    console.log(
      `vexil bench: ${options.flags} flags, ${options.connections} connections, ${options.duration} s per scenario ` +
        `(server ${options.runtime === 'compiled' ? 'compiled by tsc' : 'run by tsx'}${authLabel}) ` +
        `(+${options.warmup} s warm-up${options.repeat > 1 ? `, best of ${options.repeat}${options.freshProcesses ? ', both servers started afresh each round' : ''}` : ''}), load by ${options.tool}, ` +
        (pins
          ? `server on CPU ${pins.server}, load on CPU ${pins.load}`
          : 'no CPU pinning (taskset or a second core missing)'),
    );
    const seeded = await seedBenchmark(baseUrl, options.flags, 'default', adminHeaders);
    if (options.auth === 'roles') authHeaders = await roleLimitedToken(baseUrl, adminHeaders);
    console.log(
      `seeded ${seeded.booleanFlags.length} boolean + ${seeded.variantFlags.length} variant flags ` +
        `(${seeded.requests} API calls, ${format(seeded.millis / 1000, 1)} s); server RSS ${format(rssMiB(server.pid) ?? 0, 1)} MiB`,
    );
    // Measure a server that starts with the flags, as one would in production: the seeding writes
    // leave their own garbage and heap growth behind.
    await stop(server);
    /** Starts the seeded server as it is measured: its snapshot loaded by a first evaluation, and a management read answered. */
    const startMeasuredServer = async (): Promise<{ child: ChildProcess; rssStarted: number }> => {
      const child = await startServer();
      const rssStarted = rssMiB(child.pid) ?? 0;
      const first = await fetch(`${baseUrl}/evaluate/v1/boolean`, {
        method: 'POST',
        headers: authHeaders,
        body: JSON.stringify({ flagKey: seeded.booleanFlags[0], entityId: 'warm', context: BENCH_CONTEXT }),
      });
      if (first.status !== 200) throw new Error(`first evaluation answered ${first.status} ${await first.text()}`);
      // A running deployment has served its dashboard: measure a server that has answered a management
      // request too (one once made every later request pay for async hooks, ADR 0009).
      const managementRead = await fetch(`${baseUrl}/api/v1/namespaces/default/flags?limit=5`, {
        headers: adminHeaders,
      });
      if (managementRead.status !== 200) throw new Error(`listing flags answered ${managementRead.status}`);
      return { child, rssStarted };
    };
    const restarted = await startMeasuredServer();
    server = restarted.child;
    console.log(
      `restarted the server: RSS ${format(restarted.rssStarted, 1)} MiB, ${format(rssMiB(server.pid) ?? 0, 1)} MiB once the snapshot is loaded`,
    );

    const flagsInBatch = [...seeded.booleanFlags.slice(0, 25), ...seeded.variantFlags.slice(0, 25)];
    const batchKeys = Array.from({ length: 50 }, (_, i) => flagsInBatch[i % flagsInBatch.length] as string);
    const bulkKeys = options.flags > 50 ? batchKeys : undefined;
    const entityId = 'user-1234';
    const bodies: Record<
      Exclude<Scenario, 'bare' | GrpcScenario>,
      { path: string; body: unknown; evaluations: number }
    > = {
      boolean: {
        path: '/evaluate/v1/boolean',
        body: { namespaceKey: 'default', flagKey: seeded.booleanFlags[0], entityId, context: BENCH_CONTEXT },
        evaluations: 1,
      },
      variant: {
        path: '/evaluate/v1/variant',
        body: { namespaceKey: 'default', flagKey: seeded.variantFlags[0], entityId, context: BENCH_CONTEXT },
        evaluations: 1,
      },
      batch: {
        path: '/evaluate/v1/batch',
        body: {
          requests: batchKeys.map((flagKey) => ({
            namespaceKey: 'default',
            flagKey,
            entityId,
            context: BENCH_CONTEXT,
          })),
        },
        evaluations: 50,
      },
      ofrep: {
        path: '/ofrep/v1/evaluate/flags',
        // Every flag of the namespace (≤ 50), or 50 listed ones (context.flags) in a bigger namespace.
        body: { context: { targetingKey: entityId, ...BENCH_CONTEXT, ...(bulkKeys ? { flags: bulkKeys } : {}) } },
        evaluations: Math.min(options.flags, 50),
      },
    };

    // The ceiling: a bare Fastify server, hit with each scenario's own POST (same path and body), on
    // the same Node options and environment as Vexil (started without them, it once came out slower than Vexil).
    const startBare = async (): Promise<void> => {
      const child = spawnPinned(
        pins?.server,
        process.execPath,
        [...NODE_FLAGS, ...profiling, '--import', 'tsx', 'bench/bare-server.ts'],
        { ...process.env, ...NODE_ENVIRONMENT },
      );
      bare = child;
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout?.once('data', (d) => resolve(Number(String(d).trim())));
        child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
      });
      bareUrl = `http://127.0.0.1:${port}`;
    };
    if (options.scenarios.includes('bare')) await startBare();

    // The largest resident memory of a measured server once it has run its rounds.
    let rssAfterRounds = 0;
    const noteRss = () => {
      rssAfterRounds = Math.max(rssAfterRounds, rssMiB(server?.pid) ?? 0);
    };
    /** A fresh pair of processes for the next round (see --same-processes). */
    const restartBoth = async (): Promise<void> => {
      noteRss();
      await stop(server);
      server = (await startMeasuredServer()).child;
      if (bare !== undefined) {
        await stop(bare);
        await startBare();
      }
    };

    const measure = async (pid: number | undefined, url: string, body: string, warm: boolean): Promise<Measured> => {
      const load = { url, body, headers: authHeaders, connections: options.connections, cpus: pins?.load };
      if (warm && options.warmup > 0) await runLoad(options.tool, { ...load, durationSeconds: options.warmup });
      const before = cpuMicros(pid);
      const result = await runLoad(options.tool, { ...load, durationSeconds: options.duration });
      const after = cpuMicros(pid);
      const cpuPerRequest =
        before !== undefined && after !== undefined && result.total > 0 ? (after - before) / result.total : undefined;
      return { result, cpuPerRequest };
    };

    // Both servers are pinned to the same core: loaded at the same time (a load generator each), they
    // share it evenly, so the ratio of their requests/s is the ratio of their CPU cost per request,
    // and the machine's drift hits both alike.
    // The load generator started first may get a head start: the rounds take turns.
    const sharedCoreRatio = async (
      bareTarget: string,
      oursTarget: string,
      body: string,
      oursFirst: boolean,
    ): Promise<number> => {
      const load = {
        body,
        headers: authHeaders,
        connections: options.connections,
        cpus: pins?.load,
        durationSeconds: options.duration,
      };
      const start = (url: string) => runLoad(options.tool, { ...load, url });
      const [bareShare, oursShare] = oursFirst
        ? await Promise.all([start(oursTarget), start(bareTarget)]).then(([ours, bare]) => [bare, ours] as const)
        : await Promise.all([start(bareTarget), start(oursTarget)]);
      // The latency tail under the same contention (issue 39: a target is p99 within a factor of bare's).
      console.log(
        `    sharing a core: p99 ${format(oursShare.p99Ms, 2)} ms, bare ${format(bareShare.p99Ms, 2)} ms ` +
          `(${format(oursShare.p99Ms / bareShare.p99Ms, 2)}×); p50 ${format(oursShare.p50Ms, 2)} ms, bare ${format(bareShare.p50Ms, 2)} ms`,
      );
      return oursShare.requestsPerSecond / bareShare.requestsPerSecond;
    };

    const rows: Row[] = [];
    for (const scenario of options.scenarios) {
      if (scenario === 'bare' || isGrpc(scenario)) continue;
      const { path, body, evaluations } = bodies[scenario];
      const text = JSON.stringify(body);
      const check = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders },
        body: text,
      });
      if (check.status !== 200) throw new Error(`${scenario}: ${path} answered ${check.status} ${await check.text()}`);
      const label =
        scenario === 'batch'
          ? 'batch of 50'
          : scenario === 'ofrep'
            ? `OFREP bulk of ${evaluations}`
            : `single ${scenario}`;
      let ceiling: Measured | undefined;
      let measured: Measured | undefined;
      const better = (a: Measured | undefined, b: Measured) =>
        a === undefined || b.result.requestsPerSecond > a.result.requestsPerSecond ? b : a;
      // On a shared VM throughput drifts by tens of percent within seconds: each round measures the
      // bare server and Vexil back to back, and the ratio of the two is kept per round.
      const roundRatios: number[] = [];
      const sharedRatios: number[] = [];
      for (let round = 0; round < options.repeat; round++) {
        const fresh = round > 0 && options.freshProcesses;
        if (fresh) await restartBoth();
        const warm = round === 0 || fresh;
        const bareRound = bareUrl ? await measure(bare?.pid, `${bareUrl}${path}`, text, warm) : undefined;
        const ours = await measure(server?.pid, `${baseUrl}${path}`, text, warm);
        if (bareRound) {
          ceiling = better(ceiling, bareRound);
          roundRatios.push(ours.result.requestsPerSecond / bareRound.result.requestsPerSecond);
        }
        measured = better(measured, ours);
        if (bareUrl) {
          sharedRatios.push(await sharedCoreRatio(`${bareUrl}${path}`, `${baseUrl}${path}`, text, round % 2 === 1));
        }
      }
      if (measured === undefined) throw new Error('no measurement');
      rows.push({ scenario: label, evaluationsPerRequest: evaluations, measured, ceiling, roundRatios, sharedRatios });
      const r = measured.result;
      console.log(
        `  ${label.padEnd(18)} ${format(r.requestsPerSecond).padStart(8)} req/s  p50 ${format(r.p50Ms, 2)} ms  p99 ${format(r.p99Ms, 2)} ms` +
          (ceiling
            ? `   bare ${format(ceiling.result.requestsPerSecond)} req/s  p99 ${format(ceiling.result.p99Ms, 2)} ms`
            : '') +
          (r.failures || ceiling?.result.failures
            ? `  (failed: ${r.failures} / bare ${ceiling?.result.failures ?? 0})`
            : ''),
      );
    }

    // gRPC: the same requests as single boolean and batch, through flipt.evaluation.EvaluationService.
    // No bare gRPC server to compare with: the server's CPU per request, beside HTTP's, is the measure.
    const grpcRequest = (http: { namespaceKey: string; flagKey: string; entityId: string; context: object }) => ({
      namespace_key: http.namespaceKey,
      flag_key: http.flagKey,
      entity_id: http.entityId,
      context: http.context,
    });
    const grpcCalls: Record<
      GrpcScenario,
      { method: 'Boolean' | 'Batch'; request: unknown; evaluations: number; label: string }
    > = {
      'grpc-boolean': {
        method: 'Boolean',
        request: grpcRequest(bodies.boolean.body as Parameters<typeof grpcRequest>[0]),
        evaluations: 1,
        label: 'gRPC single boolean',
      },
      'grpc-batch': {
        method: 'Batch',
        request: {
          requests: (bodies.batch.body as { requests: Parameters<typeof grpcRequest>[0][] }).requests.map(grpcRequest),
        },
        evaluations: bodies.batch.evaluations,
        label: `gRPC batch of ${bodies.batch.evaluations}`,
      },
    };
    const grpcMetadata = authHeaders.authorization ? { authorization: authHeaders.authorization } : undefined;
    for (const scenario of options.scenarios) {
      if (!isGrpc(scenario)) continue;
      const { method, request, evaluations, label } = grpcCalls[scenario];
      const load = {
        target: `127.0.0.1:${grpcPort}`,
        method,
        request,
        metadata: grpcMetadata,
        connections: options.connections,
        cpus: pins?.load,
      };
      let measured: Measured | undefined;
      for (let round = 0; round < options.repeat; round++) {
        if (round > 0 && options.freshProcesses) await restartBoth();
        if (options.warmup > 0) await runGrpcLoad({ ...load, durationSeconds: options.warmup });
        const before = cpuMicros(server?.pid);
        const result = await runGrpcLoad({ ...load, durationSeconds: options.duration });
        const after = cpuMicros(server?.pid);
        if (result.failures > 0) throw new Error(`${label}: ${result.failures} calls failed`);
        const cpuPerRequest =
          before !== undefined && after !== undefined && result.total > 0 ? (after - before) / result.total : undefined;
        if (measured === undefined || result.requestsPerSecond > measured.result.requestsPerSecond) {
          measured = { result, cpuPerRequest };
        }
      }
      if (measured === undefined) throw new Error('no measurement');
      rows.push({
        scenario: label,
        evaluationsPerRequest: evaluations,
        measured,
        ceiling: undefined,
        roundRatios: [],
        sharedRatios: [],
      });
      const r = measured.result;
      console.log(
        `  ${label.padEnd(18)} ${format(r.requestsPerSecond).padStart(8)} req/s  p50 ${format(r.p50Ms, 2)} ms  p99 ${format(r.p99Ms, 2)} ms`,
      );
    }

    noteRss();
    console.log('');
    console.log(
      '| scenario | requests/s | p50 ms | p99 ms (bare) | evaluations/s | bare Fastify req/s (same POST) | vs bare (best / median of rounds) | vs bare sharing a core (median) | server CPU µs/req (bare) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const { scenario, evaluationsPerRequest, measured, ceiling, roundRatios, sharedRatios } of rows) {
      const r = measured.result;
      const ratio = ceiling
        ? `${format((100 * r.requestsPerSecond) / ceiling.result.requestsPerSecond)} % / ${format(100 * median(roundRatios))} %`
        : '—';
      const shared =
        sharedRatios.length > 0
          ? `${format(100 * median(sharedRatios))} % (${sharedRatios.map((x) => format(100 * x)).join(', ')})`
          : '—';
      const cpu =
        measured.cpuPerRequest !== undefined
          ? `${format(measured.cpuPerRequest)}${ceiling?.cpuPerRequest !== undefined ? ` (${format(ceiling.cpuPerRequest)})` : ''}`
          : '—';
      console.log(
        `| ${scenario} | ${format(r.requestsPerSecond)} | ${format(r.p50Ms, 2)} | ${format(r.p99Ms, 2)}${ceiling ? ` (${format(ceiling.result.p99Ms, 2)})` : ''} | ` +
          `${format(r.requestsPerSecond * evaluationsPerRequest)} | ${ceiling ? format(ceiling.result.requestsPerSecond) : '—'} | ${ratio} | ${shared} | ${cpu} |`,
      );
    }
    console.log('');
    console.log(
      `server resident memory after the run: ${format(rssAfterRounds, 1)} MiB (${options.flags} flags` +
        `${options.freshProcesses && options.repeat > 1 ? '; the largest of the processes measured' : ''})`,
    );
  } finally {
    await stop(bare);
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

// `--compare <ref>`: an A/B of the working tree against another build (bench/compare.ts).
const compare = process.argv.includes('--compare') || process.argv.some((a) => a.startsWith('--compare='));
(compare ? import('./compare.js').then((m) => m.runCompare(process.argv.slice(2))) : main()).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
