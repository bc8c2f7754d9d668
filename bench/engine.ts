// In-process microbenchmark of the pure evaluation engine: the flag shapes bench/seed.ts creates over
// HTTP (25 boolean flags with a segment rollout and a threshold rollout, 25 variant flags with 3
// variants and 2 rules on segments of 2–3 constraints), compiled directly, evaluated without any HTTP.
// Reports ns per evaluation and bytes allocated per evaluation.
//
//   npx tsx bench/engine.ts [--rounds 7] [--iterations 200000]
//
// Timing: after a warm-up, `rounds` timed rounds of `iterations` evaluations each; the median CPU time
// (user + system, the steadier number on a shared machine) and the median and best wall-clock time are
// printed. The segments are bench/seed.ts's. Allocation: after a full GC, a short run whose heap
// growth is read back, retried with fewer evaluations whenever a GC ran in between (a GC would hide
// what was allocated).

import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileSnapshot } from '../src/evaluation/compile-snapshot.js';
import type { EvaluationContext } from '../src/evaluation/evaluate.js';
import { EntityEvaluator, evaluateBoolean, evaluateFlag, evaluateVariant } from '../src/evaluation/evaluate.js';
import { thresholdBucket, variantBucket } from '../src/evaluation/hashing.js';
import type { NamespaceSnapshot } from '../src/evaluation/snapshot.js';
import type { FlagSource, NamespaceSource, SegmentSource } from '../src/evaluation/source.js';
import { exitOnHelp } from './help.js';
import { BENCH_CONTEXT, BENCH_SEGMENTS as SEGMENTS } from './seed.js';

exitOnHelp(import.meta.url);

// --- the namespace bench/seed.ts builds, as a NamespaceSource -------------------------------------

const T0 = '2024-01-01T00:00:00Z';

function benchSource(flagCount: number): NamespaceSource {
  const segments: SegmentSource[] = SEGMENTS.map((s) => ({
    key: s.key,
    name: s.key,
    description: '',
    matchType: 'ALL_MATCH_TYPE',
    constraints: s.constraints.map(([type, property, operator, value], j) => ({
      id: `${s.key}-${j}`,
      type: type as SegmentSource['constraints'][number]['type'],
      property,
      operator,
      value,
      description: '',
    })),
  }));
  const flags: FlagSource[] = [];
  for (let i = 0; i < flagCount; i++) {
    const segment = SEGMENTS[i % SEGMENTS.length]?.key as string;
    const other = SEGMENTS[(i + 1) % SEGMENTS.length]?.key as string;
    const base = { name: '', description: '', createdAt: T0, updatedAt: T0 };
    if (i % 2 === 0) {
      const key = `bool-${i}`;
      flags.push({
        ...base,
        key,
        name: key,
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: i % 4 === 0,
        variants: [],
        rules: [],
        rollouts: [
          {
            id: `${key}-r1`,
            rank: 1,
            type: 'SEGMENT_ROLLOUT_TYPE',
            description: '',
            segment: { segmentKeys: [segment], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
          },
          {
            id: `${key}-r2`,
            rank: 2,
            type: 'THRESHOLD_ROLLOUT_TYPE',
            description: '',
            threshold: { percentage: 25 + (i % 50), value: true },
          },
        ],
      });
    } else {
      const key = `variant-${i}`;
      const variants = ['control', 'treatment-a', 'treatment-b'].map((v) => ({
        id: `${key}-${v}`,
        key: v,
        attachment: v === 'control' ? '' : `{"variant":"${v}","weight":${i % 7}}`,
      }));
      const ids = variants.map((v) => v.id);
      flags.push({
        ...base,
        key,
        name: key,
        type: 'VARIANT_FLAG_TYPE',
        enabled: true,
        variants,
        rules: [
          {
            id: `${key}-rule1`,
            rank: 1,
            segmentKeys: [other],
            segmentOperator: 'OR_SEGMENT_OPERATOR',
            distributions: [34, 33, 33].map((rollout, j) => ({
              id: `${key}-rule1-d${j}`,
              variantId: ids[j] as string,
              rollout,
            })),
          },
          {
            id: `${key}-rule2`,
            rank: 2,
            segmentKeys: [segment],
            segmentOperator: 'OR_SEGMENT_OPERATOR',
            distributions: [50, 50].map((rollout, j) => ({
              id: `${key}-rule2-d${j}`,
              variantId: ids[j + 1] as string,
              rollout,
            })),
          },
        ],
        rollouts: [],
      });
    }
  }
  return { namespaceKey: 'default', revision: '1', flags, segments };
}

// --- measurement ----------------------------------------------------------------------------------

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    iterations: { type: 'string', default: '200000' },
  },
});
const ROUNDS = Number(args.rounds);
const ITERATIONS = Number(args.iterations);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
let gcCount = 0;
new PerformanceObserver((list) => {
  gcCount += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

/** A result sink, so that the optimiser cannot drop an evaluation. */
let sink = 0;

/** Per round: wall-clock and CPU (user + system) nanoseconds per evaluation. */
interface Round {
  wall: number;
  cpu: number;
}

/**
 * `op(i)` performs `work` evaluations. CPU time is reported beside wall time because on a shared
 * machine the wall clock also counts the time other processes held the core.
 */
function time(op: (i: number) => void, work: number, iterations: number): Round[] {
  for (let i = 0; i < Math.min(iterations, 50_000); i++) op(i);
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const cpuStarted = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) op(i);
    const elapsed = Number(process.hrtime.bigint() - started);
    const cpu = process.cpuUsage(cpuStarted);
    const evaluations = iterations * work;
    rounds.push({ wall: elapsed / evaluations, cpu: ((cpu.user + cpu.system) * 1000) / evaluations });
  }
  return rounds;
}

const flushGcEntries = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * Bytes allocated per evaluation: heap growth over a run during which no GC ran (median of 5 runs).
 * An empty loop measures 0.0; a fraction of a byte is the JIT's own bookkeeping, not evaluation.
 */
async function allocated(op: (i: number) => void, work: number): Promise<number> {
  const samples: number[] = [];
  let iterations = 20_000;
  for (let attempt = 0; attempt < 40 && samples.length < 5; attempt++) {
    gc();
    await flushGcEntries();
    const gcsBefore = gcCount;
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < iterations; i++) op(i);
    const after = process.memoryUsage().heapUsed;
    await flushGcEntries();
    if (gcCount !== gcsBefore) {
      iterations = Math.max(100, iterations >> 1);
      continue;
    }
    samples.push((after - before) / (iterations * work));
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1] ?? Number.NaN;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const column = (x: number, width: number, digits = 1): string => x.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  const snapshot: NamespaceSnapshot = compileSnapshot(benchSource(50));
  const booleanKeys = snapshot.flagList.filter((f) => f.type === 'BOOLEAN_FLAG_TYPE').map((f) => f.key);
  const variantKeys = snapshot.flagList.filter((f) => f.type === 'VARIANT_FLAG_TYPE').map((f) => f.key);
  const allKeys = snapshot.flagList.map((f) => f.key);

  // Distinct entities, each with its own context object parsed from JSON as a request body would be.
  const ENTITIES = 4096;
  const entityIds = Array.from({ length: ENTITIES }, (_, i) => `user-${(i * 7919) % 100_000}`);
  const contextText = JSON.stringify(BENCH_CONTEXT);
  const contexts: EvaluationContext[] = entityIds.map(() => JSON.parse(contextText) as EvaluationContext);
  const mask = ENTITIES - 1;

  const boolOp = (i: number): void => {
    const r = evaluateBoolean(
      snapshot,
      booleanKeys[i % 25] as string,
      entityIds[i & mask] as string,
      contexts[i & mask] as EvaluationContext,
    );
    sink += r.enabled ? 1 : 0;
  };
  const variantOp = (i: number): void => {
    const r = evaluateVariant(
      snapshot,
      variantKeys[i % 25] as string,
      entityIds[i & mask] as string,
      contexts[i & mask] as EvaluationContext,
    );
    sink += r.variantKey.length;
  };
  // One OFREP bulk / batch request: every flag of the namespace for one entity.
  const bulkOp = (i: number): void => {
    const entityId = entityIds[i & mask] as string;
    const context = contexts[i & mask] as EvaluationContext;
    for (let k = 0; k < allKeys.length; k++) {
      const item = evaluateFlag(snapshot, allKeys[k] as string, entityId, context);
      sink += item.type.length;
    }
  };
  // The same request as OFREP bulk and batch run it: one EntityEvaluator, each segment evaluated once.
  const evaluatorOp = (i: number): void => {
    const evaluator = new EntityEvaluator(
      snapshot,
      entityIds[i & mask] as string,
      contexts[i & mask] as EvaluationContext,
    );
    for (let k = 0; k < allKeys.length; k++) sink += evaluator.flag(allKeys[k] as string).type.length;
  };
  const variantBucketOp = (i: number): void => {
    sink += variantBucket(variantKeys[i % 25] as string, entityIds[i & mask] as string);
  };
  const thresholdBucketOp = (i: number): void => {
    sink += thresholdBucket(entityIds[i & mask] as string, booleanKeys[i % 25] as string);
  };

  const cases: Array<[string, (i: number) => void, number, number]> = [
    ['boolean (evaluateBoolean)', boolOp, 1, ITERATIONS],
    ['variant (evaluateVariant)', variantOp, 1, ITERATIONS],
    ['bulk, 50 flags (evaluateFlag) per flag', bulkOp, allKeys.length, Math.max(1, Math.floor(ITERATIONS / 50))],
    [
      'bulk, 50 flags (EntityEvaluator) per flag',
      evaluatorOp,
      allKeys.length,
      Math.max(1, Math.floor(ITERATIONS / 50)),
    ],
    ['variantBucket', variantBucketOp, 1, ITERATIONS],
    ['thresholdBucket', thresholdBucketOp, 1, ITERATIONS],
  ];

  console.log(`node ${process.version}, ${ROUNDS} rounds × ${ITERATIONS} evaluations (bulk: ÷ 50 requests)`);
  console.log('case                                     cpu ns (median)  wall ns (median)  wall ns (best)  bytes/eval');
  for (const [name, op, work, iterations] of cases) {
    const rounds = time(op, work, iterations);
    const bytes = await allocated(op, work);
    console.log(
      `${name.padEnd(40)} ${column(median(rounds.map((r) => r.cpu)), 16)} ${column(
        median(rounds.map((r) => r.wall)),
        17,
      )} ${column(Math.min(...rounds.map((r) => r.wall)), 15)} ${column(bytes, 11)}`,
    );
  }
  for (const [name, op] of [
    ['bulk, 50 flags: one whole request', bulkOp],
    ['same, through an EntityEvaluator', evaluatorOp],
  ] as const) {
    const bulk = time(op, 1, Math.max(1, Math.floor(ITERATIONS / 50)));
    console.log(
      `${name.padEnd(40)} ${column(median(bulk.map((r) => r.cpu)), 16, 0)} ${column(
        median(bulk.map((r) => r.wall)),
        17,
        0,
      )} ${column(Math.min(...bulk.map((r) => r.wall)), 15, 0)}`,
    );
  }
  if (sink === 0.5) console.log(sink);
}

await main();
