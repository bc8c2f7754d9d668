// Shared pieces of the cache, freshness, outage and tier tests: a second app on the same database, a
// namespace fixture with one of every resource, a private redis-server, a cuttable TCP proxy (the
// database "going away" without touching the shared server), and reading a metric from /metrics.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { call } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';

export type Overrides = Record<string, unknown>;

function merge(a: Overrides, b: Overrides): Overrides {
  const out: Overrides = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      typeof v === 'object' && v && !Array.isArray(v) && typeof prev === 'object' && prev && !Array.isArray(prev)
        ? merge(prev as Overrides, v as Overrides)
        : v;
  }
  return out;
}

/** Another app (another "instance") on an existing database. */
export async function buildAppOn(dbUrl: string, overrides: Overrides = {}): Promise<App> {
  const config = loadConfig({ env: {}, overrides: merge({ db: { url: dbUrl }, log: { level: 'warn' } }, overrides) });
  return buildApp(config, { logger: pino({ level: 'silent' }) });
}

/** Ids of the fixture's resources, by the path parameter that names them. */
export interface Fixture {
  namespaceKey: string;
  flagKey: string;
  booleanFlagKey: string;
  segmentKey: string;
  variantId: string;
  ruleId: string;
  distributionId: string;
  constraintId: string;
  rolloutId: string;
}

async function ok(app: App, method: 'POST' | 'PUT', url: string, body: unknown) {
  const res = await call(app, method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** One of every resource in `namespaceKey` (created when it is not "default"). */
export async function seedFixture(app: App, namespaceKey = 'default'): Promise<Fixture> {
  if (namespaceKey !== 'default')
    await ok(app, 'POST', '/api/v1/namespaces', { key: namespaceKey, name: namespaceKey });
  const ns = `/api/v1/namespaces/${namespaceKey}`;
  await ok(app, 'POST', `${ns}/flags`, { key: 'f1', name: 'F1', type: 'VARIANT_FLAG_TYPE', enabled: true });
  await ok(app, 'POST', `${ns}/flags`, { key: 'b1', name: 'B1', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
  const variant = await ok(app, 'POST', `${ns}/flags/f1/variants`, { key: 'v1', name: 'V1' });
  await ok(app, 'POST', `${ns}/segments`, { key: 's1', name: 'S1', matchType: 'ALL_MATCH_TYPE' });
  const constraint = await ok(app, 'POST', `${ns}/segments/s1/constraints`, {
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: 'gold',
  });
  const rule = await ok(app, 'POST', `${ns}/flags/f1/rules`, { segmentKey: 's1', rank: 1 });
  const distribution = await ok(app, 'POST', `${ns}/flags/f1/rules/${rule.id}/distributions`, {
    variantId: variant.id,
    rollout: 100,
  });
  const rollout = await ok(app, 'POST', `${ns}/flags/b1/rollouts`, {
    rank: 1,
    threshold: { percentage: 50, value: false },
  });
  return {
    namespaceKey,
    flagKey: 'f1',
    booleanFlagKey: 'b1',
    segmentKey: 's1',
    variantId: variant.id,
    ruleId: rule.id,
    distributionId: distribution.id,
    constraintId: constraint.id,
    rolloutId: rollout.id,
  };
}

/** The value of one series of a metric in a Prometheus text exposition (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries(
      [...(match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(match[4]);
  }
  return total;
}

export async function metricsOf(app: App): Promise<string> {
  return (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
}

/** Database queries recorded so far on `table` (all operations). */
export async function queriesOn(app: App, table: string): Promise<number> {
  return metricValue(await metricsOf(app), 'vexil_db_queries_total', { table });
}

export const REDIS_SERVER = (() => {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  return found || undefined;
})();

/**
 * A private redis-server on a spare port (never the shared one on 6379): no persistence, so a kill
 * and restart comes back empty, as a real outage may.
 */
export class PrivateRedis {
  #child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts the server (again) on the same port and waits until it answers PING. */
  async restart(): Promise<void> {
    if (!REDIS_SERVER) throw new Error('redis-server is not installed');
    if (this.running) return;
    const child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.#child = child;
    const deadline = Date.now() + 10_000;
    while (!(await ping(this.port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await sleep(25);
    }
  }

  /** SIGKILL: the server vanishes without a goodbye, connections reset. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const finish = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(500, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits (bounded) for a condition that something asynchronous brings about (a message, a poll),
 * checking every `everyMs`; returns how long it took.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  everyMs = 10,
): Promise<number> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
  return Date.now() - start;
}

/**
 * A TCP proxy in front of a database server. `cut()` resets every connection and refuses new ones
 * (the database is gone, as far as the app can tell); `restore()` lets connections through again.
 */
export class CuttableProxy {
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  #open = true;
  port = 0;

  private constructor(targetHost: string, targetPort: number) {
    this.#server = createServer((client) => {
      if (!this.#open) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: targetHost, port: targetPort });
      this.#sockets.add(client);
      this.#sockets.add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  static async start(targetHost: string, targetPort: number): Promise<CuttableProxy> {
    const proxy = new CuttableProxy(targetHost, targetPort);
    proxy.port = await new Promise<number>((resolve) => {
      proxy.#server.listen(0, '127.0.0.1', () => {
        const address = proxy.#server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    return proxy;
  }

  cut(): void {
    this.#open = false;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  restore(): void {
    this.#open = true;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** An app whose database connections go through a cuttable proxy, listening (so its poller runs). */
export interface AppBehindProxy {
  app: App;
  proxy: CuttableProxy;
  /** Lets connections through again first, so the app can shut down cleanly, then closes both. */
  close(): Promise<void>;
}

/**
 * Builds and starts an app on `dbUrl` (PostgreSQL or MySQL) reached through a new CuttableProxy, on
 * free ports, giving up on an unreachable database after 2 s; `overrides` are merged over that.
 */
export async function startBehindProxy(dbUrl: string, overrides: Overrides = {}): Promise<AppBehindProxy> {
  const url = new URL(dbUrl);
  const defaultPort = url.protocol.startsWith('postgres') ? 5432 : 3306;
  const proxy = await CuttableProxy.start(url.hostname, Number(url.port || defaultPort));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const base = { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 }, db: { connect_timeout: '2s' } };
  let app: App | undefined;
  try {
    app = await buildAppOn(url.toString(), merge(base, overrides));
    await app.listen(); // starts the revision poller
  } catch (err) {
    await app?.close().catch(() => {});
    await proxy.close();
    throw err;
  }
  const started = app;
  return {
    app: started,
    proxy,
    async close() {
      proxy.restore();
      await started.close();
      await proxy.close();
    },
  };
}
