// OpenTelemetry traces of one Vexil app, exported over OTLP/HTTP; off by default (`tracing.enabled`).
// The provider, the propagator and the active-context store belong to this object, not to the OTel
// globals, so several apps in one process (tests) never share or fight over them. When tracing is off
// every helper runs its callback directly: no span, no context switch, no allocation.
//
// Spans: one per HTTP request and gRPC call (telemetry/http.ts, telemetry/grpc.ts, continuing an
// incoming W3C `traceparent`), and children for evaluations, database queries and Redis calls. The
// children are created only under a recording request span, so background jobs (revision polling,
// token cleanup) never flood the backend with root spans.
//
// The SDK, the OTLP exporter and the W3C propagator are loaded only when tracing is enabled: statically
// imported they (and the protobuf and metrics packages the exporter pulls in) would sit in the memory
// of every server, most of which never trace. Only the small @opentelemetry/api is always loaded.

import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import { ConfigError } from '../config/load.js';

export interface TracingConfig {
  enabled: boolean;
  exporter: 'otlp';
  sampling_ratio: number;
  /**
   * Flipt's tracing.propagators: an incoming traceparent is continued only with `tracecontext` in the
   * list (the default). `baggage` is accepted; Vexil makes no outbound call that would carry it.
   */
  propagators?: readonly string[];
  otlp: { endpoint: string; headers: Record<string, string> };
}

export interface TracingOptions {
  serviceName?: string;
  serviceVersion?: string;
  /** Called when an export fails, at most once a minute (the exporter never throws into requests). */
  onExportError?: (err: Error) => void;
}

/** What an evaluation span records about its result; read from the result when not given. */
export interface EvaluationSpanResult {
  reason: string;
  match?: boolean;
  variant?: string;
}

export interface EvaluationSpanAttributes {
  namespace: string;
  flag: string;
  /** 'boolean' | 'variant', when known. */
  type?: string;
}

/** Span attribute names of evaluation spans (OTel's feature_flag.* where one exists). */
export const EvaluationAttr = {
  namespace: 'vexil.namespace',
  flag: 'feature_flag.key',
  type: 'vexil.flag_type',
  reason: 'feature_flag.result.reason',
  variant: 'feature_flag.result.variant',
  match: 'vexil.match',
} as const;

const DB_SYSTEM: Record<string, string> = {
  sqlite: 'sqlite',
  postgres: 'postgresql',
  mysql: 'mysql',
  cockroachdb: 'cockroachdb',
};

/** The OTLP/HTTP traces URL for `tracing.otlp.endpoint`: a bare host:port gets http://, an empty path /v1/traces. */
export function otlpTracesUrl(endpoint: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `http://${endpoint}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigError(`invalid config at tracing.otlp.endpoint: "${endpoint}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`invalid config at tracing.otlp.endpoint: "${endpoint}" is not an http(s) URL (OTLP/HTTP)`);
  }
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces';
  return url.toString();
}

const require = createRequire(import.meta.url);

/**
 * The OpenTelemetry SDK packages, loaded on first use. They are CommonJS packages: `require` loads them
 * synchronously (so `new Tracing(...)` stays synchronous), the same instances an ES import would get.
 */
function loadSdk() {
  return {
    core: require('@opentelemetry/core') as typeof import('@opentelemetry/core'),
    exporter:
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'),
    resources: require('@opentelemetry/resources') as typeof import('@opentelemetry/resources'),
    trace: require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base'),
  };
}

function describeResult(result: unknown): EvaluationSpanResult | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { reason?: unknown; match?: unknown; enabled?: unknown; variantKey?: unknown };
  if (typeof r.reason !== 'string') return undefined;
  return {
    reason: r.reason,
    match: typeof r.match === 'boolean' ? r.match : typeof r.enabled === 'boolean' ? r.enabled : undefined,
    variant: typeof r.variantKey === 'string' && r.variantKey !== '' ? r.variantKey : undefined,
  };
}

function markFailed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.setAttribute(ATTR_ERROR_TYPE, err instanceof Error ? err.constructor.name : 'Error');
}

export class Tracing {
  readonly enabled: boolean;
  readonly #provider: BasicTracerProvider | undefined;
  readonly #tracer: Tracer | undefined;
  readonly #propagator: W3CTraceContextPropagator | undefined;
  readonly #store = new AsyncLocalStorage<Context>();

  constructor(config: TracingConfig, options: TracingOptions = {}) {
    this.enabled = config.enabled;
    if (!config.enabled) return;
    const sdk = loadSdk();
    const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk.trace;
    if ((config.propagators ?? ['tracecontext']).includes('tracecontext')) {
      this.#propagator = new sdk.core.W3CTraceContextPropagator();
    }
    const exporter = new sdk.exporter.OTLPTraceExporter({
      url: otlpTracesUrl(config.otlp.endpoint),
      headers: { ...config.otlp.headers },
    });
    if (options.onExportError) {
      // Reported at most once a minute: an unreachable collector must not flood the log.
      const onError = options.onExportError;
      let lastReport = 0;
      const exportSpans = exporter.export.bind(exporter);
      exporter.export = (spans, done) =>
        exportSpans(spans, (result) => {
          if (result.error && Date.now() - lastReport >= 60_000) {
            lastReport = Date.now();
            onError(result.error);
          }
          done(result);
        });
    }
    this.#provider = new BasicTracerProvider({
      resource: sdk.resources.resourceFromAttributes({
        [ATTR_SERVICE_NAME]: options.serviceName ?? 'vexil',
        [ATTR_SERVICE_VERSION]: options.serviceVersion ?? '',
      }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampling_ratio) }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    this.#tracer = this.#provider.getTracer('vexil', options.serviceVersion);
  }

  /** The active context of the current async flow (ROOT when none). */
  active(): Context {
    return this.#store.getStore() ?? ROOT_CONTEXT;
  }

  /** Runs `fn` with `ctx` as the active context (directly when tracing is off). */
  run<T>(ctx: Context, fn: () => T): T {
    return this.enabled ? this.#store.run(ctx, fn) : fn();
  }

  /** The remote parent carried by W3C trace-context headers (ROOT when absent or invalid). */
  extract<C>(carrier: C, getter: TextMapGetter<C> = defaultTextMapGetter as TextMapGetter<C>): Context {
    return this.#propagator ? this.#propagator.extract(ROOT_CONTEXT, carrier, getter) : ROOT_CONTEXT;
  }

  /** Starts a span under `parent` (the active context by default); a non-recording span when off. */
  startSpan(name: string, options?: SpanOptions, parent: Context = this.active()): Span {
    if (!this.#tracer) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    return this.#tracer.startSpan(name, options, parent);
  }

  /** A child span under the active request span, or undefined (tracing off, no span, not sampled). */
  #startChild(name: string, options: SpanOptions): { span: Span; parent: Context } | undefined {
    if (!this.#tracer) return undefined;
    const parent = this.#store.getStore();
    if (parent === undefined || !trace.getSpan(parent)?.isRecording()) return undefined;
    return { span: this.#tracer.startSpan(name, options, parent), parent };
  }

  /**
   * Runs one flag evaluation inside an `evaluate` span with the namespace, flag and (from the result)
   * reason, match and variant as attributes. `describe` reads them from a result of another shape.
   */
  withEvaluationSpan<T>(
    attributes: EvaluationSpanAttributes,
    evaluate: () => T,
    describe: (result: T) => EvaluationSpanResult | undefined = describeResult,
  ): T {
    if (!this.#tracer) return evaluate();
    const child = this.#startChild('evaluate', {
      kind: SpanKind.INTERNAL,
      attributes: {
        [EvaluationAttr.namespace]: attributes.namespace,
        [EvaluationAttr.flag]: attributes.flag,
        ...(attributes.type ? { [EvaluationAttr.type]: attributes.type } : {}),
      },
    });
    if (!child) return evaluate();
    const { span } = child;
    try {
      const result = evaluate();
      const outcome = describe(result);
      if (outcome) {
        span.setAttribute(EvaluationAttr.reason, outcome.reason);
        if (outcome.match !== undefined) span.setAttribute(EvaluationAttr.match, outcome.match);
        if (outcome.variant !== undefined) span.setAttribute(EvaluationAttr.variant, outcome.variant);
      }
      return result;
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * Runs one Redis command inside a `redis <COMMAND>` client span (for the Redis cache: wrap each
   * call, e.g. `tracing.withRedisSpan('GET', () => redis.get(key))`). Keys are not recorded.
   */
  withRedisSpan<T>(command: string, call: () => Promise<T>, attributes: Attributes = {}): Promise<T> {
    return this.withClientSpan(
      `redis ${command}`,
      { 'db.system.name': 'redis', [ATTR_DB_OPERATION_NAME]: command, ...attributes },
      call,
    );
  }

  /** Runs async work inside a child span of the active request span (e.g. an outgoing call). */
  async withClientSpan<T>(name: string, attributes: Attributes, call: () => Promise<T>): Promise<T> {
    const child = this.#startChild(name, { kind: SpanKind.CLIENT, attributes });
    if (!child) return call();
    const { span, parent } = child;
    try {
      return await this.#store.run(trace.setSpan(parent, span), call);
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /**
   * Records a database query that has just finished, as a child span of the active request span
   * (called from the Kysely log hook, which only learns of a query once it is done).
   */
  recordDbQuery(
    dialect: string,
    operation: string,
    table: string,
    sqlText: string,
    durationMs: number,
    error?: unknown,
  ): void {
    if (!this.#tracer) return;
    const end = Date.now();
    const child = this.#startChild(table ? `${operation} ${table}` : operation, {
      kind: SpanKind.CLIENT,
      startTime: end - durationMs,
      attributes: {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM[dialect] ?? dialect,
        [ATTR_DB_OPERATION_NAME]: operation,
        ...(table ? { [ATTR_DB_COLLECTION_NAME]: table } : {}),
        // Parameterised SQL: the values (token hashes, user input) are never part of it.
        [ATTR_DB_QUERY_TEXT]: sqlText.length > 2000 ? `${sqlText.slice(0, 2000)}…` : sqlText,
      },
    });
    if (!child) return;
    if (error !== undefined) markFailed(child.span, error);
    child.span.end(end);
  }

  /** Exports every finished span now (tests, shutdown). */
  async flush(): Promise<void> {
    await this.#provider?.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.#provider?.shutdown();
  }
}

export function createTracing(config: TracingConfig, options: TracingOptions = {}): Tracing {
  return new Tracing(config, options);
}
