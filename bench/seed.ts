// Seeds the benchmark namespace through the management API: N flags, half boolean (a segment rollout
// and a threshold rollout), half variant (3 variants, 2 rules on segments of 2–3 constraints with
// distributions), over a small set of shared segments. Requests run a few at a time over keep-alive.

export interface SeedResult {
  booleanFlags: string[];
  variantFlags: string[];
  requests: number;
  millis: number;
}

/** The evaluation context every benchmark request sends: it matches some segments, not others. */
export const BENCH_CONTEXT = { plan: 'pro', country: 'de', age: '34', beta: 'true', email: 'ada@example.com' };

/** The segments every seeded namespace has (also compiled in process by bench/engine.ts). */
export const BENCH_SEGMENTS: ReadonlyArray<{
  key: string;
  constraints: ReadonlyArray<readonly [string, string, string, string]>;
}> = [
  {
    key: 'pro-eu',
    constraints: [
      ['STRING_COMPARISON_TYPE', 'plan', 'eq', 'pro'],
      ['STRING_COMPARISON_TYPE', 'country', 'isoneof', '["de","fr","it","es"]'],
    ],
  },
  {
    key: 'adults-beta',
    constraints: [
      ['NUMBER_COMPARISON_TYPE', 'age', 'gte', '18'],
      ['BOOLEAN_COMPARISON_TYPE', 'beta', 'true', ''],
      ['STRING_COMPARISON_TYPE', 'email', 'suffix', '@example.com'],
    ],
  },
  {
    key: 'free-us',
    constraints: [
      ['STRING_COMPARISON_TYPE', 'plan', 'eq', 'free'],
      ['STRING_COMPARISON_TYPE', 'country', 'eq', 'us'],
    ],
  },
  {
    key: 'seniors',
    constraints: [
      ['NUMBER_COMPARISON_TYPE', 'age', 'gte', '65'],
      ['STRING_COMPARISON_TYPE', 'plan', 'neq', 'free'],
      ['DATETIME_COMPARISON_TYPE', 'signup', 'lt', '2020-01-01T00:00:00Z'],
    ],
  },
] as const;

class Api {
  requests = 0;
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  async call(method: string, path: string, body: unknown): Promise<{ id?: string }> {
    this.requests++;
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...this.headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`seeding: ${method} ${path} answered ${res.status} ${text}`);
    return JSON.parse(text) as { id?: string };
  }
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++] as () => Promise<void>;
      await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

/** Seeds `flags` flags into `namespace`; `headers` go with every call (a bearer token under --auth). */
export async function seedBenchmark(
  baseUrl: string,
  flags: number,
  namespace = 'default',
  headers: Record<string, string> = {},
): Promise<SeedResult> {
  const started = performance.now();
  const api = new Api(baseUrl, headers);
  const ns = `/api/v1/namespaces/${namespace}`;
  for (const s of BENCH_SEGMENTS) {
    await api.call('POST', `${ns}/segments`, { key: s.key, name: s.key, matchType: 'ALL_MATCH_TYPE' });
    for (const [type, property, operator, value] of s.constraints) {
      await api.call('POST', `${ns}/segments/${s.key}/constraints`, { type, property, operator, value });
    }
  }

  const booleanFlags: string[] = [];
  const variantFlags: string[] = [];
  const tasks: (() => Promise<void>)[] = [];
  for (let i = 0; i < flags; i++) {
    const segment = BENCH_SEGMENTS[i % BENCH_SEGMENTS.length]?.key as string;
    const other = BENCH_SEGMENTS[(i + 1) % BENCH_SEGMENTS.length]?.key as string;
    if (i % 2 === 0) {
      const key = `bool-${i}`;
      booleanFlags.push(key);
      tasks.push(async () => {
        await api.call('POST', `${ns}/flags`, { key, name: key, type: 'BOOLEAN_FLAG_TYPE', enabled: i % 4 === 0 });
        await api.call('POST', `${ns}/flags/${key}/rollouts`, {
          rank: 1,
          type: 'SEGMENT_ROLLOUT_TYPE',
          segment: { segmentKey: segment, value: true },
        });
        await api.call('POST', `${ns}/flags/${key}/rollouts`, {
          rank: 2,
          type: 'THRESHOLD_ROLLOUT_TYPE',
          threshold: { percentage: 25 + (i % 50), value: true },
        });
      });
    } else {
      const key = `variant-${i}`;
      variantFlags.push(key);
      tasks.push(async () => {
        await api.call('POST', `${ns}/flags`, { key, name: key, type: 'VARIANT_FLAG_TYPE', enabled: true });
        const ids: string[] = [];
        for (const v of ['control', 'treatment-a', 'treatment-b']) {
          const created = await api.call('POST', `${ns}/flags/${key}/variants`, {
            key: v,
            name: v,
            attachment: v === 'control' ? '' : `{"variant":"${v}","weight":${i % 7}}`,
          });
          ids.push(created.id as string);
        }
        const first = await api.call('POST', `${ns}/flags/${key}/rules`, { segmentKey: other, rank: 1 });
        for (const [j, rollout] of [34, 33, 33].entries()) {
          await api.call('POST', `${ns}/flags/${key}/rules/${first.id}/distributions`, { variantId: ids[j], rollout });
        }
        const second = await api.call('POST', `${ns}/flags/${key}/rules`, { segmentKey: segment, rank: 2 });
        for (const [j, rollout] of [50, 50].entries()) {
          await api.call('POST', `${ns}/flags/${key}/rules/${second.id}/distributions`, {
            variantId: ids[j + 1],
            rollout,
          });
        }
      });
    }
  }
  await pool(tasks, 8);
  return { booleanFlags, variantFlags, requests: api.requests, millis: performance.now() - started };
}

/**
 * The headers of a token made (by the bootstrap token) with the role client on `default` only: what an
 * application's evaluation token looks like once it carries roles (issue 41).
 */
export async function roleLimitedToken(
  baseUrl: string,
  adminHeaders: Record<string, string>,
): Promise<Record<string, string>> {
  const created = await fetch(`${baseUrl}/auth/v1/method/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders },
    body: JSON.stringify({ name: 'bench-client', roles: [{ role: 'client', namespace: 'default' }] }),
  });
  if (created.status !== 200) throw new Error(`making the role-limited token answered ${created.status}`);
  const { clientToken } = (await created.json()) as { clientToken: string };
  return { authorization: `Bearer ${clientToken}` };
}
