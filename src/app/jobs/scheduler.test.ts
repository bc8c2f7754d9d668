// The scheduler's own rules, with real timers kept short and jobs that need no lease (the leases are
// tested against the real databases in test/integration/jobs.test.ts): a job that throws is counted and
// logged once per failing stretch and runs on; a job never overlaps itself, however often it is woken;
// `stop` waits for a run under way; `jobs.leased: false` leaves the `one instance` jobs out.

import type { Kysely } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Job, JobScope } from '../../services/job.js';
import type { Database } from '../../storage/schema.js';
import type { JobRunResult } from '../../telemetry/metrics.js';
import { JobScheduler } from './scheduler.js';

/** No job here has a lease, so the scheduler never reaches the database. */
const NO_DATABASE = undefined as unknown as Kysely<Database>;

interface Line {
  level: number;
  msg: string;
  job?: string;
}

function capture() {
  const lines: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  return { logger, lines };
}

function schedulerOf(jobs: Job[], leased = true) {
  const { logger, lines } = capture();
  const runs: { job: string; result: JobRunResult }[] = [];
  const scheduler = new JobScheduler(jobs, {
    db: NO_DATABASE,
    logger,
    leased,
    onRun: (job, result) => runs.push({ job, result }),
  });
  return { scheduler, runs, lines };
}

function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = () => (check() ? resolve() : setTimeout(look, 2));
    look();
  });
}

describe('JobScheduler', () => {
  it('counts a job that throws, logs the failing stretch once and its recovery once, and runs on', async () => {
    // Each row: what the run does, in turn.
    const script = ['throw', 'throw', 'throw', 'ok', 'throw', 'ok', 'ok'] as const;
    let turn = 0;
    const { scheduler, runs, lines } = schedulerOf([
      {
        name: 'flaky',
        scope: 'every instance',
        intervalMs: 1,
        retryMs: 1,
        firstRunMs: 0,
        messages: { failing: 'flaky failing', recovered: 'flaky recovered' },
        run: () => {
          const step = script[turn++];
          if (step === 'throw' || step === undefined) throw new Error(`boom ${turn}`);
        },
      },
    ]);
    scheduler.start();
    await until(() => runs.length >= script.length);
    await scheduler.stop();
    expect(runs.slice(0, script.length).map((r) => r.result)).toEqual(
      script.map((step) => (step === 'throw' ? 'error' : 'ok')),
    );
    const said = lines.filter((l) => l.level >= 30).map((l) => l.msg);
    expect(said.slice(0, 4)).toEqual(['flaky failing', 'flaky recovered', 'flaky failing', 'flaky recovered']);
  });

  it('never runs a job twice at once, however often it is woken, and runs once more after a wake', async () => {
    let open = 0;
    let most = 0;
    let release: (() => void) | undefined;
    const { scheduler, runs } = schedulerOf([
      {
        name: 'slow',
        scope: 'every worker process',
        intervalMs: 3_600_000,
        firstRunMs: 0,
        run: async () => {
          open++;
          most = Math.max(most, open);
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          open--;
        },
      },
    ]);
    scheduler.start();
    await until(() => release !== undefined);
    for (let i = 0; i < 5; i++) scheduler.wake('slow');
    const first = release as () => void;
    release = undefined;
    first();
    // The five wakes during the run make one more run, not five.
    await until(() => release !== undefined);
    (release as unknown as () => void)();
    await until(() => runs.length === 2);
    await scheduler.stop();
    expect(most).toBe(1);
    expect(runs).toEqual([
      { job: 'slow', result: 'ok' },
      { job: 'slow', result: 'ok' },
    ]);
  });

  it('stop aborts the run under way, waits for it, then lets the job go', async () => {
    const order: string[] = [];
    const { scheduler } = schedulerOf([
      {
        name: 'long',
        scope: 'one instance',
        intervalMs: 3_600_000,
        firstRunMs: 0,
        run: async ({ signal }) => {
          order.push('run started');
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('run ended');
        },
        stopped: async () => {
          order.push('let go');
        },
      },
    ]);
    scheduler.start();
    await until(() => order.length === 1);
    await scheduler.stop();
    order.push('stopped');
    expect(order).toEqual(['run started', 'run ended', 'let go', 'stopped']);
  });

  const scopes: { scope: JobScope; leased: boolean; runs: boolean }[] = [
    { scope: 'one instance', leased: true, runs: true },
    { scope: 'one instance', leased: false, runs: false },
    { scope: 'every instance', leased: false, runs: true },
    { scope: 'every worker process', leased: false, runs: true },
  ];
  it.each(scopes)('a job of scope $scope with leased: $leased runs: $runs', ({ scope, leased, runs }) => {
    const { scheduler } = schedulerOf([{ name: 'j', scope, intervalMs: 1000, run: () => {} }], leased);
    expect(scheduler.jobs.map((j) => j.name)).toEqual(runs ? ['j'] : []);
  });

  it('refuses two jobs of one name and an interval of 0', () => {
    const job: Job = { name: 'j', scope: 'every instance', intervalMs: 1000, run: () => {} };
    expect(() => schedulerOf([job, job])).toThrow('two jobs named j');
    expect(() => schedulerOf([{ ...job, intervalMs: 0 }])).toThrow('greater than 0');
  });
});
