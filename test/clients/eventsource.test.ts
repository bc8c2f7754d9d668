// The `eventsource` package (a Node EventSource) against Vexil's native change stream,
// /internal/v1/evaluation/snapshot/namespace/{ns}/events, with authentication required (the bearer
// token sent through the package's fetch hook): each write's revision arrives as a message whose id
// is that revision, and across a server restart the client reconnects by itself, names the last
// revision it saw (Last-Event-ID) and is told only what it missed.

import { EventSource } from 'eventsource';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testBackends } from '../helpers/backends.js';

const BOOT = 'eventsource-client-token';
const overrides = (port: number) => ({
  server: { host: '127.0.0.1', http_port: port, grpc_port: 0 },
  authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
  ofrep: { event_streams: { enabled: true, heartbeat_interval: '1s' } },
});

interface Received {
  id: string;
  data: { type: string; etag: string; lastModified: number };
}

function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

describe('eventsource package against the native change stream', () => {
  let t: TestApp;
  let restarted: App | undefined;
  let port: number;
  let source: EventSource;
  const received: Received[] = [];
  let opens = 0;

  const write = async (app: App, key: string) => {
    const res = await app.http.inject({
      method: 'POST',
      url: '/api/v1/namespaces/default/flags',
      headers: { authorization: `Bearer ${BOOT}`, 'content-type': 'application/json' },
      payload: { key, name: key, type: 'BOOLEAN_FLAG_TYPE' },
    });
    expect(res.statusCode).toBe(200);
    return res.headers['x-vexil-revision'] as string;
  };

  beforeAll(async () => {
    const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
    if (!sqlite) throw new Error('sqlite backend missing');
    t = await startTestApp(sqlite, overrides(0));
    port = (await t.app.listen()).httpPort;
    source = new EventSource(`http://127.0.0.1:${port}/internal/v1/evaluation/snapshot/namespace/default/events`, {
      fetch: (input, init) =>
        fetch(input, { ...init, headers: { ...(init?.headers ?? {}), authorization: `Bearer ${BOOT}` } }),
    });
    source.addEventListener('open', () => opens++);
    source.addEventListener('message', (event) =>
      received.push({ id: event.lastEventId, data: JSON.parse(event.data) }),
    );
  });
  afterAll(async () => {
    source?.close();
    await restarted?.close();
    await t?.close();
  });

  it('each write arrives as a refetchEvaluation message carrying its revision', async () => {
    await until(() => received.length === 1, 'the first message');
    const revisions = [await write(t.app, 'a'), await write(t.app, 'b')];
    await until(() => received.at(-1)?.id === revisions[1], 'the second write');
    for (const message of received) {
      expect(message.data.type).toBe('refetchEvaluation');
      expect(message.data.etag).toBe(message.id);
    }
    expect(received.map((m) => m.id)).toContain(revisions[1]);
  });

  const restart = async (current: App, beforeListening?: (app: App) => Promise<void>): Promise<App> => {
    await current.close();
    // The same database on the same port: the client's retries find it.
    const config = loadConfig({ env: {}, overrides: { ...overrides(port), db: { url: t.database.url } } });
    const next = await buildApp(config, { logger: pino({ level: 'silent' }) });
    await beforeListening?.(next);
    await next.listen();
    return next;
  };

  it('a restart with nothing changed: the client reconnects and is sent nothing (Last-Event-ID is current)', async () => {
    const before = received.length;
    const opened = opens;
    restarted = await restart(t.app);
    await until(() => opens > opened, 'the reconnection');
    // Two heartbeat intervals on the new connection.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(received.length).toBe(before);
  });

  it('a change made while the server was down is sent as soon as the client is back', async () => {
    const opened = opens;
    let missed = '';
    restarted = await restart(restarted as App, async (app) => {
      missed = await write(app, 'c');
    });
    await until(() => opens > opened, 'the reconnection');
    await until(() => received.at(-1)?.id === missed, 'the missed write');
  });
});
