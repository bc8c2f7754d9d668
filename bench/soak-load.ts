// The load of `npm run soak` (bench/soak.ts), in a process of its own so that the load generator's
// own garbage and CPU stay out of the server's: autocannon cycling through the evaluation APIs, a few
// flag updates a second, and every interval a line of requests/s, p99, errors and the server's RSS.

import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { BENCH_CONTEXT } from './seed.js';

interface SoakConfig {
  baseUrl: string;
  pid: number;
  duration: number;
  connections: number;
  writes: number;
  interval: number;
  rssLimit: number;
  booleanFlags: string[];
  variantFlags: string[];
}

const config = JSON.parse(readFileSync(process.env.SOAK_CONFIG ?? '', 'utf8')) as SoakConfig;

function rssMiB(): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${config.pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

const post = (path: string, body: unknown) => ({
  method: 'POST' as const,
  path,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const entityId = 'user-1234';
const batchKeys = [...config.booleanFlags.slice(0, 25), ...config.variantFlags.slice(0, 25)];
const requests = [
  post('/evaluate/v1/boolean', {
    namespaceKey: 'default',
    flagKey: config.booleanFlags[0],
    entityId,
    context: BENCH_CONTEXT,
  }),
  post('/evaluate/v1/variant', {
    namespaceKey: 'default',
    flagKey: config.variantFlags[0],
    entityId,
    context: BENCH_CONTEXT,
  }),
  post('/evaluate/v1/batch', {
    requests: batchKeys.map((flagKey) => ({ namespaceKey: 'default', flagKey, entityId, context: BENCH_CONTEXT })),
  }),
  post(`/ofrep/v1/evaluate/flags/${config.variantFlags[0]}`, { context: { targetingKey: entityId, ...BENCH_CONTEXT } }),
  post('/ofrep/v1/evaluate/flags', { context: { targetingKey: entityId, ...BENCH_CONTEXT } }),
];

let latencies: number[] = [];
let errors = 0;
let writeErrors = 0;
let writesDone = 0;
const windows: { rps: number; p99: number; errors: number; rss: number }[] = [];

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};

const started = Date.now();
let windowStart = started;
const rssStart = rssMiB();
console.log(`t=0s RSS ${rssStart.toFixed(1)} MiB (started, snapshot not yet loaded)`);

function report(): void {
  const now = Date.now();
  const seconds = (now - windowStart) / 1000;
  const w = { rps: latencies.length / seconds, p99: percentile(latencies, 99), errors, rss: rssMiB() };
  windows.push(w);
  console.log(
    `t=${Math.round((now - started) / 1000)}s ${w.rps.toFixed(0)} req/s p99 ${w.p99.toFixed(1)} ms errors ${w.errors} ` +
      `writes ${writesDone} (failed ${writeErrors}) RSS ${w.rss.toFixed(1)} MiB`,
  );
  latencies = [];
  errors = 0;
  windowStart = now;
}

const ticker = setInterval(report, config.interval * 1000);
let writeIndex = 0;
const writer =
  config.writes > 0
    ? setInterval(async () => {
        const key = config.booleanFlags[writeIndex++ % config.booleanFlags.length];
        try {
          const res = await fetch(`${config.baseUrl}/api/v1/namespaces/default/flags/${key}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              key,
              name: key,
              description: `soak write ${writeIndex}`,
              enabled: writeIndex % 2 === 0,
            }),
          });
          await res.arrayBuffer();
          if (res.ok) writesDone++;
          else writeErrors++;
        } catch {
          writeErrors++;
        }
      }, 1000 / config.writes)
    : undefined;

const instance = autocannon(
  { url: config.baseUrl, connections: config.connections, duration: config.duration, requests },
  () => finish(),
);
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  latencies.push(responseTime);
  if (statusCode >= 400) errors++;
});
instance.on('reqError', () => {
  errors++;
});
function finish(): void {
  clearInterval(ticker);
  if (writer) clearInterval(writer);
  if (Date.now() - windowStart > 1000) report();
  const rss = windows.map((w) => w.rss);
  const peak = Math.max(...rss);
  const totalErrors = windows.reduce((n, w) => n + w.errors, 0);
  const meanRps = windows.reduce((n, w) => n + w.rps, 0) / windows.length;
  console.log(
    `summary: ${config.duration} s, mean ${meanRps.toFixed(0)} req/s, worst p99 ${Math.max(...windows.map((w) => w.p99)).toFixed(1)} ms, ` +
      `errors ${totalErrors}, writes ${writesDone} (failed ${writeErrors}); RSS start ${rssStart.toFixed(1)} MiB, ` +
      `first interval ${(rss[0] ?? 0).toFixed(1)}, last ${(rss.at(-1) ?? 0).toFixed(1)}, peak ${peak.toFixed(1)} MiB ` +
      `(${peak < config.rssLimit ? 'under' : 'OVER'} ${config.rssLimit} MiB)`,
  );
  process.exit(0);
}
