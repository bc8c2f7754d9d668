// `npm run bench -- --compare <git ref>`: an A/B of the working tree against another build, the guard
// to run before landing any change to the request path (docs/performance.md).
//
// The ref is written out with `git archive` into a temporary directory (no worktree is registered in
// the repository), its proto types generated, and both trees compiled with tsc as production runs
// them, each started with its own Node options (its src/runtime/runtime-flags.ts). The ref's tree
// gets the working tree's node_modules through a symlink; the directory is removed at the end, also
// after an error or Ctrl-C. Each build gets its own SQLite database, seeded alike (bench/seed.ts).
//
// Every round starts both servers afresh (one process can run 10–19 % faster or slower than another
// of the same build for its whole life: ADR 0011), warms them, then loads each scenario on both at
// once, both servers pinned to the same core and each loaded by its own generator on the other core.
// Each server's CPU time per request is read from /proc; the cost ratio is the ref's CPU µs per request
// over this build's (above 1: this build is cheaper). Sharing one core, the machine's drift and the
// other load on it hit both builds alike, so the ratio holds on a busy machine where absolute
// numbers do not. The rounds take turns at which generator starts first. Printed per scenario: the
// median ratio, its spread (lowest–highest round) and every round, each build's CPU µs per request and
// p99 (medians of the rounds).
//
// Options: --compare REF (required) --repeat R (rounds, 5) --duration S (5) --warmup S (2)
//          --connections C (50) --flags N (50) --auth
//          --scenarios boolean,variant,batch,ofrep,grpc-boolean,grpc-variant,grpc-batch (the HTTP four)
//          --rate N (gRPC scenarios only: calls per second per build, spread over the connections;
//          0 = as fast as the generator goes, the default)
//          --cpu-prof DIR (V8 CPU profiles of both builds' servers, in DIR/ref and DIR/this, one per start)

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runGrpcLoad } from './grpc-load.js';
import { type LoadResult, runLoad, wrkAvailable } from './load.js';
import { optionReaders } from './options.js';
import { BENCH_CONTEXT, type SeedResult, seedBenchmark } from './seed.js';
import { compileServer, cpuMicros, freePort, median, ROOT, stop, waitHealthy } from './server-process.js';

const HTTP_SCENARIOS = ['boolean', 'variant', 'batch', 'ofrep'] as const;
const GRPC_SCENARIOS = ['grpc-boolean', 'grpc-variant', 'grpc-batch'] as const;
type Scenario = (typeof HTTP_SCENARIOS)[number] | (typeof GRPC_SCENARIOS)[number];
const ALL: readonly Scenario[] = [...HTTP_SCENARIOS, ...GRPC_SCENARIOS];

const BENCH_TOKEN = 'vexil-bench-token';

interface Options {
  ref: string;
  repeat: number;
  duration: number;
  warmup: number;
  connections: number;
  flags: number;
  auth: boolean;
  scenarios: Scenario[];
  rate: number;
  cpuProfileDir: string | undefined;
}

function parseOptions(argv: string[]): Options {
  const { get, int } = optionReaders(argv);
  const ref = get('compare');
  if (!ref || ref.startsWith('--')) throw new Error('--compare needs a git ref (a commit, branch or tag)');
  const scenarios = (get('scenarios') ?? HTTP_SCENARIOS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as Scenario[];
  for (const s of scenarios) if (!ALL.includes(s)) throw new Error(`unknown scenario "${s}" (${ALL.join(', ')})`);
  return {
    ref,
    repeat: int('repeat', 5, 1),
    duration: int('duration', 5, 1),
    warmup: int('warmup', 2, 0),
    connections: int('connections', 50, 1),
    flags: int('flags', 50, 2),
    auth: argv.includes('--auth'),
    scenarios,
    rate: int('rate', 0, 0),
    cpuProfileDir: get('cpu-prof'),
  };
}

interface Build {
  label: string;
  /** Entry point (dist/main.js) and the Node options and environment of that build. */
  main: string;
  nodeFlags: readonly string[];
  nodeEnvironment: Readonly<Record<string, string>>;
  dbFile: string;
  httpPort: number;
  grpcPort: number;
  child?: ChildProcess;
  output: string;
}

function git(args: string[]): string {
  const result = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Writes `commit`'s files into `tree` and generates what the build needs that git does not hold. */
function checkout(commit: string, tree: string): void {
  mkdirSync(tree, { recursive: true });
  const archive = spawnSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${tree}"`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (archive.status !== 0) throw new Error(`git archive ${commit}: ${archive.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  // Older builds have no generated proto types (and no script to make them).
  const scripts = (JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8')) as { scripts?: Record<string, string> })
    .scripts;
  if (scripts?.['proto:types'] === undefined) return;
  const proto = spawnSync('npm', ['run', 'proto:types'], { cwd: tree, encoding: 'utf8' });
  if (proto.status !== 0) throw new Error(`proto:types in ${commit}: ${proto.stdout}${proto.stderr}`);
}

async function build(label: string, root: string, home: string): Promise<Build> {
  const main = compileServer(join(home, 'dist'), root);
  // Each build runs with its own Node options, as its program would. Builds before 52c5c66 kept them
  // at src/runtime-flags.ts: without this second place, such a ref ran on Node's defaults.
  const flagsModule = [join(home, 'dist', 'runtime', 'runtime-flags.js'), join(home, 'dist', 'runtime-flags.js')].find(
    (file) => existsSync(file),
  );
  const flags = flagsModule
    ? ((await import(pathToFileURL(flagsModule).href)) as {
        NODE_FLAGS?: readonly string[];
        NODE_ENVIRONMENT?: Readonly<Record<string, string>>;
      })
    : {};
  return {
    label,
    main,
    nodeFlags: flags.NODE_FLAGS ?? [],
    nodeEnvironment: flags.NODE_ENVIRONMENT ?? {},
    dbFile: join(home, 'bench.db'),
    httpPort: await freePort(),
    grpcPort: await freePort(),
    output: '',
  };
}

function pinning(): { server: string; load: string } | undefined {
  if (availableParallelism() < 2) return undefined;
  if (spawnSync('taskset', ['-V'], { encoding: 'utf8' }).error !== undefined) return undefined;
  return { server: '0', load: '1' };
}

/** Runs the comparison `argv` asks for (bench/run.ts hands over when it sees --compare). */
export async function runCompare(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (!wrkAvailable() && options.scenarios.some((s) => !s.startsWith('grpc-')))
    throw new Error('--compare needs wrk (apt-get install wrk): autocannon would load both builds from one process');
  const pins = pinning();
  if (pins) spawnSync('taskset', ['-a', '-p', '-c', pins.load, String(process.pid)], { stdio: 'ignore' });
  const commit = git(['rev-parse', '--verify', `${options.ref}^{commit}`]);
  const short = commit.slice(0, 7);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';

  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'vexil-compare-'));
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  const builds: Build[] = [];
  const stopAll = () => Promise.all(builds.map((b) => stop(b.child)));
  const onSignal = () => {
    for (const b of builds) b.child?.kill('SIGKILL');
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const started = performance.now();
    const refTree = join(dir, 'ref-tree');
    checkout(commit, refTree);
    const [ref, ours] = [
      await build(`ref ${short}`, refTree, join(dir, 'ref')),
      await build(
        `this${dirty ? ' (working tree, uncommitted changes)' : ` (${git(['rev-parse', '--short', 'HEAD'])})`}`,
        ROOT,
        join(dir, 'this'),
      ),
    ];
    builds.push(ref, ours);
    console.log(`built ${ref.label} and ${ours.label} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

    const authHeaders: Record<string, string> = options.auth ? { authorization: `Bearer ${BENCH_TOKEN}` } : {};
    const baseUrl = (b: Build) => `http://127.0.0.1:${b.httpPort}`;
    const start = async (b: Build): Promise<void> => {
      b.output = '';
      const profiling = options.cpuProfileDir
        ? ['--cpu-prof', '--cpu-prof-dir', join(options.cpuProfileDir, b.label.split(' ')[0] as string)]
        : [];
      const args = [...b.nodeFlags, ...profiling, b.main, 'serve'];
      const [cmd, cmdArgs] = pins
        ? ['taskset', ['-c', pins.server, process.execPath, ...args]]
        : [process.execPath, args];
      const child = spawn(cmd, cmdArgs as string[], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...b.nodeEnvironment,
          VEXIL_DB_URL: `file:${b.dbFile}`,
          VEXIL_SERVER_HOST: '127.0.0.1',
          VEXIL_SERVER_HTTP_PORT: String(b.httpPort),
          VEXIL_SERVER_GRPC_PORT: String(b.grpcPort),
          VEXIL_LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          ...(options.auth
            ? {
                VEXIL_AUTHENTICATION_REQUIRED: 'true',
                VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
                VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BENCH_TOKEN,
              }
            : {}),
        },
      });
      child.stdout?.on('data', (d) => {
        b.output += d;
      });
      child.stderr?.on('data', (d) => {
        b.output += d;
      });
      b.child = child;
      await waitHealthy(baseUrl(b), child, () => b.output);
    };

    // Seed both alike, then measure servers that start with their flags (as run.ts does).
    await Promise.all(builds.map(start));
    const seeds: SeedResult[] = await Promise.all(
      builds.map((b) => seedBenchmark(baseUrl(b), options.flags, 'default', authHeaders)),
    );
    const seeded = seeds[0] as SeedResult;
    await stopAll();

    const entityId = 'user-1234';
    const flagsInBatch = [...seeded.booleanFlags.slice(0, 25), ...seeded.variantFlags.slice(0, 25)];
    const batchKeys = Array.from({ length: 50 }, (_, i) => flagsInBatch[i % flagsInBatch.length] as string);
    const single = (flagKey: string) => ({ namespaceKey: 'default', flagKey, entityId, context: BENCH_CONTEXT });
    const http: Record<(typeof HTTP_SCENARIOS)[number], { path: string; body: string }> = {
      boolean: { path: '/evaluate/v1/boolean', body: JSON.stringify(single(seeded.booleanFlags[0] as string)) },
      variant: { path: '/evaluate/v1/variant', body: JSON.stringify(single(seeded.variantFlags[0] as string)) },
      batch: { path: '/evaluate/v1/batch', body: JSON.stringify({ requests: batchKeys.map(single) }) },
      ofrep: {
        path: '/ofrep/v1/evaluate/flags',
        body: JSON.stringify({
          context: { targetingKey: entityId, ...BENCH_CONTEXT, ...(options.flags > 50 ? { flags: batchKeys } : {}) },
        }),
      },
    };
    const grpcSingle = (flagKey: string) => ({
      namespace_key: 'default',
      flag_key: flagKey,
      entity_id: entityId,
      context: BENCH_CONTEXT,
    });
    const grpc: Record<(typeof GRPC_SCENARIOS)[number], { method: 'Boolean' | 'Variant' | 'Batch'; request: unknown }> =
      {
        'grpc-boolean': { method: 'Boolean', request: grpcSingle(seeded.booleanFlags[0] as string) },
        'grpc-variant': { method: 'Variant', request: grpcSingle(seeded.variantFlags[0] as string) },
        'grpc-batch': { method: 'Batch', request: { requests: batchKeys.map(grpcSingle) } },
      };

    const startMeasured = async (b: Build): Promise<void> => {
      await start(b);
      const first = await fetch(`${baseUrl(b)}/evaluate/v1/boolean`, {
        method: 'POST',
        headers: authHeaders,
        body: http.boolean.body,
      });
      if (first.status !== 200) throw new Error(`${b.label}: first evaluation answered ${first.status}`);
      // A deployed server has answered management requests (ADR 0009).
      const read = await fetch(`${baseUrl(b)}/api/v1/namespaces/default/flags?limit=5`, { headers: authHeaders });
      if (read.status !== 200) throw new Error(`${b.label}: listing flags answered ${read.status}`);
    };

    const load = (scenario: Scenario, b: Build, seconds: number): Promise<LoadResult> => {
      if (scenario.startsWith('grpc-')) {
        const { method, request } = grpc[scenario as (typeof GRPC_SCENARIOS)[number]];
        return runGrpcLoad({
          target: `127.0.0.1:${b.grpcPort}`,
          method,
          request,
          metadata: options.auth ? { authorization: `Bearer ${BENCH_TOKEN}` } : undefined,
          connections: options.connections,
          durationSeconds: seconds,
          cpus: pins?.load,
          rate: options.rate || undefined,
        });
      }
      const { path, body } = http[scenario as (typeof HTTP_SCENARIOS)[number]];
      return runLoad('wrk', {
        url: `${baseUrl(b)}${path}`,
        body,
        headers: authHeaders,
        connections: options.connections,
        durationSeconds: seconds,
        cpus: pins?.load,
      });
    };
    /** Loads both builds at once; the one started first alternates with `refFirst`. */
    const both = async (scenario: Scenario, seconds: number, refFirst: boolean) => {
      const before = builds.map((b) => cpuMicros(b.child?.pid));
      const [first, second] = refFirst ? [ref, ours] : [ours, ref];
      const [a, b] = await Promise.all([load(scenario, first, seconds), load(scenario, second, seconds)]);
      const results = refFirst ? [a, b] : [b, a];
      const after = builds.map((x) => cpuMicros(x.child?.pid));
      return builds.map((x, i) => {
        const result = results[i] as LoadResult;
        if (result.failures > 0) throw new Error(`${x.label} ${scenario}: ${result.failures} failed requests`);
        const used = (after[i] ?? 0) - (before[i] ?? 0);
        return { result, cpuPerRequest: result.total > 0 ? used / result.total : Number.NaN };
      });
    };

    type Sample = { ratio: number; cpu: [number, number]; p99: [number, number]; rps: [number, number] };
    const samples = new Map<Scenario, Sample[]>(options.scenarios.map((s) => [s, []]));
    console.log(
      `comparing ${ours.label} with ${ref.label}: ${options.repeat} rounds of ${options.duration} s (+${options.warmup} s warm-up) per scenario, ` +
        `${options.connections} connections each, ${options.flags} flags${options.auth ? ', authentication required' : ''}; ` +
        (pins ? `both servers on CPU ${pins.server}, load on CPU ${pins.load}` : 'no CPU pinning'),
    );
    for (let round = 0; round < options.repeat; round++) {
      await Promise.all(builds.map(startMeasured));
      const refFirst = round % 2 === 0;
      const line: string[] = [];
      for (const scenario of options.scenarios) {
        if (options.warmup > 0) await both(scenario, options.warmup, refFirst);
        const [r, o] = (await both(scenario, options.duration, refFirst)) as [
          { result: LoadResult; cpuPerRequest: number },
          { result: LoadResult; cpuPerRequest: number },
        ];
        const ratio = r.cpuPerRequest / o.cpuPerRequest;
        samples.get(scenario)?.push({
          ratio,
          cpu: [o.cpuPerRequest, r.cpuPerRequest],
          p99: [o.result.p99Ms, r.result.p99Ms],
          rps: [o.result.requestsPerSecond, r.result.requestsPerSecond],
        });
        line.push(`${scenario} ${ratio.toFixed(2)}`);
      }
      await stopAll();
      console.log(`  round ${round + 1}: ${line.join(', ')}`);
    }

    const f = (n: number, digits = 0) => n.toFixed(digits);
    console.log('');
    console.log(`cost ratio = ref's server CPU µs per request ÷ this build's (above 1.00: this build is cheaper)`);
    console.log('');
    console.log(
      `| scenario | cost ratio, median (spread) | rounds | CPU µs/req this (ref) | p99 ms this (ref) | req/s this (ref) |`,
    );
    console.log('|---|---:|---|---:|---:|---:|');
    for (const [scenario, list] of samples) {
      const ratios = list.map((s) => s.ratio);
      const m = (pick: (s: Sample) => number) => median(list.map(pick));
      console.log(
        `| ${scenario} | ${f(median(ratios), 2)} (${f(Math.min(...ratios), 2)}–${f(Math.max(...ratios), 2)}) | ` +
          `${ratios.map((x) => f(x, 2)).join(', ')} | ${f(
            m((s) => s.cpu[0]),
            1,
          )} (${f(
            m((s) => s.cpu[1]),
            1,
          )}) | ` +
          `${f(
            m((s) => s.p99[0]),
            2,
          )} (${f(
            m((s) => s.p99[1]),
            2,
          )}) | ${f(m((s) => s.rps[0]))} (${f(m((s) => s.rps[1]))}) |`,
      );
    }
  } finally {
    await stopAll();
    cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
