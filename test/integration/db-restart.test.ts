// The database restarted under load: a real `vexil serve` on a database server of the test's own
// (a PostgreSQL cluster or a mariadbd on a spare port), evaluations, writes and management reads
// running concurrently while the server is stopped and started again. No evaluation fails (a write
// that drops a namespace's snapshot just before the outage leaves its last good snapshot in use),
// writes and reads either succeed or get 503 code 14 "database unavailable", and every acknowledged
// write is there afterwards. The Redis row also has another instance's announcement drop the
// snapshot while the database is down, so the stale path is taken every run: counted, logged once.
// The outage is logged once at error when it starts and once when the database is back; each request
// it failed is a warning.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnMariadb, createOwnPostgres, findProgram, type OwnDatabaseServer } from '../helpers/own-database.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { metricValue } from './cache-support.js';

const NS = 'restart';
const UNAVAILABLE = { code: 14, message: 'database unavailable', details: [] };

interface Row {
  name: string;
  create: () => Promise<OwnDatabaseServer>;
  missing?: string;
  redis?: boolean;
}

const pgMissing = findProgram('pg_createcluster') ? undefined : 'pg_createcluster is not installed';
const mariadbMissing = findProgram('mariadbd') ? undefined : 'mariadbd is not installed';
const redisUrl = process.env.VEXIL_TEST_REDIS_URL;

const ROWS: Row[] = [
  { name: 'postgres', create: createOwnPostgres, ...(pgMissing ? { missing: pgMissing } : {}) },
  { name: 'mariadb', create: createOwnMariadb, ...(mariadbMissing ? { missing: mariadbMissing } : {}) },
  {
    name: 'postgres + redis cache',
    create: createOwnPostgres,
    redis: true,
    ...(pgMissing || !redisUrl ? { missing: pgMissing ?? 'VEXIL_TEST_REDIS_URL is not set' } : {}),
  },
];

async function send(method: string, url: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: res.status, body: json as any };
}

async function ok(method: string, url: string, body?: unknown) {
  const res = await send(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The program's JSON log lines (its default encoding); other output is skipped. */
function logLines(output: string): { level: number; msg: string; [field: string]: unknown }[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

/** What the load saw; `outage` is set by the test while the database is down. */
class LoadReport {
  evaluations = 0;
  evaluationsInOutage = 0;
  evaluationFailures: string[] = [];
  acknowledged: string[] = [];
  writesRefused = 0;
  writeFailures: string[] = [];
  reads = 0;
  readsRefused = 0;
  readFailures: string[] = [];
  outage = false;
  /** Writes acknowledged since the database came back. */
  writesSinceBack = 0;
  /** When the database stopped and started again (ms since the epoch), for the failures' phase. */
  stoppedAt: number | undefined;
  startedAt: number | undefined;

  /** Where in the run a failure happened, for its message: a failure says when, not only what. */
  phase(): string {
    const now = Date.now();
    if (this.stoppedAt === undefined) return 'before the outage';
    if (this.startedAt === undefined) return `${now - this.stoppedAt} ms into the outage`;
    return `${now - this.startedAt} ms after the restart`;
  }
}

function describeFailure(err: unknown): string {
  return err instanceof Error
    ? `${err.message} ${String((err.cause as Error | undefined)?.message ?? '')}`
    : String(err);
}

/** Evaluation, write and read loops against `baseUrl` until `running()` turns false. */
function startLoad(baseUrl: string, report: LoadReport, running: () => boolean): Promise<unknown> {
  const evaluator = async (n: number) => {
    for (let i = 0; running(); i++) {
      const variant = i % 2 === 0;
      try {
        const res = await send('POST', `${baseUrl}/evaluate/v1/${variant ? 'variant' : 'boolean'}`, {
          namespaceKey: NS,
          flagKey: variant ? 'f1' : 'b1',
          entityId: `e${n}-${i}`,
          context: { plan: 'gold' },
        });
        const right = variant ? res.body?.match === true && res.body?.variantKey === 'v1' : res.status === 200;
        if (res.status === 200 && right) {
          report.evaluations++;
          if (report.outage) report.evaluationsInOutage++;
        } else
          report.evaluationFailures.push(
            `${report.phase()} ${variant ? 'variant' : 'boolean'}: ${res.status} ${JSON.stringify(res.body)}`,
          );
      } catch (err) {
        report.evaluationFailures.push(`${report.phase()}: ${describeFailure(err)}`);
      }
    }
  };
  const writer = async (n: number) => {
    for (let i = 0; running(); i++) {
      const key = `w-${n}-${i}`;
      try {
        const res = await send('POST', `${baseUrl}/api/v1/namespaces/${NS}/flags`, {
          key,
          name: key,
          type: 'VARIANT_FLAG_TYPE',
          enabled: true,
        });
        if (res.status === 200) {
          report.acknowledged.push(key);
          if (!report.outage) report.writesSinceBack++;
        } else if (res.status === 503 && JSON.stringify(res.body) === JSON.stringify(UNAVAILABLE)) {
          report.writesRefused++;
        } else report.writeFailures.push(`${res.status} ${JSON.stringify(res.body)}`);
      } catch (err) {
        report.writeFailures.push(describeFailure(err));
      }
      // Writes pace themselves a little, so evaluations get most of the shared machine.
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const reader = async () => {
    while (running()) {
      try {
        const res = await send('GET', `${baseUrl}/api/v1/namespaces/${NS}/flags/f1`);
        if (res.status === 200) report.reads++;
        else if (res.status === 503 && JSON.stringify(res.body) === JSON.stringify(UNAVAILABLE)) report.readsRefused++;
        else report.readFailures.push(`${res.status} ${JSON.stringify(res.body)}`);
      } catch (err) {
        report.readFailures.push(describeFailure(err));
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return Promise.all([evaluator(0), evaluator(1), evaluator(2), evaluator(3), writer(0), writer(1), reader()]);
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every flag key in the namespace, through the paginated list. */
async function storedFlagKeys(baseUrl: string): Promise<Set<string>> {
  const keys = new Set<string>();
  let pageToken = '';
  do {
    const page = await ok(
      'GET',
      `${baseUrl}/api/v1/namespaces/${NS}/flags?limit=200${pageToken ? `&pageToken=${pageToken}` : ''}`,
    );
    for (const flag of page.flags as { key: string }[]) keys.add(flag.key);
    pageToken = page.nextPageToken ?? '';
  } while (pageToken);
  return keys;
}

for (const row of ROWS) {
  const title = `database restart under load [${row.name}]`;
  const suite = row.missing ? describe.skip : describe;
  suite(row.missing ? `${title} (skipped: ${row.missing})` : title, () => {
    let server: OwnDatabaseServer | undefined;
    let vexil: RunningVexil | undefined;
    const prefix = `vexil-t-${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      server = await row.create();
      vexil = await startVexil({
        VEXIL_DB_URL: server.url,
        VEXIL_METRICS_ENABLED: 'true',
        ...(row.redis
          ? {
              VEXIL_CACHE_ENABLED: 'true',
              VEXIL_CACHE_BACKEND: 'redis',
              VEXIL_CACHE_REDIS_URL: redisUrl as string,
              VEXIL_CACHE_REDIS_PREFIX: prefix,
            }
          : {}),
      });
      const api = `${vexil.baseUrl}/api/v1/namespaces`;
      await ok('POST', api, { key: NS, name: NS });
      await ok('POST', `${api}/${NS}/flags`, { key: 'f1', name: 'F1', type: 'VARIANT_FLAG_TYPE', enabled: true });
      await ok('POST', `${api}/${NS}/flags`, { key: 'b1', name: 'B1', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
      const variant = await ok('POST', `${api}/${NS}/flags/f1/variants`, { key: 'v1', name: 'V1' });
      await ok('POST', `${api}/${NS}/segments`, { key: 's1', name: 'S1', matchType: 'ALL_MATCH_TYPE' });
      await ok('POST', `${api}/${NS}/segments/s1/constraints`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'eq',
        value: 'gold',
      });
      const rule = await ok('POST', `${api}/${NS}/flags/f1/rules`, { segmentKey: 's1', rank: 1 });
      await ok('POST', `${api}/${NS}/flags/f1/rules/${rule.id}/distributions`, {
        variantId: variant.id,
        rollout: 100,
      });
      await ok('POST', `${api}/${NS}/flags/b1/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } });
    }, 90_000);

    afterAll(async () => {
      try {
        await vexil?.stop();
      } finally {
        await server?.remove();
      }
    }, 60_000);

    it('fails no evaluation, refuses writes with 503 code 14 meanwhile, and loses no acknowledged write', async () => {
      const base = (vexil as RunningVexil).baseUrl;
      const db = server as OwnDatabaseServer;
      const report = new LoadReport();
      let running = true;
      const load = startLoad(base, report, () => running);
      try {
        await waitUntil(() => report.evaluations > 50 && report.acknowledged.length > 5, 'load before the outage');

        report.outage = true;
        report.stoppedAt = Date.now();
        await db.stop();
        if (row.redis) {
          // Another instance announces a write: this one drops its snapshot and must reload it from a
          // database that is away.
          const { Redis } = await import('ioredis');
          const redis = new Redis(redisUrl as string);
          await redis.publish(`${prefix}:revisions`, JSON.stringify({ ns: NS, origin: 'another-instance' }));
          redis.disconnect();
        }
        await waitUntil(() => report.writesRefused > 0, 'a write refused while the database is down');
        const evaluatedBefore = report.evaluationsInOutage;
        await waitUntil(() => report.evaluationsInOutage > evaluatedBefore + 20, 'evaluations during the outage');
        await db.start();
        report.startedAt = Date.now();
        report.writesSinceBack = 0;
        report.outage = false;
        await waitUntil(() => report.writesSinceBack > 5, 'writes acknowledged after the restart');
      } finally {
        running = false;
        await load;
      }

      expect(report.evaluationFailures.slice(0, 5)).toEqual([]);
      expect(report.writeFailures.slice(0, 5)).toEqual([]);
      expect(report.readFailures.slice(0, 5)).toEqual([]);
      expect(report.evaluationsInOutage).toBeGreaterThan(20);
      expect(report.writesRefused).toBeGreaterThan(0);

      const stored = await storedFlagKeys(base);
      expect(report.acknowledged.filter((key) => !stored.has(key))).toEqual([]);

      // The evaluation snapshot caught up with the database: the last acknowledged write evaluates.
      const last = report.acknowledged.at(-1) as string;
      const answer = await ok('POST', `${base}/evaluate/v1/variant`, {
        namespaceKey: NS,
        flagKey: last,
        entityId: 'e',
      });
      expect(answer.flagKey).toBe(last);

      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metricValue(metrics, 'vexil_snapshots_stale')).toBe(0);
      const warnings = (vexil as RunningVexil)
        .output()
        .split('\n')
        .filter((line) => line.includes('snapshot reload failed')).length;
      if (row.redis) {
        expect(metricValue(metrics, 'vexil_snapshot_stale_total')).toBeGreaterThan(0);
        expect(warnings).toBe(1);
      } else {
        expect(warnings).toBeLessThanOrEqual(1);
      }

      // The outage is logged once each way; the requests it failed are warnings, without stacks.
      const lines = logLines((vexil as RunningVexil).output());
      // A stopping server can answer a new query on a connection it has not cut yet, so the outage
      // may be seen to start twice; each start is one error line and each end one warning.
      const errors = lines.filter((line) => line.level >= 50);
      expect(errors.length).toBeGreaterThan(0);
      expect(new Set(errors.map((line) => line.msg))).toEqual(
        new Set(['database unavailable; answering 503 until it is back']),
      );
      expect(typeof errors[0]?.error).toBe('string');
      const back = lines.filter((line) => line.msg === 'database available again');
      expect(back).toHaveLength(errors.length);
      expect(back.every((line) => line.level === 40 && typeof line.outageMs === 'number')).toBe(true);
      expect(back[0]?.failedQueries).toBeGreaterThan(0);
      const refused = lines.filter((line) => line.msg === 'request failed');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((line) => line.level === 40 && line.err === undefined)).toBe(true);
    }, 90_000);
  });
}
