// The log of a run, captured through a pino destination: one line per management request with the
// request id (taken from X-Request-Id or generated, and echoed on the response), none for successful
// evaluations and probes at the default level, stacks only for 5xx, and no token, password or
// Authorization header in any line.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHttpApp } from '../../src/api/http/app.js';
import { sendJsonText } from '../../src/api/http/evaluation-answer.js';
import type { HttpApp } from '../../src/api/http/http-app.js';
import { requestLogLevel } from '../../src/api/http/request-telemetry.js';
import { declaredRoutes, KIND_POLICIES } from '../../src/api/http/route-kinds.js';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { InvalidArgumentError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/telemetry/logger.js';
import { Metrics } from '../../src/telemetry/metrics.js';
import { Tracing } from '../../src/telemetry/tracing.js';
import { bearer, call, startTestApp } from '../helpers/app.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';

type LogLine = Record<string, unknown> & { level: number; msg?: string; requestId?: string };

/** A pino destination that keeps every line, parsed. */
function captureLines() {
  const raw: string[] = [];
  return {
    raw,
    lines: () => raw.map((l) => JSON.parse(l) as LogLine),
    destination: { write: (line: string) => void raw.push(line) },
  };
}

const requestLines = (lines: LogLine[]) => lines.filter((l) => l.msg === 'request completed');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachBackend('request logging', (backend) => {
  const bootstrapToken = `boot-${randomBytes(12).toString('hex')}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const redisPassword = `redis-${randomBytes(12).toString('hex')}`;
  const capture = captureLines();
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const config = loadConfig({
      env: {},
      overrides: {
        db: { url: database.url },
        authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: bootstrapToken } } } },
        cache: { redis: { password: redisPassword } },
      },
    });
    expect(config.log.level).toBe('info');
    app = await buildApp(config, { logger: createLogger(config.log, capture.destination) });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const asBootstrap = bearer(bootstrapToken);

  it('logs a management request once, with the incoming X-Request-Id, and echoes the id', async () => {
    const start = capture.raw.length;
    const res = await call(
      app,
      'POST',
      '/api/v1/namespaces',
      { key: 'logged', name: 'Logged' },
      { ...asBootstrap, 'x-request-id': 'req-mgmt-0001' },
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-mgmt-0001');

    const lines = requestLines(capture.lines().slice(start));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      requestId: 'req-mgmt-0001',
      method: 'POST',
      route: '/api/v1/namespaces',
      path: '/api/v1/namespaces',
      status: 200,
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
  });

  it('generates a request id when none (or an unusable one) comes in, and logs that id', async () => {
    const start = capture.raw.length;
    const plain = await call(app, 'GET', '/api/v1/namespaces/logged?reference=x', undefined, asBootstrap);
    const junk = await call(app, 'GET', '/api/v1/namespaces/logged', undefined, {
      ...asBootstrap,
      'x-request-id': 'x'.repeat(200),
    });
    for (const res of [plain, junk]) {
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
    const lines = requestLines(capture.lines().slice(start));
    expect(lines.map((l) => l.requestId)).toEqual([plain.headers['x-request-id'], junk.headers['x-request-id']]);
    expect(lines[0]).toMatchObject({ route: '/api/v1/namespaces/:key', path: '/api/v1/namespaces/logged' });
  });

  it('echoes the request id on errors, 404s and probes too', async () => {
    for (const [url, status] of [
      ['/api/v1/namespaces/nope', 404],
      ['/api/no/such/route', 404],
      ['/health', 200],
    ] as const) {
      const res = await call(app, 'GET', url, undefined, {
        ...asBootstrap,
        'x-request-id': `id-${status}-${url.length}`,
      });
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toBe(`id-${status}-${url.length}`);
    }
    const unauthenticated = await call(app, 'GET', '/api/v1/namespaces', undefined, { 'x-request-id': 'id-401' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['x-request-id']).toBe('id-401');
  });

  it('logs failures by status (401 at warn, other 4xx at info) and successful probes not at all at info', async () => {
    const start = capture.raw.length;
    await call(app, 'GET', '/health', undefined, { 'x-request-id': 'probe-1' });
    await call(app, 'GET', '/metrics', undefined, { 'x-request-id': 'probe-2' });
    await call(app, 'GET', '/api/v1/namespaces', undefined, { 'x-request-id': 'unauth-1' });
    await call(app, 'GET', '/api/v1/namespaces/nope', undefined, { ...asBootstrap, 'x-request-id': 'missing-1' });
    const lines = requestLines(capture.lines().slice(start));
    expect(lines.map((l) => [l.requestId, l.level, l.status])).toEqual([
      ['unauth-1', 40, 401],
      ['missing-1', 30, 404],
    ]);
    expect(lines.every((l) => l.err === undefined && l.stack === undefined)).toBe(true);
  });

  it('logs no successful evaluation request at the default level', async (ctx) => {
    if (!app.http.hasRoute({ method: 'POST', url: '/evaluate/v1/boolean' })) {
      ctx.skip('the /evaluate/v1 routes are not registered yet');
    }
    const flag = await call(
      app,
      'POST',
      '/api/v1/namespaces/default/flags',
      { key: 'log-flag', name: 'F', type: 'BOOLEAN_FLAG_TYPE', enabled: true },
      asBootstrap,
    );
    expect(flag.status).toBe(200);
    const start = capture.raw.length;
    const res = await call(
      app,
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'default', flagKey: 'log-flag', entityId: 'entity-7781', context: {} },
      { ...asBootstrap, 'x-request-id': 'eval-1' },
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('eval-1');
    const missing = await call(
      app,
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'default', flagKey: 'no-such-flag', entityId: 'entity-7781', context: {} },
      { ...asBootstrap, 'x-request-id': 'eval-2' },
    );
    expect(missing.status).toBe(404);
    const lines = requestLines(capture.lines().slice(start));
    expect(lines.map((l) => [l.requestId, l.status])).toEqual([['eval-2', 404]]);
  });

  it('never writes a token, a password or an Authorization header', async () => {
    const created = await call(
      app,
      'POST',
      '/auth/v1/method/token',
      { name: 'ci', description: 'for the log test' },
      asBootstrap,
    );
    expect(created.status).toBe(200);
    const clientToken = created.body.clientToken as string;
    expect(clientToken.length).toBeGreaterThan(8);
    expect((await call(app, 'GET', '/api/v1/namespaces', undefined, bearer(clientToken))).status).toBe(200);
    const basic = Buffer.from(`admin:${password}`).toString('base64');
    expect((await call(app, 'GET', '/api/v1/namespaces', undefined, { authorization: `Basic ${basic}` })).status).toBe(
      401,
    );
    await call(
      app,
      'POST',
      '/api/v1/namespaces',
      { key: 'pw', name: 'P', password, token: clientToken },
      bearer(clientToken),
    );
    await call(app, 'GET', '/api/v1/namespaces', undefined, bearer(`not-a-token-${password}`));
    await call(app, 'GET', '/meta/config', undefined, asBootstrap);

    expect(requestLines(capture.lines()).length).toBeGreaterThan(10);
    const all = capture.raw.join('');
    for (const secret of [bootstrapToken, clientToken, password, redisPassword, basic])
      expect(all).not.toContain(secret);
    // No line carries request headers at all (redaction is the second line of defence).
    expect(capture.lines().filter((l) => 'headers' in l || 'req' in l)).toEqual([]);
  });
});

describe('request log levels', () => {
  it('treats evaluation APIs and probes as quiet routes, everything else as management', async () => {
    // Each route's log class follows from the kind it declares (route-kinds.ts).
    const t = await startTestApp({ name: 'sqlite' });
    try {
      const routes = declaredRoutes(t.app.http);
      const logClass = (url: string) => {
        const route = routes.find((r) => r.url === url);
        expect(route?.kind, url).toBeDefined();
        return KIND_POLICIES[route?.kind ?? 'ui'].log;
      };
      for (const route of [
        '/evaluate/v1/boolean',
        '/evaluate/v1/batch',
        '/ofrep/v1/evaluate/flags/:key',
        '/internal/v1/evaluation/snapshot/namespace/:key',
        '/api/v1/evaluate',
        '/api/v1/batch-evaluate',
      ]) {
        expect(logClass(route), route).toBe('evaluation');
      }
      expect(logClass('/health')).toBe('probe');
      expect(logClass('/metrics')).toBe('probe');
      for (const route of ['/api/v1/namespaces', '/auth/v1/tokens', '/meta/info']) {
        expect(logClass(route), route).toBe('other');
      }
    } finally {
      await t.close();
    }
  });

  it('logs successes by kind and failures by status', () => {
    expect(requestLogLevel('evaluation', 200, 'debug')).toBe('debug');
    expect(requestLogLevel('evaluation', 304, 'trace')).toBe('trace');
    expect(requestLogLevel('evaluation', 200, 'info')).toBe('info');
    expect(requestLogLevel('probe', 200, 'info')).toBe('debug');
    expect(requestLogLevel('other', 200, 'debug')).toBe('info');
    expect(requestLogLevel('evaluation', 400, 'debug')).toBe('info');
    expect(requestLogLevel('evaluation', 401, 'debug')).toBe('warn');
    expect(requestLogLevel('other', 403, 'debug')).toBe('warn');
    expect(requestLogLevel('evaluation', 500, 'debug')).toBe('error');
    expect(requestLogLevel('probe', 503, 'debug')).toBe('warn');
    expect(requestLogLevel('other', 503, 'debug')).toBe('warn');
  });
});

describe('request logging on a bare HTTP app', () => {
  // Test-only routes on an app built by buildHttpApp (the real hooks and error handler), for what the
  // real routes cannot produce on demand: a 5xx, and an evaluation route under a chosen log level.
  async function bareApp(level: 'info' | 'debug') {
    const capture = captureLines();
    const http: HttpApp = await buildHttpApp({
      bodyLimit: 1024,
      logger: createLogger({ level, encoding: 'json' }, capture.destination),
      version: 'test',
      telemetry: {
        metrics: new Metrics({ enabled: true, flagLabels: true }),
        tracing: new Tracing({
          enabled: false,
          exporter: 'otlp',
          sampling_ratio: 1,
          otlp: { endpoint: '', headers: {} },
        }),
        evaluationLogLevel: 'debug',
      },
    });
    http.get('/boom', async () => {
      throw new Error('kaput');
    });
    http.get('/bad', async () => {
      throw new InvalidArgumentError('bad input');
    });
    // An evaluation API whose answers the framework writes, as the legacy evaluation routes.
    const evaluationApi = { config: { kind: 'legacy-evaluation' as const } };
    http.post('/evaluate/v1/test-only', evaluationApi, async () => ({ ok: true }));
    http.post('/evaluate/v1/test-only-fails', evaluationApi, async () => {
      throw new InvalidArgumentError('bad context');
    });
    // Like the real evaluation routes: they send JSON text and are recorded as they send (onSend).
    const sendsText = { config: { kind: 'evaluation' as const } };
    http.post('/evaluate/v1/sends-text', sendsText, (_request, reply) => sendJsonText(reply, '{"ok":true}'));
    http.post('/evaluate/v1/sends-text-fails', sendsText, async () => {
      throw new InvalidArgumentError('bad context');
    });
    await http.ready();
    return { http, capture };
  }

  it('writes a stack only for 5xx', async () => {
    const { http, capture } = await bareApp('info');
    try {
      expect(
        (await http.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'boom-1' } })).statusCode,
      ).toBe(500);
      expect((await http.inject({ method: 'GET', url: '/bad', headers: { 'x-request-id': 'bad-1' } })).statusCode).toBe(
        400,
      );
      const lines = capture.lines();
      const boom = lines.filter((l) => l.requestId === 'boom-1');
      const bad = lines.filter((l) => l.requestId === 'bad-1');
      expect(boom.some((l) => typeof (l.err as { stack?: unknown } | undefined)?.stack === 'string')).toBe(true);
      expect(requestLines(boom)).toEqual([expect.objectContaining({ level: 50, status: 500, route: '/boom' })]);
      expect(bad).toEqual([
        expect.objectContaining({ msg: 'request completed', level: 30, status: 400, route: '/bad' }),
      ]);
      expect(JSON.stringify(bad)).not.toContain('"stack"');
    } finally {
      await http.close();
    }
  });

  it('logs successful evaluations at log.evaluation_level only, failed ones at info', async () => {
    for (const level of ['info', 'debug'] as const) {
      const { http, capture } = await bareApp(level);
      try {
        for (let i = 0; i < 3; i++) {
          const ok = await http.inject({
            method: 'POST',
            url: '/evaluate/v1/test-only',
            payload: '{}',
            headers: { 'x-request-id': `ok-${i}` },
          });
          expect(ok.statusCode).toBe(200);
          expect(ok.headers['x-request-id']).toBe(`ok-${i}`);
        }
        await http.inject({
          method: 'POST',
          url: '/evaluate/v1/test-only-fails',
          payload: '{}',
          headers: { 'x-request-id': 'fail-1' },
        });
        const lines = requestLines(capture.lines());
        const expected = level === 'info' ? ['fail-1'] : ['ok-0', 'ok-1', 'ok-2', 'fail-1'];
        expect(lines.map((l) => l.requestId)).toEqual(expected);
        expect(lines.find((l) => l.requestId === 'fail-1')?.level).toBe(30);
        if (level === 'debug') expect(lines.find((l) => l.requestId === 'ok-0')?.level).toBe(20);
      } finally {
        await http.close();
      }
    }
  });

  it('logs and counts routes that send their own JSON text as they send, with the request id', async () => {
    const { http, capture } = await bareApp('debug');
    const post = (url: string, requestId: string) =>
      http.inject({ method: 'POST', url, payload: '{}', headers: { 'x-request-id': requestId } });
    try {
      const ok = await post('/evaluate/v1/sends-text?pretty', 'sent-1');
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-request-id']).toBe('sent-1');
      expect(ok.body).toBe('{\n  "ok": true\n}');
      const failed = await post('/evaluate/v1/sends-text-fails', 'sent-2');
      expect(failed.statusCode).toBe(400);
      expect(failed.headers['x-request-id']).toBe('sent-2');
      const lines = requestLines(capture.lines());
      expect(lines).toEqual([
        expect.objectContaining({
          level: 20,
          requestId: 'sent-1',
          method: 'POST',
          route: '/evaluate/v1/sends-text',
          path: '/evaluate/v1/sends-text',
          status: 200,
          durationMs: expect.any(Number),
        }),
        expect.objectContaining({
          level: 30,
          requestId: 'sent-2',
          route: '/evaluate/v1/sends-text-fails',
          status: 400,
        }),
      ]);
      expect(lines[0]?.durationMs).toBeGreaterThan(0);
      const text = await http.metrics.render();
      expect(text).toContain('vexil_http_requests_total{method="POST",route="/evaluate/v1/sends-text",status="200"} 1');
      expect(text).toContain(
        'vexil_http_requests_total{method="POST",route="/evaluate/v1/sends-text-fails",status="400"} 1',
      );
    } finally {
      await http.close();
    }
  });

  it('counts the test-only requests under their route templates', async () => {
    const { http } = await bareApp('info');
    try {
      await http.inject({ method: 'POST', url: '/evaluate/v1/test-only', payload: '{}' });
      const text = await http.metrics.render();
      expect(text).toContain('vexil_http_requests_total{method="POST",route="/evaluate/v1/test-only",status="200"} 1');
    } finally {
      await http.close();
    }
  });
});
