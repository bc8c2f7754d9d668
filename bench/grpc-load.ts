// A gRPC load generator for the benchmark, built on @grpc/grpc-js: `connections` calls kept in flight
// over as many channels (one HTTP/2 connection each, as separate clients would have), each call sent
// as soon as the previous one on its slot has answered, for a fixed time. Reports requests/s and
// latency percentiles like the HTTP load generators (load.ts).
//
// With a rate, each slot sends on its own schedule, the slots staggered over one period, so calls
// arrive spread out as from many independent clients. `runPacedHttpLoad` sends HTTP POSTs on the
// same schedule (one keep-alive connection per slot): bench/transport-cost.ts compares the two
// transports at one rate, and the arrival pattern must be the same for both, since a server woken
// once for a burst of requests pays its wake-up once (autocannon's `overallRate` sends in bursts:
// about 15 requests per wake-up at 2,000 requests/s, against one per wake-up here).
//
// It runs in a child process of its own (`runGrpcLoad` spawns this file with `--child`), pinned to the
// load generator's CPU like wrk, so its CPU never competes with the server's. `runAlternatingLoad`
// (`--alternate`) holds two loads' connections in one such process and sends them in turn.

import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { credentials, loadPackageDefinition, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import type { LoadResult } from './load.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface GrpcLoadOptions {
  /** host:port of the gRPC server (of the HTTP server, with `http`). */
  target: string;
  /** A method of flipt.evaluation.EvaluationService (Boolean, Variant, Batch). */
  method: 'Boolean' | 'Variant' | 'Batch';
  /** The request message, with the proto's field names. */
  request: unknown;
  metadata?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** A CPU list for taskset. */
  cpus?: string;
  /** Calls per second in all (each connection sends every `connections / rate` s); unset: as fast as it goes. */
  rate?: number;
  /** Instead of gRPC calls, POST `request` as JSON to this path over HTTP/1.1 (`runPacedHttpLoad`). */
  http?: { path: string };
}

type Slot = { call: (done: (ok: boolean) => void) => void; close(): void };

/** One keep-alive HTTP/1.1 connection per slot, each POSTing the request body as JSON. */
function httpSlots(options: GrpcLoadOptions, path: string): Slot[] {
  const [host, port] = options.target.split(':');
  const body = Buffer.from(JSON.stringify(options.request));
  const headers = { 'content-type': 'application/json', 'content-length': body.length, ...options.metadata };
  return Array.from({ length: options.connections }, () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return {
      call: (done) => {
        const request = http.request({ host, port: Number(port), path, method: 'POST', agent, headers }, (response) => {
          response.resume();
          response.on('end', () => done(response.statusCode === 200));
        });
        request.on('error', () => done(false));
        request.end(body);
      },
      close: () => agent.destroy(),
    };
  });
}

type Call = (
  request: unknown,
  metadata: import('@grpc/grpc-js').Metadata,
  callback: (err: ServiceError | null) => void,
) => void;

/** One client per slot: `grpc.use_local_subchannel_pool` gives each its own connection. */
function clients(options: GrpcLoadOptions): { call: Call; close(): void }[] {
  const definition = loadSync('evaluation/evaluation.proto', {
    includeDirs: [`${ROOT}/proto`],
    keepCase: true,
    defaults: true,
    oneofs: true,
  });
  const root = loadPackageDefinition(definition) as unknown as {
    flipt: {
      evaluation: {
        EvaluationService: new (
          target: string,
          creds: unknown,
          options: object,
        ) => Record<string, Call> & { close(): void };
      };
    };
  };
  const Service = root.flipt.evaluation.EvaluationService;
  return Array.from({ length: options.connections }, () => {
    const client = new Service(options.target, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
    const method = client[options.method] as Call;
    return { call: method.bind(client), close: () => client.close() };
  });
}

/** One gRPC channel per slot, each making the method's call. */
async function grpcSlots(options: GrpcLoadOptions): Promise<Slot[]> {
  const { Metadata } = await import('@grpc/grpc-js');
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  return clients(options).map((client) => ({
    call: (done) => client.call(options.request, metadata, (err) => done(err === null)),
    close: client.close,
  }));
}

/** Sends on `slots` for `seconds` (paced at `rate` when given); resolves when every slot's last call has answered. */
async function drive(slots: Slot[], seconds: number, rate: number | undefined) {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  // With a rate, each slot sends on its own schedule, the slots staggered over one period.
  const period = rate ? (1000 * slots.length) / rate : 0;
  await Promise.all(
    slots.map(
      (slot, i) =>
        new Promise<void>((resolve) => {
          let due = started + (period * i) / slots.length;
          const send = () => {
            if (performance.now() >= deadline) return resolve();
            const sent = performance.now();
            slot.call((ok) => {
              if (!ok) failures++;
              else latencies.push(performance.now() - sent);
              next();
            });
          };
          const next = () => {
            if (period === 0) return send();
            due += period;
            const wait = due - performance.now();
            if (wait > 0) setTimeout(send, wait);
            else send();
          };
          if (period === 0) send();
          else setTimeout(send, due - performance.now());
        }),
    ),
  );
  return { latencies, failures, elapsed: (performance.now() - started) / 1000 };
}

/** Runs the load in this process and returns what it measured. */
async function runHere(options: GrpcLoadOptions): Promise<LoadResult> {
  const slots = await slotsFor(options);
  const { latencies, failures, elapsed } = await drive(slots, options.durationSeconds, options.rate);
  for (const slot of slots) slot.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    failures,
    total: latencies.length + failures,
  };
}

function slotsFor(options: GrpcLoadOptions): Promise<Slot[]> | Slot[] {
  return options.http ? httpSlots(options, options.http.path) : grpcSlots(options);
}

/** One slice of an alternating load: which of the two loads ran, and what it answered. */
export interface Slice {
  load: 0 | 1;
  total: number;
  failures: number;
}

/**
 * Two loads from one process over connections kept open, in `slices` alternating slices of
 * `sliceSeconds` each (the first load first in even slices), after a warm-up slice of each that opens
 * the connections. `onEdge(load, start)` is told as each counted slice begins (`start`) and ends, so the
 * caller reads the server's CPU at the edges; the two loads never overlap.
 */
export function runAlternatingLoad(
  loads: [GrpcLoadOptions, GrpcLoadOptions],
  slices: number,
  sliceSeconds: number,
  cpus: string | undefined,
  onEdge: (load: 0 | 1, start: boolean) => void,
): Promise<Slice[]> {
  return new Promise((resolve, reject) => {
    const child = spawnChild('--alternate', { loads, slices, sliceSeconds }, cpus);
    const done: Slice[] = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = JSON.parse(pending.slice(0, nl)) as { edge: 'start' | 'end' } & Slice;
        pending = pending.slice(nl + 1);
        onEdge(line.load, line.edge === 'start');
        if (line.edge === 'end') done.push({ load: line.load, total: line.total, failures: line.failures });
      }
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(done) : reject(new Error(`alternating load exited with ${code}`)),
    );
  });
}

/** The child's side of runAlternatingLoad: each edge a line on stdout, written before it goes on. */
async function alternateHere(loads: [GrpcLoadOptions, GrpcLoadOptions], slices: number, sliceSeconds: number) {
  const slots = [await slotsFor(loads[0]), await slotsFor(loads[1])] as const;
  const edge = (line: object) =>
    new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(line)}\n`, () => resolve()));
  for (const load of [0, 1] as const) await drive(slots[load], 1, loads[load].rate);
  for (let i = 0; i < slices; i++) {
    for (const load of i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      await edge({ edge: 'start', load });
      const { latencies, failures } = await drive(slots[load], sliceSeconds, loads[load].rate);
      await edge({ edge: 'end', load, total: latencies.length + failures, failures });
    }
  }
  for (const slot of [...slots[0], ...slots[1]]) slot.close();
}

/** HTTP POSTs on the paced schedule of the gRPC load (`http.path`; `target` is host:port). */
export function runPacedHttpLoad(options: GrpcLoadOptions & { http: { path: string } }): Promise<LoadResult> {
  return runGrpcLoad(options);
}

/** This file as a child process in `mode` with `payload` (pinned to `cpus` when given), its stdout piped. */
function spawnChild(mode: '--child' | '--alternate', payload: object, cpus: string | undefined) {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), mode, JSON.stringify(payload)];
  const [command, commandArgs] = cpus ? ['taskset', ['-c', cpus, process.execPath, ...args]] : [process.execPath, args];
  return spawn(command, commandArgs as string[], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Runs the load in a child process (pinned to `cpus` when given) and returns what it measured. */
export function runGrpcLoad(options: GrpcLoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawnChild('--child', options, options.cpus);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`gRPC load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch (err) {
        reject(err);
      }
    });
  });
}

if (process.argv[2] === '--alternate') {
  const { loads, slices, sliceSeconds } = JSON.parse(process.argv[3] as string);
  alternateHere(loads, slices, sliceSeconds).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}

if (process.argv[2] === '--child') {
  const options = JSON.parse(process.argv[3] as string) as GrpcLoadOptions;
  runHere(options).then(
    (result) => {
      process.stdout.write(JSON.stringify(result));
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
