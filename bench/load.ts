// Load generators for the benchmark: wrk (Debian's `wrk`, when installed: a C load generator that
// needs far less CPU than the server it measures) or autocannon (programmatic, always available).
// Both send one fixed POST body over keep-alive connections and report requests/s and latency.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export type LoadTool = 'wrk' | 'autocannon';

export interface LoadOptions {
  url: string;
  body: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** A CPU list for taskset (wrk runs in its own process); autocannon runs wherever this process runs. */
  cpus?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests answered with an error status (4xx/5xx), plus socket errors and timeouts. */
  failures: number;
  total: number;
}

export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

function luaString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

async function runWrk(options: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-wrk-'));
  const script = join(dir, 'post.lua');
  const headers = { 'content-type': 'application/json', ...options.headers };
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      `wrk.body = ${luaString(options.body)}`,
      ...Object.entries(headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`),
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format("WRK_JSON {\\"requests\\":%d,\\"micros\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"errors\\":%d,\\"status\\":%d}\\n",',
      '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
      '    e.connect + e.read + e.write + e.timeout, e.status))',
      'end',
    ].join('\n'),
  );
  const args = [
    '-t1',
    `-c${options.connections}`,
    `-d${options.durationSeconds}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    options.url,
  ];
  const [command, commandArgs] = options.cpus ? ['taskset', ['-c', options.cpus, 'wrk', ...args]] : ['wrk', args];
  const { output, code } = await new Promise<{ output: string; code: number | null }>((resolve, reject) => {
    const child = spawn(command, commandArgs as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    // 'close', not 'exit': 'exit' can come before the pipes are drained, and then the result line
    // was lost (once seen as "wrk gave no result" with nothing printed).
    child.on('close', (exitCode) => resolve({ output: out, code: exitCode }));
  });
  rmSync(dir, { recursive: true, force: true });
  const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk gave no result (exit code ${code}): ${output}`);
  const r = JSON.parse(line.slice('WRK_JSON '.length)) as {
    requests: number;
    micros: number;
    p50: number;
    p99: number;
    errors: number;
    status: number;
  };
  return {
    requestsPerSecond: r.requests / (r.micros / 1e6),
    p50Ms: r.p50 / 1000,
    p99Ms: r.p99 / 1000,
    failures: r.errors + r.status,
    total: r.requests,
  };
}

async function runAutocannon(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    body: options.body,
    headers: { 'content-type': 'application/json', ...options.headers },
    connections: options.connections,
    duration: options.durationSeconds,
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.total / (result.duration || options.durationSeconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  };
}

export function runLoad(tool: LoadTool, options: LoadOptions): Promise<LoadResult> {
  return tool === 'wrk' ? runWrk(options) : runAutocannon(options);
}
