// OFREP event streams and the native change stream (issue 29) on a listening server, per backend:
// what bulk answers advertise, what a stream sends (the revision a write left, Last-Event-ID,
// heartbeats), that it is never compressed, that a client which stops reading is dropped instead of
// buffered, that closing the app ends every stream, and flagConfigEtag's read-your-writes.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { openSse, type SseReader } from '../helpers/sse.js';

const LISTEN = { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } };
const STREAMS = (extra: Record<string, unknown> = {}) => ({
  ...LISTEN,
  ofrep: { event_streams: { enabled: true, heartbeat_interval: '100ms', ...extra } },
});

async function json(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
}

async function listen(t: TestApp): Promise<string> {
  return `http://127.0.0.1:${(await t.app.listen()).httpPort}`;
}

/** Turns flag `key` on or off; resolves with the revision the write left (X-Vexil-Revision). */
async function toggle(base: string, key: string, enabled: boolean, ns = 'default'): Promise<string> {
  const res = await json(base, 'PUT', `/api/v1/namespaces/${ns}/flags/${key}`, { name: key, enabled });
  expect(res.status).toBe(200);
  return res.headers.get('x-vexil-revision') as string;
}

function refetch(reader: SseReader, i: number) {
  const event = reader.events[i];
  return event && { id: event.id, event: event.event, data: JSON.parse(event.data) };
}

describeEachBackend('event streams', (backend) => {
  describe('off (the default)', () => {
    let t: TestApp;
    let base: string;
    beforeAll(async () => {
      t = await startTestApp(backend, LISTEN);
      base = await listen(t);
      await json(base, 'POST', '/api/v1/namespaces/default/flags', { key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE' });
    });
    afterAll(async () => t?.close());

    it('advertises no stream and serves none', async () => {
      const bulk = await json(base, 'POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u' } });
      expect(Object.keys(bulk.body)).toEqual(['flags']);
      expect((await fetch(`${base}/ofrep/v1/namespaces/default/events`)).status).toBe(404);
      expect((await fetch(`${base}/internal/v1/evaluation/snapshot/namespace/default/events`)).status).toBe(404);
    });
  });

  describe('on', () => {
    let t: TestApp;
    let base: string;
    beforeAll(async () => {
      t = await startTestApp(backend, STREAMS());
      base = await listen(t);
      for (const key of ['f', 'g']) {
        await json(base, 'POST', '/api/v1/namespaces/default/flags', { key, name: key, type: 'BOOLEAN_FLAG_TYPE' });
      }
      await json(base, 'POST', '/api/v1/namespaces', { key: 'team-b', name: 'team-b' });
    });
    afterAll(async () => t?.close());

    it('bulk answers advertise the namespace stream, as a path to join to the client origin', async () => {
      for (const [headers, ns] of [
        [{}, 'default'],
        [{ 'x-service-namespace': 'team-b' }, 'team-b'],
      ] as const) {
        const bulk = await json(base, 'POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u' } }, headers);
        expect(bulk.status).toBe(200);
        expect(bulk.body.eventStreams).toEqual([
          { type: 'sse', endpoint: { requestUri: `/ofrep/v1/namespaces/${ns}/events` }, inactivityDelaySec: 120 },
        ]);
      }
    });

    it('the bulk ETag differs from the one without streams, and still answers 304', async () => {
      const first = await json(base, 'POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u' } });
      const etag = first.headers.get('etag') as string;
      const again = await fetch(`${base}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'if-none-match': etag },
        body: JSON.stringify({ context: { targetingKey: 'u' } }),
      });
      expect(again.status).toBe(304);
    });

    for (const path of [
      '/ofrep/v1/namespaces/default/events',
      '/internal/v1/evaluation/snapshot/namespace/default/events',
    ]) {
      it(`${path}: SSE headers, never compressed, the current revision first, then every write's`, async () => {
        const stream = await openSse(`${base}${path}`, { 'accept-encoding': 'gzip, br, deflate' });
        try {
          expect(stream.status).toBe(200);
          expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
          expect(stream.headers['cache-control']).toBe('no-cache');
          expect(stream.headers['x-accel-buffering']).toBe('no');
          expect(stream.headers['content-encoding']).toBeUndefined();
          await stream.until((s) => s.events.length === 1);
          const current = (await json(base, 'POST', '/ofrep/v1/evaluate/flags', {})).headers.get('x-vexil-revision');
          expect(refetch(stream, 0)).toMatchObject({
            id: current,
            event: 'message',
            data: { type: 'refetchEvaluation', etag: current },
          });
          const revision = await toggle(base, 'f', true);
          await stream.until((s) => s.events.length === 2);
          const message = refetch(stream, 1);
          expect(message).toMatchObject({
            id: revision,
            event: 'message',
            data: { type: 'refetchEvaluation', etag: revision },
          });
          expect(Object.keys(message?.data ?? {})).toEqual(['type', 'etag', 'lastModified']);
          expect(Math.abs(message?.data.lastModified - Date.now() / 1000)).toBeLessThan(60);
        } finally {
          stream.close();
        }
      });
    }

    it("a namespace's stream hears only its own namespace", async () => {
      const b = await openSse(`${base}/ofrep/v1/namespaces/team-b/events`);
      try {
        await b.until((s) => s.events.length === 1);
        await toggle(base, 'g', true);
        await json(base, 'POST', '/api/v1/namespaces/team-b/flags', { key: 'h', name: 'h', type: 'BOOLEAN_FLAG_TYPE' });
        await b.until((s) => s.events.length === 2);
        expect(b.events).toHaveLength(2);
      } finally {
        b.close();
      }
    });

    it('Last-Event-ID: the current revision is sent nothing, an older one the current revision at once', async () => {
      const current = await toggle(base, 'f', false);
      const upToDate = await openSse(`${base}/ofrep/v1/namespaces/default/events`, { 'last-event-id': current });
      const behind = await openSse(`${base}/ofrep/v1/namespaces/default/events`, { 'last-event-id': '1.1' });
      try {
        await behind.until((s) => s.events.length === 1);
        expect(refetch(behind, 0)?.id).toBe(current);
        // Two heartbeats on the up-to-date stream prove it was open long enough to have been told.
        await upToDate.until((s) => s.comments.length >= 2);
        expect(upToDate.events).toHaveLength(0);
        const next = await toggle(base, 'f', true);
        await upToDate.until((s) => s.events.length === 1);
        expect(refetch(upToDate, 0)?.id).toBe(next);
      } finally {
        upToDate.close();
        behind.close();
      }
    });

    it('sends a comment heartbeat every heartbeat_interval', async () => {
      const stream = await openSse(`${base}/ofrep/v1/namespaces/default/events`);
      try {
        await stream.until((s) => s.comments.length >= 3);
        expect(stream.text()).toMatch(/^retry: \d+\n\n/);
        expect(stream.comments.slice(0, 3)).toEqual(['', '', '']);
      } finally {
        stream.close();
      }
    });

    it('a client that stops reading is dropped, not buffered without bound', async () => {
      const stream = await openSse(`${base}/ofrep/v1/namespaces/default/events`);
      await stream.until((s) => s.events.length === 1);
      stream.raw.pause();
      stream.raw.socket.pause();
      const hub = t.app.eventStreams?.hub;
      const watch = t.app.eventStreams?.watch;
      const held = hub?.size ?? 0;
      expect(held).toBeGreaterThan(0);
      // Far more than the socket buffers can take (megabytes of frames): only the limit keeps memory flat.
      const createdAt = Date.now();
      const before = process.memoryUsage().rss;
      for (let i = 1; i <= 200_000 && (hub?.size ?? 0) === held; i++) watch?.announce('default', `${createdAt}.${i}`);
      expect(hub?.size).toBe(held - 1);
      await stream.ended;
      // The 200,000 frames are ~25 MB of text; what stayed is within the socket buffers and the limit.
      expect(process.memoryUsage().rss - before).toBeLessThan(24 * 1024 * 1024);
      stream.close();
    });

    it('flagConfigEtag: an unreadable value is ignored and changes nothing', async () => {
      await json(base, 'POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u' } });
      const loads = t.app.snapshots.stats.loads;
      for (const value of ['', 'x', '"1.2"', '99999999999999999999.1', 'W/"x"']) {
        const res = await json(base, 'POST', `/ofrep/v1/evaluate/flags?flagConfigEtag=${encodeURIComponent(value)}`, {
          context: { targetingKey: 'u' },
        });
        expect(res.status).toBe(200);
      }
      expect(t.app.snapshots.stats.loads).toBe(loads);
    });
  });

  describe('shutdown', () => {
    it('closing the app ends every stream with a last comment', async () => {
      const t = await startTestApp(backend, STREAMS());
      const base = await listen(t);
      const streams = await Promise.all(
        ['/ofrep/v1/namespaces/default/events', '/internal/v1/evaluation/snapshot/namespace/x/events'].map((p) =>
          openSse(`${base}${p}`),
        ),
      );
      for (const s of streams) await s.until((r) => r.events.length === 1);
      expect(t.app.streams.size).toBe(2);
      const closing = t.close();
      await Promise.all(streams.map((s) => s.ended));
      await closing;
      for (const s of streams) expect(s.comments.at(-1)).toBe('closing');
      expect(t.app.streams.size).toBe(0);
    });

    it('a drain (LongLivedStreams.endAll) ends the open streams and refuses new ones at once', async () => {
      const t = await startTestApp(backend, STREAMS());
      try {
        const base = await listen(t);
        const stream = await openSse(`${base}/ofrep/v1/namespaces/default/events`);
        await stream.until((r) => r.events.length === 1);
        t.app.streams.endAll();
        await stream.ended;
        expect(stream.comments.at(-1)).toBe('closing');
        const late = await openSse(`${base}/ofrep/v1/namespaces/default/events`);
        await late.ended;
        expect(late.events).toHaveLength(0);
        expect(late.comments.at(-1)).toBe('closing');
      } finally {
        await t.close();
      }
    });
  });

  describe('settings', () => {
    it.each([
      [{ public_url: 'flags.example.com' }, 'ofrep.event_streams.public_url'],
      [{ ticket_window: '0s' }, 'ofrep.event_streams.ticket_window'],
    ])('%j stops start-up with one clear line', async (extra, key) => {
      // Checked before the database is opened: this one does not exist.
      const config = loadConfig({
        env: {},
        overrides: { ...STREAMS(extra), db: { url: 'file:/nonexistent/vexil.db' } },
      });
      await expect(buildApp(config, { logger: pino({ level: 'silent' }) })).rejects.toThrow(`invalid config at ${key}`);
    });
  });

  describe('public_url', () => {
    it('advertises a full url under it', async () => {
      const t = await startTestApp(
        backend,
        STREAMS({ public_url: 'https://flags.example.com/vexil/', inactivity_delay: '30s' }),
      );
      try {
        const res = await t.app.http.inject({ method: 'POST', url: '/ofrep/v1/evaluate/flags', payload: {} });
        expect(res.json().eventStreams).toEqual([
          {
            type: 'sse',
            url: 'https://flags.example.com/vexil/ofrep/v1/namespaces/default/events',
            inactivityDelaySec: 30,
          },
        ]);
      } finally {
        await t.close();
      }
    });
  });

  describe('flagConfigEtag (read-your-writes for a pushed change)', () => {
    // Two instances on one database; the second never polls, so only the hint can make it reload.
    let a: TestApp;
    let b: App;
    let baseA: string;
    let baseB: string;
    beforeAll(async () => {
      a = await startTestApp(backend, STREAMS());
      baseA = await listen(a);
      const config = loadConfig({
        env: {},
        overrides: {
          ...STREAMS(),
          db: { url: a.database.url },
          cache: { poll_interval: '1h' },
          log: { level: 'warn' },
        },
      });
      b = await buildApp(config, { logger: pino({ level: 'silent' }) });
      baseB = `http://127.0.0.1:${(await b.listen()).httpPort}`;
      await json(baseA, 'POST', '/api/v1/namespaces/default/flags', {
        key: 'rw',
        name: 'rw',
        type: 'BOOLEAN_FLAG_TYPE',
      });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    const valueOn = async (base: string, query = '') => {
      const res = await json(base, 'POST', `/ofrep/v1/evaluate/flags${query}`, {
        context: { targetingKey: 'u', flags: ['rw'] },
      });
      return { value: res.body.flags[0].value, revision: res.headers.get('x-vexil-revision') };
    };

    it('an instance behind the named revision reloads once, shared by concurrent requests', async () => {
      expect((await valueOn(baseB)).value).toBe(false);
      const revision = await toggle(baseA, 'rw', true);
      // Without the hint the second instance still answers from the snapshot it holds.
      expect((await valueOn(baseB)).value).toBe(false);
      const loads = b.snapshots.stats.loads;
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => valueOn(baseB, `?flagConfigEtag=${encodeURIComponent(revision)}`)),
      );
      for (const answer of answers) expect(answer).toEqual({ value: true, revision });
      expect(b.snapshots.stats.loads).toBe(loads + 1);
      // Reached: the same hint reloads nothing more.
      await valueOn(baseB, `?flagConfigEtag=${encodeURIComponent(revision)}`);
      expect(b.snapshots.stats.loads).toBe(loads + 1);
    });

    it('a revision that does not exist (yet) is reloaded for once, not on every request', async () => {
      const held = (await valueOn(baseB)).revision as string;
      const [createdAt, counter] = held.split('.');
      const future = `${createdAt}.${Number(counter) + 1000}`;
      const loads = b.snapshots.stats.loads;
      for (let i = 0; i < 5; i++) await valueOn(baseB, `?flagConfigEtag=${future}`);
      expect(b.snapshots.stats.loads).toBe(loads + 1);
    });
  });
});
