// Traces end to end: the app exports over OTLP/HTTP to a small receiver started here (a plain
// node:http server on 127.0.0.1), and a request carrying a W3C `traceparent` yields spans with the
// same trace id: the HTTP (or gRPC) server span as a child of the caller's span, and database query
// and evaluation spans as its children, with the expected names and attributes.

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata } from '@grpc/grpc-js';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHttpApp } from '../../src/api/http/app.js';
import { NotFoundError } from '../../src/domain/errors.js';
import { Metrics } from '../../src/telemetry/metrics.js';
import { otlpTracesUrl, Tracing } from '../../src/telemetry/tracing.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { grpcHealthCheck } from '../helpers/grpc.js';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
  events?: { name: string }[];
};

const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 };

/** An OTLP/HTTP traces receiver: keeps every span of every export request it is sent. */
class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  readonly requests: { path: string; contentType: string; headers: Record<string, unknown> }[] = [];
  readonly #server: Server;

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const contentType = String(req.headers['content-type'] ?? '');
        this.requests.push({ path: req.url ?? '', contentType, headers: req.headers });
        if (!contentType.startsWith('application/json')) {
          // The exporter Vexil uses speaks OTLP/JSON; anything else is a test failure, said clearly.
          res.writeHead(415).end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) this.spans.push(...(ss.spans ?? []));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  ofTrace(traceId: string): OtlpSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }
}

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const value = span?.attributes?.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const DB_SYSTEM = { sqlite: 'sqlite', postgres: 'postgresql', mysql: 'mysql' } as const;

describeEachBackend('tracing', (backend) => {
  const receiver = new OtlpReceiver();
  let t: TestApp;
  let grpcPort: number;

  beforeAll(async () => {
    const endpoint = await receiver.start();
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      tracing: { enabled: true, otlp: { endpoint, headers: { 'x-collector-key': 'k-123' } } },
    });
    ({ grpcPort } = await t.app.listen());
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
  });

  it('continues the caller’s trace: HTTP server span, then query spans under it', async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const traceparent = `00-${traceId}-${callerSpanId}-01`;
    expect((await call(t.app, 'GET', '/api/v1/namespaces', undefined, { traceparent })).status).toBe(200);
    expect(
      (await call(t.app, 'POST', '/api/v1/namespaces', { key: 'traced', name: 'T' }, { traceparent })).status,
    ).toBe(200);
    await t.app.tracing.flush();

    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests.every((r) => r.path === '/v1/traces' && r.headers['x-collector-key'] === 'k-123')).toBe(
      true,
    );

    const spans = receiver.ofTrace(traceId);
    const list = spans.find((s) => s.name === 'GET /api/v1/namespaces');
    const create = spans.find((s) => s.name === 'POST /api/v1/namespaces');
    expect(list).toBeDefined();
    expect(create).toBeDefined();
    for (const [span, method] of [
      [list, 'GET'],
      [create, 'POST'],
    ] as const) {
      expect(span?.kind).toBe(SPAN_KIND.SERVER);
      expect(span?.parentSpanId).toBe(callerSpanId);
      expect(attr(span, 'http.request.method')).toBe(method);
      expect(attr(span, 'http.route')).toBe('/api/v1/namespaces');
      expect(attr(span, 'url.path')).toBe('/api/v1/namespaces');
      expect(attr(span, 'http.response.status_code')).toBe(200);
    }

    const listQueries = spans.filter((s) => s.parentSpanId === list?.spanId);
    expect(listQueries.map((s) => s.name)).toContain('select namespaces');
    const select = listQueries.find((s) => s.name === 'select namespaces');
    expect(select?.kind).toBe(SPAN_KIND.CLIENT);
    expect(attr(select, 'db.system.name')).toBe(DB_SYSTEM[backend.name]);
    expect(attr(select, 'db.operation.name')).toBe('select');
    expect(attr(select, 'db.collection.name')).toBe('namespaces');
    expect(String(attr(select, 'db.query.text'))).toMatch(/^select /i);

    const insert = spans.find((s) => s.name === 'insert namespaces');
    expect(insert?.parentSpanId).toBe(create?.spanId);
    // Parameterised SQL only: the values written never reach the trace.
    expect(String(attr(insert, 'db.query.text'))).not.toContain('traced');
  });

  it('starts a new trace for a request without traceparent, and records no orphan query spans', async () => {
    const before = new Set(receiver.spans.map((s) => s.spanId));
    expect((await call(t.app, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
    await t.app.tracing.flush();
    const fresh = receiver.spans.filter((s) => !before.has(s.spanId));
    const server = fresh.find((s) => s.name === 'GET /api/v1/namespaces/:key');
    expect(server).toBeDefined();
    expect(server?.parentSpanId ?? '').toBe('');
    expect(attr(server, 'url.path')).toBe('/api/v1/namespaces/default');
    expect(
      fresh.filter((s) => s.traceId === server?.traceId && s.parentSpanId === server?.spanId).length,
    ).toBeGreaterThan(0);
    // Every query span ever exported hangs under a request span.
    const ids = new Set(receiver.spans.map((s) => s.spanId));
    for (const s of receiver.spans.filter((x) => x.kind === SPAN_KIND.CLIENT))
      expect(ids.has(s.parentSpanId ?? '')).toBe(true);
  });

  it('names a request no route matched by its method alone, with its status and no route', async () => {
    const traceId = hex(16);
    expect(
      (await call(t.app, 'GET', '/api/no/such/thing', undefined, { traceparent: `00-${traceId}-${hex(8)}-01` })).status,
    ).toBe(404);
    await t.app.tracing.flush();
    const [span] = receiver.ofTrace(traceId);
    expect(span?.name).toBe('GET');
    expect(attr(span, 'http.response.status_code')).toBe(404);
    expect(attr(span, 'http.route')).toBeUndefined();
  });

  it('continues the trace of a gRPC call from its metadata', async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const metadata = new Metadata();
    metadata.set('traceparent', `00-${traceId}-${callerSpanId}-01`);
    await grpcHealthCheck(grpcPort, { metadata });
    await t.app.tracing.flush();
    const [span] = receiver.ofTrace(traceId);
    expect(span?.name).toBe('grpc.health.v1.Health/Check');
    expect(span?.kind).toBe(SPAN_KIND.SERVER);
    expect(span?.parentSpanId).toBe(callerSpanId);
    expect(attr(span, 'rpc.system.name')).toBe('grpc');
    expect(attr(span, 'rpc.method')).toBe('grpc.health.v1.Health/Check');
    expect(attr(span, 'rpc.grpc.status_code')).toBe(0);
  });

  it('records evaluation spans with namespace, flag and reason under the active request span', async () => {
    const { tracing } = t.app;
    const traceId = hex(16);
    const parent = tracing.extract({ traceparent: `00-${traceId}-${hex(8)}-01` });
    const request = tracing.startSpan('test request', {}, parent);
    const result = tracing.run(trace.setSpan(parent, request), () =>
      tracing.withEvaluationSpan({ namespace: 'default', flag: 'beta', type: 'variant' }, () => ({
        reason: 'MATCH_EVALUATION_REASON',
        match: true,
        variantKey: 'blue',
      })),
    );
    expect(result.variantKey).toBe('blue');
    // Outside any request span: evaluated, but no span (no orphan roots).
    expect(
      tracing.withEvaluationSpan({ namespace: 'default', flag: 'lonely' }, () => ({
        reason: 'DEFAULT_EVALUATION_REASON',
      })).reason,
    ).toBe('DEFAULT_EVALUATION_REASON');
    request.end();
    await tracing.flush();

    const spans = receiver.ofTrace(traceId);
    const evaluation = spans.find((s) => s.name === 'evaluate');
    expect(evaluation?.parentSpanId).toBe(request.spanContext().spanId);
    expect(evaluation?.kind).toBe(SPAN_KIND.INTERNAL);
    expect(attr(evaluation, 'vexil.namespace')).toBe('default');
    expect(attr(evaluation, 'feature_flag.key')).toBe('beta');
    expect(attr(evaluation, 'feature_flag.result.reason')).toBe('MATCH_EVALUATION_REASON');
    expect(attr(evaluation, 'feature_flag.result.variant')).toBe('blue');
    expect(attr(evaluation, 'vexil.match')).toBe(true);
    expect(receiver.spans.some((s) => attr(s, 'feature_flag.key') === 'lonely')).toBe(false);
  });

  it('traces the evaluation routes: request span, evaluate span with the flag and reason', async (ctx) => {
    if (!t.app.http.hasRoute({ method: 'POST', url: '/evaluate/v1/boolean' })) {
      ctx.skip('the /evaluate/v1 routes are not registered yet');
    }
    const created = await call(t.app, 'POST', '/api/v1/namespaces/default/flags', {
      key: 'traced-flag',
      name: 'T',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    expect(created.status).toBe(200);
    const traceId = hex(16);
    const res = await call(
      t.app,
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'default', flagKey: 'traced-flag', entityId: 'entity-1', context: {} },
      { traceparent: `00-${traceId}-${hex(8)}-01` },
    );
    expect(res.status).toBe(200);
    await t.app.tracing.flush();
    const spans = receiver.ofTrace(traceId);
    const server = spans.find((s) => s.name === 'POST /evaluate/v1/boolean');
    const evaluation = spans.find((s) => s.name === 'evaluate');
    expect(evaluation?.parentSpanId).toBe(server?.spanId);
    expect(attr(evaluation, 'vexil.namespace')).toBe('default');
    expect(attr(evaluation, 'feature_flag.key')).toBe('traced-flag');
    expect(attr(evaluation, 'feature_flag.result.reason')).toBe(res.body.reason);
  });

  it('traces OFREP bulk: one evaluate span per flag under the request span, all flags or those listed', async () => {
    const ns = 'traced-bulk';
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'B' })).status).toBe(200);
    for (const key of ['bulk-a', 'bulk-b', 'bulk-c']) {
      const created = await call(t.app, 'POST', `/api/v1/namespaces/${ns}/flags`, {
        key,
        name: key,
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: key !== 'bulk-b',
      });
      expect(created.status).toBe(200);
    }
    const bulk = async (context: Record<string, string>) => {
      const traceId = hex(16);
      const res = await call(
        t.app,
        'POST',
        '/ofrep/v1/evaluate/flags',
        { context },
        {
          traceparent: `00-${traceId}-${hex(8)}-01`,
          'x-flipt-namespace': ns,
        },
      );
      expect(res.status).toBe(200);
      await t.app.tracing.flush();
      const spans = receiver.ofTrace(traceId);
      const server = spans.find((s) => s.name === 'POST /ofrep/v1/evaluate/flags');
      const evaluations = spans.filter((s) => s.name === 'evaluate');
      expect(evaluations.every((e) => e.parentSpanId === server?.spanId)).toBe(true);
      expect(evaluations.every((e) => attr(e, 'vexil.namespace') === ns)).toBe(true);
      return {
        body: res.body as { flags: { key: string }[] },
        flags: evaluations.map((e) => attr(e, 'feature_flag.key')),
      };
    };
    const all = await bulk({ targetingKey: 'entity-1' });
    expect(all.body.flags.map((f) => f.key)).toEqual(['bulk-a', 'bulk-b', 'bulk-c']);
    expect(all.flags.sort()).toEqual(['bulk-a', 'bulk-b', 'bulk-c']);
    const listed = await bulk({ targetingKey: 'entity-1', flags: 'bulk-c,bulk-a' });
    expect(listed.body.flags.map((f) => f.key)).toEqual(['bulk-c', 'bulk-a']);
    expect(listed.flags.sort()).toEqual(['bulk-a', 'bulk-c']);
  });

  it('traces Redis calls made through withRedisSpan under the request span', async () => {
    const { tracing } = t.app;
    const traceId = hex(16);
    const parent = tracing.extract({ traceparent: `00-${traceId}-${hex(8)}-01` });
    const request = tracing.startSpan('test request', {}, parent);
    const value = await tracing.run(trace.setSpan(parent, request), () =>
      tracing.withRedisSpan('GET', async () => 'v'),
    );
    expect(value).toBe('v');
    request.end();
    await tracing.flush();
    const span = receiver.ofTrace(traceId).find((s) => s.name === 'redis GET');
    expect(span?.parentSpanId).toBe(request.spanContext().spanId);
    expect(attr(span, 'db.system.name')).toBe('redis');
  });
});

describe('tracing switches', () => {
  it('turns tracing.otlp.endpoint into the OTLP/HTTP traces URL, and rejects what is not one', () => {
    expect(otlpTracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl('localhost:4318')).toBe('http://localhost:4318/v1/traces');
    expect(otlpTracesUrl('https://otel.example.com/custom/path')).toBe('https://otel.example.com/custom/path');
    expect(() => otlpTracesUrl('grpc://collector:4317')).toThrow(/tracing\.otlp\.endpoint/);
    expect(() => otlpTracesUrl('http://')).toThrow(/tracing\.otlp\.endpoint/);
  });
});

describe('tracing.propagators', () => {
  it('continues an incoming traceparent only with tracecontext in the list', async () => {
    const traceId = hex(16);
    const parentSpanId = hex(8);
    const carrier = { traceparent: `00-${traceId}-${parentSpanId}-01` };
    // Nothing is exported: the collector address only has to be a URL.
    const otlp = { endpoint: 'http://127.0.0.1:9', headers: {} };
    const config = { enabled: true, exporter: 'otlp' as const, sampling_ratio: 1, otlp };
    const remoteParent = (tracing: Tracing) => trace.getSpanContext(tracing.extract(carrier));
    const withDefault = new Tracing(config);
    const withTraceContext = new Tracing({ ...config, propagators: ['tracecontext', 'baggage'] });
    const withoutIt = new Tracing({ ...config, propagators: ['baggage'] });
    const withNone = new Tracing({ ...config, propagators: ['none'] });
    try {
      expect(remoteParent(withDefault)?.spanId).toBe(parentSpanId);
      expect(remoteParent(withTraceContext)?.traceId).toBe(traceId);
      expect(remoteParent(withoutIt)).toBeUndefined();
      expect(remoteParent(withNone)).toBeUndefined();
    } finally {
      await Promise.all([withDefault, withTraceContext, withoutIt, withNone].map((t) => t.shutdown()));
    }
  });
});

describe('tracing on a bare HTTP app', () => {
  // Test-only routes (the real hooks and error handler): a failure the real routes cannot produce on demand.
  it('marks a 5xx span as an error with the exception, and a 404 answer without one', async () => {
    const receiver = new OtlpReceiver();
    const endpoint = await receiver.start();
    const tracing = new Tracing({
      enabled: true,
      exporter: 'otlp',
      sampling_ratio: 1,
      otlp: { endpoint, headers: {} },
    });
    const http = await buildHttpApp({
      bodyLimit: 1024,
      logger: false,
      version: 'test',
      telemetry: { metrics: new Metrics({ enabled: false, flagLabels: true }), tracing, evaluationLogLevel: 'debug' },
    });
    http.get('/boom', async () => {
      throw new Error('kaput');
    });
    http.get('/gone', async () => {
      throw new NotFoundError('thing "x"');
    });
    try {
      const traceId = hex(16);
      const traceparent = `00-${traceId}-${hex(8)}-01`;
      expect((await http.inject({ method: 'GET', url: '/boom', headers: { traceparent } })).statusCode).toBe(500);
      expect((await http.inject({ method: 'GET', url: '/gone', headers: { traceparent } })).statusCode).toBe(404);
      await tracing.flush();
      const boom = receiver.ofTrace(traceId).find((s) => s.name === 'GET /boom');
      const gone = receiver.ofTrace(traceId).find((s) => s.name === 'GET /gone');
      expect(boom?.status?.code).toBe(2); // ERROR
      expect(boom?.events?.map((e) => e.name)).toEqual(['exception']);
      expect(attr(boom, 'http.response.status_code')).toBe(500);
      expect(gone?.status?.code ?? 0).toBe(0); // UNSET
      expect(gone?.events ?? []).toEqual([]);
    } finally {
      await http.close();
      await tracing.shutdown();
      await receiver.close();
    }
  });
});
