// Stream tickets (issue 29): with authentication required, OFREP bulk answers advertise their stream
// with a ticket instead of the bearer token. A ticket opens only its namespace's stream, works on no
// other route, is the same through one window, changes the bulk ETag when the window rolls over, is
// refused once its window and the next have passed or its token is gone or expired, and is never
// logged. Streams end when their token is deleted or expires. Per backend, on a listening server.

import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { hashClientToken } from '../../src/auth/client-token.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { openSse } from '../helpers/sse.js';

const BOOT = 'bootstrap-secret-token-for-streams';
const settings = (extra: Record<string, unknown> = {}) => ({
  server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
  authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
  cache: { poll_interval: '200ms' },
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
  return { status: res.status, headers: res.headers, text, body: (text ? JSON.parse(text) : undefined) as any };
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function createToken(base: string, name: string, expiresAt?: Date): Promise<{ token: string; id: string }> {
  const res = await json(
    base,
    'POST',
    '/auth/v1/method/token',
    { name, ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) },
    auth(BOOT),
  );
  expect(res.status).toBe(200);
  return { token: res.body.clientToken, id: res.body.authentication.id };
}

async function bulk(base: string, token: string, ns = 'default', headers: Record<string, string> = {}) {
  return json(
    base,
    'POST',
    '/ofrep/v1/evaluate/flags',
    { context: { targetingKey: 'u' } },
    {
      ...auth(token),
      'x-service-namespace': ns,
      ...headers,
    },
  );
}

/** The advertised stream address of a bulk answer. */
function streamUri(answer: { body: { eventStreams: { endpoint: { requestUri: string } }[] } }): string {
  return answer.body.eventStreams[0]?.endpoint.requestUri as string;
}

function ticketOf(uri: string): string {
  return new URL(uri, 'http://x').searchParams.get('ticket') as string;
}

describeEachBackend('stream tickets', (backend) => {
  let t: TestApp;
  let base: string;
  let reader: { token: string; id: string };

  beforeAll(async () => {
    t = await startTestApp(backend, settings());
    base = `http://127.0.0.1:${(await t.app.listen()).httpPort}`;
    await json(base, 'POST', '/api/v1/namespaces', { key: 'team-b', name: 'team-b' }, auth(BOOT));
    reader = await createToken(base, 'reader');
  });
  afterAll(async () => t?.close());

  it('the advertised address carries a ticket, never the bearer token, the same for every answer of a window', async () => {
    const first = await bulk(base, reader.token);
    const second = await bulk(base, reader.token);
    expect(first.status).toBe(200);
    const uri = streamUri(first);
    expect(uri).toMatch(/^\/ofrep\/v1\/namespaces\/default\/events\?ticket=v1\.[^&]+$/);
    expect(first.text).not.toContain(reader.token);
    expect(first.text).not.toContain(encodeURIComponent(reader.token));
    expect(streamUri(second)).toBe(uri);
    // Another token gets another ticket; another namespace another one too.
    const other = await createToken(base, 'other');
    expect(streamUri(await bulk(base, other.token))).not.toBe(uri);
    expect(ticketOf(streamUri(await bulk(base, reader.token, 'team-b')))).not.toBe(ticketOf(uri));
  });

  it('a ticket opens its namespace stream without any header (as EventSource does)', async () => {
    const stream = await openSse(`${base}${streamUri(await bulk(base, reader.token))}`);
    try {
      expect(stream.status).toBe(200);
      await stream.until((s) => s.events.length === 1);
      const write = await json(
        base,
        'PUT',
        '/api/v1/namespaces/default',
        { name: 'Default', description: 'x' },
        auth(BOOT),
      );
      expect(write.status).toBe(200);
      await stream.until((s) => s.events.length === 2);
      expect(stream.events[1]?.id).toBe(write.headers.get('x-vexil-revision'));
    } finally {
      stream.close();
    }
  });

  it("a ticket for one namespace opens no other namespace's stream and works on no other route", async () => {
    const ticket = ticketOf(streamUri(await bulk(base, reader.token, 'default')));
    const q = `ticket=${encodeURIComponent(ticket)}`;
    const refused = [
      ['GET', `/ofrep/v1/namespaces/team-b/events?${q}`],
      ['GET', `/internal/v1/evaluation/snapshot/namespace/default/events?${q}`],
      ['POST', `/ofrep/v1/evaluate/flags?${q}`],
      ['POST', `/ofrep/v1/evaluate/flags/some-flag?${q}`],
      ['GET', `/ofrep/v1/configuration?${q}`],
      ['GET', `/api/v1/namespaces?${q}`],
      ['GET', `/api/v1/namespaces/default/flags?${q}`],
      ['GET', `/internal/v1/evaluation/snapshot/namespace/default?${q}`],
      ['POST', `/evaluate/v1/boolean?${q}`],
      ['GET', `/auth/v1/self?${q}`],
    ] as const;
    for (const [method, path] of refused) {
      const res = await json(base, method, path, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    // The OFREP stream's refusal has OFREP's error body.
    const res = await json(base, 'GET', `/ofrep/v1/namespaces/team-b/events?${q}`);
    expect(res.body).toMatchObject({ errorCode: 'GENERAL' });
  });

  it('a forged, altered or expired ticket is refused', async () => {
    const ticket = ticketOf(streamUri(await bulk(base, reader.token)));
    const tickets = t.app.eventStreams?.tickets;
    if (tickets === undefined) throw new Error('tickets expected');
    const hash = hashClientToken(reader.token);
    const window = tickets.currentWindow();
    const open = (ticketText: string) =>
      fetch(`${base}/ofrep/v1/namespaces/default/events?ticket=${encodeURIComponent(ticketText)}`).then(async (r) => {
        const status = r.status;
        await r.body?.cancel();
        return status;
      });
    const parts = ticket.split('.');
    const altered = [
      ...parts.slice(0, 3),
      `${(parts[3] as string).slice(0, -1)}${parts[3]?.endsWith('A') ? 'B' : 'A'}`,
    ];
    expect(await open(altered.join('.'))).toBe(401);
    expect(await open('v1.not-a-token.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(401);
    expect(await open(reader.token)).toBe(401);
    // Accepted until the end of the next window; not after.
    expect(await open(tickets.issue(reader.id, hash, 'default', window - 1))).toBe(200);
    expect(await open(tickets.issue(reader.id, hash, 'default', window - 2))).toBe(401);
    expect(await open(tickets.issue(reader.id, hash, 'default', window + 5))).toBe(401);
    // Signed with another key (as a token's hash it is not): refused.
    expect(await open(tickets.issue(reader.id, hashClientToken('guess'), 'default', window))).toBe(401);
  });

  it('the bearer token opens both streams too; no credential opens none', async () => {
    for (const path of [
      '/ofrep/v1/namespaces/default/events',
      '/internal/v1/evaluation/snapshot/namespace/default/events',
    ]) {
      const withToken = await openSse(`${base}${path}`, auth(reader.token));
      expect(withToken.status).toBe(200);
      withToken.close();
      const without = await json(base, 'GET', path);
      expect(without.status).toBe(401);
    }
  });

  it('deleting the token refuses its tickets and ends its open streams', async () => {
    const doomed = await createToken(base, 'doomed');
    const uri = streamUri(await bulk(base, doomed.token));
    const byTicket = await openSse(`${base}${uri}`);
    const byBearer = await openSse(
      `${base}/internal/v1/evaluation/snapshot/namespace/default/events`,
      auth(doomed.token),
    );
    await byTicket.until((s) => s.events.length === 1);
    await byBearer.until((s) => s.events.length === 1);
    expect((await json(base, 'DELETE', `/auth/v1/tokens/${doomed.id}`, undefined, auth(BOOT))).status).toBe(200);
    await Promise.all([byTicket.ended, byBearer.ended]);
    expect(byTicket.comments.at(-1)).toBe('closing');
    expect((await json(base, 'GET', uri)).status).toBe(401);
  });

  it('a stream ends when its token expires, and its ticket is refused from then on', async () => {
    const brief = await createToken(base, 'brief', new Date(Date.now() + 1500));
    const uri = streamUri(await bulk(base, brief.token));
    const stream = await openSse(`${base}${uri}`);
    expect(stream.status).toBe(200);
    await stream.ended;
    expect((await json(base, 'GET', uri)).status).toBe(401);
  });
});

describeEachBackend('stream tickets: windows', (backend) => {
  it('the window is part of the bulk ETag: after it rolls over, a 200 with the new address, not a 304', async () => {
    const t = await startTestApp(backend, settings({ ticket_window: '2s' }));
    try {
      const base = `http://127.0.0.1:${(await t.app.listen()).httpPort}`;
      const { token } = await createToken(base, 'w');
      const tickets = t.app.eventStreams?.tickets;
      // Start right after a window begins, so the two requests below fall in one window.
      const window = tickets?.currentWindow() ?? 0;
      while ((tickets?.currentWindow() ?? 0) === window) await new Promise((r) => setTimeout(r, 20));
      const first = await bulk(base, token);
      const etag = first.headers.get('etag') as string;
      expect((await bulk(base, token, 'default', { 'if-none-match': etag })).status).toBe(304);
      const rolled = tickets?.currentWindow() ?? 0;
      while ((tickets?.currentWindow() ?? 0) === rolled) await new Promise((r) => setTimeout(r, 50));
      const after = await bulk(base, token, 'default', { 'if-none-match': etag });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(etag);
      expect(streamUri(after)).not.toBe(streamUri(first));
    } finally {
      await t.close();
    }
  });

  it('tickets never reach the log, at any level', async () => {
    const { createTestDatabase } = await import('../helpers/backends.js');
    const database = await createTestDatabase(backend);
    let log = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        log += chunk.toString();
        done();
      },
    });
    const config = loadConfig({
      env: {},
      overrides: { ...settings(), db: { url: database.url }, log: { level: 'trace' } },
    });
    const app = await buildApp(config, { logger: pino({ level: 'trace' }, sink) });
    try {
      const base = `http://127.0.0.1:${(await app.listen()).httpPort}`;
      const { token } = await createToken(base, 'logged');
      const uri = streamUri(await bulk(base, token));
      const ticket = ticketOf(uri);
      const stream = await openSse(`${base}${uri}`);
      await stream.until((s) => s.events.length === 1);
      stream.close();
      expect(
        (await json(base, 'GET', `/ofrep/v1/namespaces/team-x/events?ticket=${encodeURIComponent(ticket)}`)).status,
      ).toBe(401);
      await new Promise((r) => setTimeout(r, 100));
      expect(log.length).toBeGreaterThan(0);
      expect(log).not.toContain(ticket);
      expect(log).not.toContain(ticket.split('.')[3]);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
