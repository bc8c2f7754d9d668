// Every answer arrives whole (issue 23): each evaluation route, and the management list the
// compression plugin encodes, is asked through Node's fetch and node:http, with every Accept-Encoding a
// client may send, for answers under 1 KiB, up to 8 KiB, up to 64 KiB and over 64 KiB, in each state
// its namespace's snapshot can be in: never loaded on a server that has just started, dropped by a write
// a moment before, and held. On every backend, with the memory and the Redis cache: the whole product on
// SQLite, and on PostgreSQL and MySQL every route, size and state with the client × encoding pairs
// shared out among them (coveringRows).
//
// The same for what the compression plugin encodes without a database: /openapi.json and the
// dashboard's files, on their first request and again.
//
// Each answer is decoded and compared byte for byte with the identity answer to the same request asked
// right after it (request ids, timestamps and durations aside), its Content-Encoding with what the
// negotiation must choose, and its Content-Length with the bytes on the wire. The rows that fail are
// listed together, so one run shows the whole shape of a failure.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthState } from '../../src/api/health-state.js';
import { buildHttpApp } from '../../src/api/http/app.js';
import type { HttpApp } from '../../src/api/http/http-app.js';
import type { RouteDeps } from '../../src/api/http/routes/deps.js';
import { uiRoutes } from '../../src/api/http/routes/ui.js';
import { LongLivedStreams } from '../../src/api/long-lived-streams.js';
import type { App } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { type Answer, type AnswerClient, answerWith, type HttpCall, nodeHttpAnswer } from '../helpers/answers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend, testBackends } from '../helpers/backends.js';
import { buildAppOn, PrivateRedis, REDIS_SERVER } from './cache-support.js';

interface SizeClass {
  name: string;
  /** The variant attachment's length: variant, batch, OFREP, snapshot, legacy and list answers grow with it. */
  attachment: number;
  /** The boolean request's requestId length (echoed in the answer, which has no attachment). */
  requestId: number;
  /** The identity answer's size must be in [min, max]: the test checks that it covers what it says. */
  min: number;
  max: number;
}

const KIB = 1024;
const SIZES: SizeClass[] = [
  { name: 'under 1 KiB', attachment: 20, requestId: 8, min: 1, max: KIB - 1 },
  { name: '1-8 KiB', attachment: 2_500, requestId: 3_000, min: KIB, max: 8 * KIB },
  { name: '8-64 KiB', attachment: 20_000, requestId: 20_000, min: 8 * KIB + 1, max: 64 * KIB },
  { name: 'over 64 KiB', attachment: 90_000, requestId: 90_000, min: 64 * KIB + 1, max: 1024 * KIB },
];

/** What a client may send; undefined is the client's own default (fetch: `gzip, deflate`; node:http: none). */
const ACCEPT_ENCODINGS = [undefined, 'identity', 'gzip', 'deflate', 'gzip;q=0', '*'] as const;
type AcceptEncoding = (typeof ACCEPT_ENCODINGS)[number];
const CLIENTS: AnswerClient[] = ['fetch', 'node:http'];

/**
 * The encoding the server must choose: gzip or deflate as asked, nothing under 1 KiB. A file the
 * plugin gets as a stream has no size it could compare, so it is compressed whatever its size (as Flipt
 * compresses every answer).
 */
function expectedEncoding(row: Row, size: number): string | undefined {
  const { client, accept } = row;
  if (size < KIB && !row.route.streamed) return undefined;
  const asked = accept ?? (client === 'fetch' ? 'gzip, deflate' : undefined);
  if (asked === undefined || asked === 'identity' || asked === 'gzip;q=0') return undefined;
  return asked === 'deflate' ? 'deflate' : 'gzip';
}

interface RouteCase {
  name: string;
  call(namespace: string, size: SizeClass): HttpCall;
  /** Answered from a stream of unknown length (the dashboard's files). */
  streamed?: boolean;
}

const ENTITY = 'user-1';
const padded = (length: number) => 'r'.repeat(length);
const booleanRequest = (namespaceKey: string, size: SizeClass) => ({
  namespaceKey,
  flagKey: 'b',
  entityId: ENTITY,
  context: { plan: 'pro' },
  requestId: padded(size.requestId),
});
const variantRequest = (namespaceKey: string) => ({
  namespaceKey,
  flagKey: 'v',
  entityId: ENTITY,
  context: { plan: 'pro' },
  requestId: 'r-variant',
});
const ofrepHeaders = (namespace: string) => ({ 'x-flipt-namespace': namespace });

const EVALUATION_ROUTES: RouteCase[] = [
  {
    name: 'boolean',
    call: (ns, size) => ({ method: 'POST', path: '/evaluate/v1/boolean', body: booleanRequest(ns, size) }),
  },
  { name: 'variant', call: (ns) => ({ method: 'POST', path: '/evaluate/v1/variant', body: variantRequest(ns) }) },
  {
    name: 'batch',
    call: (ns) => ({
      method: 'POST',
      path: '/evaluate/v1/batch',
      body: { requestId: 'r-batch', requests: [booleanRequest(ns, SIZES[0] as SizeClass), variantRequest(ns)] },
    }),
  },
  {
    name: 'OFREP single',
    call: (ns) => ({
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags/v',
      body: { context: { targetingKey: ENTITY } },
      headers: ofrepHeaders(ns),
    }),
  },
  {
    name: 'OFREP bulk',
    call: (ns) => ({
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags',
      body: { context: { targetingKey: ENTITY } },
      headers: ofrepHeaders(ns),
    }),
  },
  {
    name: 'client snapshot',
    // Flipt's client SDKs name their version; from 1.47 the snapshot carries default variants.
    call: (ns) => ({
      method: 'GET',
      path: `/internal/v1/evaluation/snapshot/namespace/${ns}`,
      headers: { 'x-flipt-accept-server-version': '1.47.0' },
    }),
  },
  {
    name: 'legacy evaluate',
    call: (ns) => ({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/evaluate`,
      body: { flagKey: 'v', entityId: ENTITY, context: {}, requestId: 'r-legacy' },
    }),
  },
  // A management list, which @fastify/compress encodes: flags with their variants' attachments.
  { name: 'flag list', call: (ns) => ({ method: 'GET', path: `/api/v1/namespaces/${ns}/flags` }) },
];

/** A JSON attachment of about `length` characters that compresses as real text does. */
function attachmentOf(length: number): string {
  const words: string[] = [];
  let total = 12;
  for (let i = 0; total < length; i++) {
    const word = `w${(i * 7919) % 10007}`;
    words.push(word);
    total += word.length + 1;
  }
  return JSON.stringify({ text: words.join(' ') });
}

/** Fields that differ between two answers to the same request. */
function withoutRequestFields(text: string): string {
  return text
    .replace(/"timestamp":"[^"]*"/g, '"timestamp":""')
    .replace(/"requestDurationMillis":[0-9.e-]+/g, '"requestDurationMillis":0');
}

async function must(app: App, method: 'POST' | 'PUT', url: string, body: unknown): Promise<{ id?: string }> {
  const res = await app.http.inject({
    method,
    url,
    headers: { 'content-type': 'application/json' },
    payload: body as object,
  });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A namespace with a boolean flag `b` and a variant flag `v` whose default variant carries the attachment. */
async function seedNamespace(app: App, key: string, size: SizeClass): Promise<void> {
  await must(app, 'POST', '/api/v1/namespaces', { key, name: key });
  const ns = `/api/v1/namespaces/${key}`;
  await must(app, 'POST', `${ns}/flags`, { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
  await must(app, 'POST', `${ns}/flags`, { key: 'v', name: 'V', type: 'VARIANT_FLAG_TYPE', enabled: true });
  const variant = await must(app, 'POST', `${ns}/flags/v/variants`, {
    key: 'big',
    name: 'Big',
    attachment: attachmentOf(size.attachment),
  });
  await must(app, 'PUT', `${ns}/flags/v`, { name: 'V', enabled: true, defaultVariantId: variant.id });
}

/** Runs `tasks` with at most `width` at a time. */
async function inParallel(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: width }, worker));
}

interface Row {
  state: string;
  client: AnswerClient;
  route: RouteCase;
  accept: AcceptEncoding;
  size: SizeClass;
}

const rowName = (row: Row) =>
  `${row.state} | ${row.route.name} | ${row.client} | Accept-Encoding ${row.accept ?? '(client default)'} | ${row.size.name}`;

/** What is wrong with `answer` to `row`, measured against the identity answer `reference`. */
function problemsOf(row: Row, answer: Answer, reference: Answer): string[] {
  const problems: string[] = [];
  const size = reference.body.length;
  if (reference.status !== 200) problems.push(`identity answer ${reference.status}: ${reference.body}`);
  if (size < row.size.min || size > row.size.max)
    problems.push(`identity answer is ${size} bytes, not ${row.size.name}`);
  if (answer.status !== 200) problems.push(`status ${answer.status}`);
  const expected = expectedEncoding(row, size);
  if (answer.contentEncoding !== expected) {
    problems.push(`content-encoding ${answer.contentEncoding ?? 'none'}, expected ${expected ?? 'none'}`);
  }
  if (
    answer.wireLength !== undefined &&
    answer.contentLength !== undefined &&
    answer.contentLength !== answer.wireLength
  ) {
    problems.push(`content-length ${answer.contentLength} but ${answer.wireLength} bytes arrived`);
  }
  if (answer.wireLength === undefined && answer.contentEncoding === undefined && answer.contentLength !== undefined) {
    if (answer.contentLength !== answer.body.length) {
      problems.push(`content-length ${answer.contentLength} but ${answer.body.length} bytes arrived`);
    }
  }
  const got = withoutRequestFields(answer.body.toString());
  const want = withoutRequestFields(reference.body.toString());
  if (got !== want)
    problems.push(`body of ${answer.body.length} bytes differs from the identity answer (${size} bytes)`);
  return problems;
}

const REDIS_SKIP = REDIS_SERVER ? undefined : 'redis-server is not installed';

const STATES = ['fresh server', 'after a write', 'held'];

/** Every client × route × Accept-Encoding × size: what SQLite runs, with both caches. */
function everyRow(state: string): Row[] {
  return CLIENTS.flatMap((client) =>
    EVALUATION_ROUTES.flatMap((route) =>
      ACCEPT_ENCODINGS.flatMap((accept) => SIZES.map((size): Row => ({ state, client, route, accept, size }))),
    ),
  );
}

/**
 * Every route × size in this state, each with one client × Accept-Encoding pair, turned so that over
 * the three states (3 × 4 sizes = 12 = 2 clients × 6 encodings) each route meets every pair once. How
 * an answer is encoded does not depend on the database that filled the snapshot; whether it arrives
 * whole in each snapshot state might, so PostgreSQL and MySQL keep every route, size and state and
 * share the client × encoding coverage out among them: a twelfth of SQLite's rows.
 */
function coveringRows(state: string, stateIndex: number): Row[] {
  const pairs = CLIENTS.flatMap((client) => ACCEPT_ENCODINGS.map((accept) => ({ client, accept })));
  return EVALUATION_ROUTES.flatMap((route, routeIndex) =>
    SIZES.map((size, sizeIndex): Row => {
      const pair = pairs[(sizeIndex + SIZES.length * stateIndex + routeIndex) % pairs.length] as (typeof pairs)[number];
      return { state, route, size, ...pair };
    }),
  );
}

describeEachBackend('whole answers', (backend) => {
  describe.each([
    { cache: 'memory', skip: undefined },
    { cache: 'redis', skip: REDIS_SKIP },
  ])('$cache cache', ({ cache, skip }) => {
    let seeder: TestApp;
    let server: App;
    let baseUrl: string;
    let redis: PrivateRedis | undefined;
    let counter = 0;

    const rows = (state: string): Row[] =>
      backend.name === 'sqlite' ? everyRow(state) : coveringRows(state, STATES.indexOf(state));
    const freshRows = rows(STATES[0] as string);
    const freshNamespace = (row: Row) => `fresh-${freshRows.indexOf(row)}`;

    /** Asks `row`'s request of namespace `ns`, then the identity answer; says what is wrong. */
    async function check(row: Row, ns: string): Promise<string[]> {
      const call = row.route.call(ns, row.size);
      const answer = await answerWith(row.client, baseUrl, call, row.accept);
      const reference = await nodeHttpAnswer(baseUrl, call, 'identity');
      return problemsOf(row, answer, reference).map((problem) => `${rowName(row)}: ${problem}`);
    }

    beforeAll(async () => {
      if (skip) return;
      redis = cache === 'redis' ? await PrivateRedis.start() : undefined;
      const cacheConfig = redis ? { cache: { enabled: true, backend: 'redis', redis: { url: redis.url } } } : {};
      // One instance writes everything, so the instance under test starts with nothing loaded.
      seeder = await startTestApp(backend, cacheConfig);
      const seeds: (() => Promise<void>)[] = [];
      for (const size of SIZES) {
        seeds.push(() => seedNamespace(seeder.app, `written-${SIZES.indexOf(size)}`, size));
        seeds.push(() => seedNamespace(seeder.app, `held-${SIZES.indexOf(size)}`, size));
      }
      for (const row of freshRows) seeds.push(() => seedNamespace(seeder.app, freshNamespace(row), row.size));
      await inParallel(seeds, backend.name === 'sqlite' ? 1 : 6);
      server = await buildAppOn(seeder.database.url, {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        ...cacheConfig,
      });
      baseUrl = `http://127.0.0.1:${(await server.listen()).httpPort}`;
    }, 240_000);

    afterAll(async () => {
      await server?.close();
      await seeder?.close();
      await redis?.kill();
    });

    const test = skip ? it.skip : it;

    test('a server that has just started: each row the first request of its namespace', async () => {
      const failures: string[] = [];
      for (const row of freshRows) failures.push(...(await check(row, freshNamespace(row))));
      expect(failures).toEqual([]);
    }, 120_000);

    test('right after a write to the namespace', async () => {
      const failures: string[] = [];
      for (const row of rows(STATES[1] as string)) {
        const ns = `written-${SIZES.indexOf(row.size)}`;
        counter++;
        const update = await fetch(`${baseUrl}/api/v1/namespaces/${ns}/flags/b`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'B', enabled: true, description: `write ${counter}` }),
        });
        expect(update.status).toBe(200);
        failures.push(...(await check(row, ns)));
      }
      expect(failures).toEqual([]);
    }, 120_000);

    test('with the snapshot held', async () => {
      const failures: string[] = [];
      for (const row of rows(STATES[2] as string)) {
        const ns = `held-${SIZES.indexOf(row.size)}`;
        await answerWith('node:http', baseUrl, row.route.call(ns, row.size), 'identity');
        failures.push(...(await check(row, ns)));
      }
      expect(failures).toEqual([]);
    }, 120_000);
  });
});

/** Dashboard files of each size class, served by the real dashboard routes from a stand-in build. */
const DASHBOARD_FILES: { path: string; content: string; size: SizeClass }[] = [
  { path: '/', content: '<!doctype html><title>Vexil</title><div id="root"></div>', size: SIZES[0] as SizeClass },
  { path: '/assets/app.css', content: '.flag { color: #123456; }\n'.repeat(120), size: SIZES[1] as SizeClass },
  { path: '/assets/app.js', content: `console.log(${attachmentOf(30_000)});`, size: SIZES[2] as SizeClass },
  { path: '/assets/vendor.js', content: `console.log(${attachmentOf(150_000)});`, size: SIZES[3] as SizeClass },
];

describe('whole answers: /openapi.json and the dashboard files', () => {
  const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
  let full: TestApp;
  let dashboard: HttpApp;
  let dir: string;
  let apiUrl: string;
  let dashboardUrl: string;

  beforeAll(async () => {
    if (!sqlite) throw new Error('sqlite backend missing');
    full = await startTestApp(sqlite, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    apiUrl = `http://127.0.0.1:${(await full.app.listen()).httpPort}`;
    dir = mkdtempSync(join(tmpdir(), 'vexil-answers-'));
    mkdirSync(join(dir, 'assets'));
    for (const file of DASHBOARD_FILES) {
      writeFileSync(join(dir, file.path === '/' ? 'index.html' : file.path), file.content);
    }
    dashboard = await buildHttpApp({ bodyLimit: 1024 * 1024, logger: false, version: 'test' });
    const deps: RouteDeps = {
      config: loadConfig({ env: {}, overrides: {} }),
      // The dashboard routes use no service.
      services: {} as RouteDeps['services'],
      health: new HealthState(),
      streams: new LongLivedStreams(),
    };
    await uiRoutes(dashboard, deps, { distDir: dir });
    await dashboard.listen({ host: '127.0.0.1', port: 0 });
    const address = dashboard.server.address();
    dashboardUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await dashboard?.close();
    await full?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every client and encoding for `path`; the identity answer decides the size class it is checked in. */
  async function problemsFor(state: string, baseUrl: string, path: string, size?: SizeClass): Promise<string[]> {
    const failures: string[] = [];
    const route: RouteCase = { name: path, call: () => ({ method: 'GET', path }), streamed: size !== undefined };
    for (const client of CLIENTS) {
      for (const accept of ACCEPT_ENCODINGS) {
        const answer = await answerWith(client, baseUrl, route.call('', SIZES[0] as SizeClass), accept);
        const reference = await nodeHttpAnswer(baseUrl, route.call('', SIZES[0] as SizeClass), 'identity');
        const measured = reference.body.length;
        const sizeClass = size ?? SIZES.find((c) => measured >= c.min && measured <= c.max) ?? (SIZES[3] as SizeClass);
        const row: Row = { state, client, route, accept, size: sizeClass };
        failures.push(...problemsOf(row, answer, reference).map((problem) => `${rowName(row)}: ${problem}`));
      }
    }
    return failures;
  }

  it('/openapi.json, first asked and again', async () => {
    const failures = [
      ...(await problemsFor('first request', apiUrl, '/openapi.json')),
      ...(await problemsFor('again', apiUrl, '/openapi.json')),
    ];
    expect(failures).toEqual([]);
  });

  it('dashboard files of every size, first asked and again', async () => {
    const failures: string[] = [];
    for (const state of ['first request', 'again']) {
      for (const file of DASHBOARD_FILES)
        failures.push(...(await problemsFor(state, dashboardUrl, file.path, file.size)));
    }
    expect(failures).toEqual([]);
  });
});
