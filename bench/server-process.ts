// What the benches share about the server process they measure: compiling it as production runs it,
// a free port, waiting for /health, stopping it, and reading its CPU time and resident memory.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../src/runtime/runtime-flags.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function waitHealthy(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output()}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy: ${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Compiles the server with tsc into `outDir`; returns the entry point. Type errors do not stop it.
 * `root` is the source tree (another build's, for `--compare`).
 */
export function compileServer(outDir: string, root = ROOT): string {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir, '--sourceMap', 'false'],
    { cwd: root, encoding: 'utf8' },
  );
  const main = join(outDir, 'main.js');
  if (!existsSync(main)) throw new Error(`tsc emitted no ${main}: ${result.stdout}${result.stderr}`);
  // Outside the repository: an ESM package that finds the repository's dependencies.
  const home = dirname(outDir);
  writeFileSync(join(home, 'package.json'), JSON.stringify({ type: 'module' }));
  if (!existsSync(join(home, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules'), join(home, 'node_modules'), 'dir');
  // The gRPC services load proto/ from beside dist/, as in the repository.
  if (!existsSync(join(home, 'proto'))) symlinkSync(join(root, 'proto'), join(home, 'proto'), 'dir');
  return main;
}

/** SIGTERM (the drain), then SIGKILL after `graceMs`. */
export function stop(child: ChildProcess | undefined, graceMs = 5_000): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), graceMs).unref();
  });
}

/** CPU time (user + system) a process has used, in µs (Linux /proc; clock ticks of 10 ms). */
export function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The middle value (mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Starts a bench/ server that prints its port on stdout (bare-server.ts, bare-grpc-server.mjs) under
 * tsx, with the program's Node options and environment (a ceiling run on other options is no
 * ceiling), on `cpus` when given. `nodeArgs` go before the file (`--cpu-prof` and its directory).
 */
export async function startPortPrinter(
  file: string,
  cpus: string | undefined,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const args = [...NODE_FLAGS, ...nodeArgs, '--import', 'tsx', file];
  const [cmd, cmdArgs] = cpus ? ['taskset', ['-c', cpus, process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, cmdArgs as string[], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...NODE_ENVIRONMENT },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { child, port };
}
