// `npm run soak`: a long mixed load against the real program, watching its resident memory.
//
// Compiles the server with tsc, starts it as production does (the program's Node options and
// environment: src/runtime/runtime-flags.ts) on SQLite, seeds N flags with rules and rollouts
// (bench/seed.ts), restarts it, then loads it from a separate process (bench/soak-load.ts: autocannon
// cycling through boolean, variant, batch, OFREP single and OFREP bulk evaluations, plus a few flag
// updates a second, each of which drops the namespace's snapshot). Every interval it prints requests/s,
// p99, errors and the server's RSS; at the end a summary with the peak RSS.
//
// Options: --flags N (50) --duration S (120) --connections C (20) --writes W (per second, 4)
//          --interval S (10) --rss-limit MiB (192: the summary says whether the peak stayed under it)
//          --node-option OPT (extra Node option for the server, repeatable: to try heap settings)
//          --memory-limit MiB (runs the soaked server in a cgroup with that memory limit, as a container
//          runtime would, and reports the group's peak and OOM kills; needs root)

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../src/runtime/runtime-flags.js';
import { exitOnHelp } from './help.js';
import { createMemoryGroup, type MemoryGroup } from './memory-cgroup.js';
import { optionReaders } from './options.js';
import { seedBenchmark } from './seed.js';
import { compileServer, freePort, ROOT, stop, waitHealthy } from './server-process.js';

exitOnHelp(import.meta.url);

interface Options {
  flags: number;
  duration: number;
  connections: number;
  writes: number;
  interval: number;
  rssLimit: number;
  nodeOptions: string[];
  memoryLimit: number;
}

function parseOptions(argv: string[]): Options {
  const { int } = optionReaders(argv);
  const nodeOptions = argv.flatMap((a, i) => (a === '--node-option' && argv[i + 1] ? [argv[i + 1] as string] : []));
  return {
    flags: int('flags', 50, 2),
    duration: int('duration', 120, 1),
    connections: int('connections', 20, 1),
    writes: int('writes', 4, 0),
    interval: int('interval', 10, 1),
    rssLimit: int('rss-limit', 192, 1),
    nodeOptions,
    memoryLimit: int('memory-limit', 0, 0),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'vexil-soak-'));
  const httpPort = await freePort();
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  let server: ChildProcess | undefined;
  let group: MemoryGroup | undefined;
  let output = '';
  try {
    const main = compileServer(join(dir, 'dist'));
    const start = async (group?: MemoryGroup): Promise<ChildProcess> => {
      const command: [string, string[]] = [process.execPath, [...NODE_FLAGS, ...options.nodeOptions, main, 'serve']];
      const [file, args] = group ? group.wrap(...command) : command;
      const child = spawn(file, args, {
        cwd: ROOT,
        env: {
          ...process.env,
          ...NODE_ENVIRONMENT,
          VEXIL_DB_URL: `file:${join(dir, 'soak.db')}`,
          VEXIL_SERVER_HOST: '127.0.0.1',
          VEXIL_SERVER_HTTP_PORT: String(httpPort),
          VEXIL_SERVER_GRPC_PORT: String(await freePort()),
          VEXIL_LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d) => {
        output += d;
      });
      child.stderr?.on('data', (d) => {
        output += d;
      });
      await waitHealthy(baseUrl, child, () => output);
      return child;
    };
    server = await start();
    const seeded = await seedBenchmark(baseUrl, options.flags);
    await stop(server, 15_000);
    // Seeding runs outside the limit: the soak measures the server as it serves.
    if (options.memoryLimit > 0) group = createMemoryGroup(`vexil-soak-${process.pid}`, options.memoryLimit);
    server = await start(group);
    console.log(
      `vexil soak: ${options.flags} flags, ${options.connections} connections, ${options.writes} writes/s, ` +
        `${options.duration} s; server options ${[...NODE_FLAGS, ...options.nodeOptions].join(' ')} ` +
        `${Object.entries(NODE_ENVIRONMENT)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}${group ? `; in a cgroup limited to ${options.memoryLimit} MiB` : ''}. ` +
        'Throughput is noisy on a shared machine; RSS is the figure that matters.',
    );
    const configFile = join(dir, 'soak.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        baseUrl,
        pid: server.pid,
        duration: options.duration,
        connections: options.connections,
        writes: options.writes,
        interval: options.interval,
        rssLimit: options.rssLimit,
        booleanFlags: seeded.booleanFlags,
        variantFlags: seeded.variantFlags,
      }),
    );
    const load = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'soak-load.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        // A file, not the value itself: 10,000 flag keys are more than one environment variable may hold.
        SOAK_CONFIG: configFile,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve) => load.on('exit', resolve));
    if (group) {
      const peak = group.peakBytes();
      console.log(
        `container: limit ${options.memoryLimit} MiB, peak charged ${peak === undefined ? '?' : (peak / 2 ** 20).toFixed(1)} MiB ` +
          `(resident memory and page cache, as the kernel counts it), OOM kills ${group.oomKills()}`,
      );
      if (group.oomKills() > 0) process.exitCode = 1;
    }
    if (server.exitCode !== null) throw new Error(`server exited during the soak with ${server.exitCode}: ${output}`);
    if (code !== 0) process.exitCode = code ?? 1;
  } finally {
    await stop(server, 15_000);
    group?.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
