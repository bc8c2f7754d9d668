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
// load generator's CPU like wrk, so its CPU never competes with the server's.

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

/** Runs the load in this process and returns what it measured. */
async function runHere(options: GrpcLoadOptions): Promise<LoadResult> {
  const slots = options.http ? httpSlots(options, options.http.path) : await grpcSlots(options);
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationSeconds * 1000;
  const started = performance.now();
  // With a rate, each slot sends on its own schedule, the slots staggered over one period.
  const period = options.rate ? (1000 * slots.length) / options.rate : 0;
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
  const elapsed = (performance.now() - started) / 1000;
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

/** HTTP POSTs on the paced schedule of the gRPC load (`http.path`; `target` is host:port). */
export function runPacedHttpLoad(options: GrpcLoadOptions & { http: { path: string } }): Promise<LoadResult> {
  return runGrpcLoad(options);
}

/** Runs the load in a child process (pinned to `cpus` when given) and returns what it measured. */
export function runGrpcLoad(options: GrpcLoadOptions): Promise<LoadResult> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', JSON.stringify(options)];
  const [command, commandArgs] = options.cpus
    ? ['taskset', ['-c', options.cpus, process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs as string[], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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
