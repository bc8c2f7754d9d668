// Issue 36, items 1 and 2, through the real program on every backend, with evaluations sent all the
// while (their latency printed, not asserted; every one must succeed):
// - YAML alias bombs (in a flag's metadata, in an attachment) are refused with 400 naming the limit,
//   and so are metadata and attachments over 1000 KB; nothing is stored;
// - a document over the import size limit is 413;
// - a large document (a dry run, then the real import) completes while evaluations keep answering.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

/** Big enough that a loop held for the whole parse or write is plainly visible; quick on 2 cores. */
const BIG_FLAGS = 30_000;

/** A document whose metadata, expanded, holds 10^levels strings from a few hundred bytes of text. */
export function aliasBomb(levels: number, where: 'metadata' | 'attachment'): string {
  const lines = ['version: "1.4"', 'namespace: bombed', 'anchors:', '  l0: &l0 "lol"'];
  for (let i = 1; i <= levels; i++) {
    lines.push(`  l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  }
  lines.push('flags:', '  - key: bomb', '    name: Bomb');
  if (where === 'metadata') lines.push('    metadata:', `      payload: *l${levels}`);
  else lines.push('    variants:', '      - key: v', `        attachment: *l${levels}`);
  return `${lines.join('\n')}\n`;
}

function bigDocument(flags: number): string {
  const parts = ['version: "1.4"\nnamespace: big\nflags:\n'];
  for (let i = 0; i < flags; i++) {
    parts.push(
      `  - key: flag-${i}\n    name: Flag ${i}\n    description: generated flag ${i}\n    enabled: ${i % 2 === 0}\n    type: BOOLEAN_FLAG_TYPE\n    metadata:\n      team: team-${i % 12}\n    rollouts:\n      - threshold:\n          percentage: 50\n          value: true\n`,
    );
  }
  return parts.join('');
}

/** Sends boolean evaluations one after another until stopped; records each one's latency. */
function evaluateMeanwhile(baseUrl: string) {
  const latencies: number[] = [];
  const failures: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${baseUrl}/evaluate/v1/boolean`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ namespaceKey: 'probe', flagKey: 'probe', entityId: 'e', context: {} }),
        });
        const body = (await res.json()) as { enabled?: boolean };
        if (res.status !== 200 || body.enabled !== true) failures.push(`${res.status} ${JSON.stringify(body)}`);
      } catch (err) {
        failures.push(String(err));
      }
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1), failures };
    },
  };
}

describeEachBackend('import limits', (backend) => {
  let database: TestDatabase;
  let vexil: RunningVexil;
  const post = (path: string, body: string, contentType = 'application/yaml') =>
    fetch(`${vexil.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const flagCount = async (ns: string) => {
    const res = await fetch(`${vexil.baseUrl}/api/v1/namespaces/${ns}/flags?limit=1`);
    return res.status === 404 ? 0 : ((await res.json()) as { totalCount: number }).totalCount;
  };

  /** Runs `work` while evaluations are sent; prints their latency; none may fail. */
  async function duringEvaluations<T>(label: string, work: () => Promise<T>): Promise<T> {
    const probe = evaluateMeanwhile(vexil.baseUrl);
    const started = performance.now();
    let result: T;
    try {
      result = await work();
    } finally {
      const stats = await probe.stop();
      console.log(
        `[${backend.name}] ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s; evaluation latency over ${stats.count} requests: p50 ${stats.p50.toFixed(1)} ms, p99 ${stats.p99.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms`,
      );
      expect(stats.failures).toEqual([]);
    }
    return result;
  }

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    vexil = await startVexil({ VEXIL_DB_URL: database.url });
    const created = await fetch(`${vexil.baseUrl}/api/v1/namespaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'probe', name: 'Probe' }),
    });
    expect(created.status).toBe(200);
    const flag = await fetch(`${vexil.baseUrl}/api/v1/namespaces/probe/flags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'probe', name: 'Probe', type: 'BOOLEAN_FLAG_TYPE', enabled: true }),
    });
    expect(flag.status).toBe(200);
  });
  afterAll(async () => {
    await vexil?.stop();
    await database?.drop();
  });

  it('a large document imports (dry run, then for real) while evaluations keep answering', async () => {
    const text = bigDocument(BIG_FLAGS);
    console.log(`[${backend.name}] large document: ${BIG_FLAGS} flags, ${(text.length / 1e6).toFixed(1)} MB`);
    const dry = await duringEvaluations(`dry run of ${BIG_FLAGS} flags`, async () => {
      const res = await post('/api/v1/import?dry_run=true', text);
      return { status: res.status, body: (await res.json()) as { created: unknown[] } };
    });
    expect(dry.status).toBe(200);
    expect(dry.body.created.length).toBe(BIG_FLAGS + 1);
    expect(await flagCount('big')).toBe(0);
    const real = await duringEvaluations(`import of ${BIG_FLAGS} flags`, async () => {
      const res = await post('/api/v1/import', text);
      return { status: res.status, body: (await res.json()) as { created: unknown[] } };
    });
    expect(real.status, `${JSON.stringify(real.body).slice(0, 300)} ${vexil.output().slice(-2000)}`).toBe(200);
    expect(await flagCount('big')).toBe(BIG_FLAGS);
  });
});
