// Runs the real `vexil` program as a child process on free ports, for tests of the whole program.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node arguments that run `vexil`: the program the global setup compiled for this run
 * (test/global-setup.ts). Plain `node <file>`, one process, so a SIGKILL a test sends reaches the
 * program itself.
 */
export function programArgs(): string[] {
  const main = inject('programMain');
  if (!main) throw new Error('no compiled program: run the tests through vitest (test/global-setup.ts builds it)');
  return [main];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningVexil {
  process: ChildProcess;
  httpPort: number;
  grpcPort: number;
  baseUrl: string;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Node options before the program (a `--require` preload, say): `node <nodeArgs> main.js`. */
  nodeArgs?: string[];
  /** Listen on this HTTP port instead of a free one (a restart on the port clients know). */
  httpPort?: number;
  /** How long to wait for /health (default 30 s). */
  startTimeoutMs?: number;
}

/** Starts `vexil serve` with the given env and waits until /health answers SERVING. */
export async function startVexil(
  env: Record<string, string>,
  args: string[] = ['serve'],
  options: StartOptions = {},
): Promise<RunningVexil> {
  // A port found free may be taken by another test's process before this one binds it: the
  // program then exits naming it, and is started again on other ports (never on a port the caller
  // fixed, which another start would not free).
  for (let attempt = 1; ; attempt++) {
    const httpPort = options.httpPort ?? (await freePort());
    const grpcPort = await freePort();
    try {
      return await startOnPorts(env, args, options, httpPort, grpcPort);
    } catch (err) {
      const taken = Number(/EADDRINUSE: address already in use [\d.]+:(\d+)/.exec(String(err))?.[1]);
      const ours = taken === grpcPort || (taken === httpPort && options.httpPort === undefined);
      if (!ours || attempt === 3) throw err;
    }
  }
}

async function startOnPorts(
  env: Record<string, string>,
  args: string[],
  options: StartOptions,
  httpPort: number,
  grpcPort: number,
): Promise<RunningVexil> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...programArgs(), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      VEXIL_SERVER_HOST: '127.0.0.1',
      VEXIL_SERVER_HTTP_PORT: String(httpPort),
      VEXIL_SERVER_GRPC_PORT: String(grpcPort),
      VEXIL_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vexil exited with ${child.exitCode}: ${output}`);
    try {
      const res = await fetch(`${baseUrl}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`vexil did not become healthy: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    httpPort,
    grpcPort,
    baseUrl,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a `vexil` command to completion (`input`: its stdin). */
export function runVexil(args: string[], env: Record<string, string> = {}, input?: string) {
  const result = spawnSync(process.execPath, [...programArgs(), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
    ...(input !== undefined ? { input } : {}),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
