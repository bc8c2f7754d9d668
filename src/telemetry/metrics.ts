// Prometheus metrics of one Vexil app (served at GET /metrics). Each app owns its own prom-client
// Registry, so several apps in one process (tests) never collide. The methods below are the whole API
// the rest of the program records through; label sets stay bounded: route templates (never raw paths),
// gRPC method paths, namespace and flag keys of existing flags, bounded kinds — never entity ids,
// resource ids or tokens. Every method is a cheap no-op when `metrics.enabled` is false.

import { collectDefaultMetrics, type Metric, Registry } from 'prom-client';
import { DomainError, GrpcCode } from '../domain/errors.js';
import {
  CounterFamily,
  type CounterSeries,
  GaugeFamily,
  HistogramFamily,
  type HistogramSeries,
  SeriesIndex,
} from './metric-families.js';

export interface MetricsOptions {
  enabled: boolean;
  /** Per-flag labels on evaluation metrics; off for installations with very many flags. */
  flagLabels: boolean;
}

/** One evaluated flag. `namespace` and `flag` must name an existing flag (not raw client input). */
export interface EvaluationLabels {
  namespace: string;
  flag: string;
  /** 'boolean' | 'variant' (the flag's type). */
  type: string;
  /** Flipt's reason enum name, e.g. MATCH_EVALUATION_REASON. */
  reason: string;
  match: boolean;
}

/**
 * Why an evaluation failed, as a bounded kind. Failed evaluations name arbitrary client input (any
 * namespace or flag key), so they carry no key labels at all.
 */
export type EvaluationErrorKind =
  | 'flag_not_found'
  | 'namespace_not_found'
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'unavailable'
  | 'internal';

/** Database operation labels: one of a few verbs, and a schema table (or '' when none). */
export type DbOperation = 'select' | 'insert' | 'update' | 'delete' | 'merge' | 'ddl' | 'other';

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** One flag evaluation takes microseconds; these buckets resolve that range. */
const EVALUATION_BUCKETS = [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01];
const DB_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** How one run of a background job ended (app/jobs): skipped when another instance holds its lease. */
export type JobRunResult = 'ok' | 'error' | 'skipped';

/** Records one request of a route (Metrics.httpRequestRecorder): its method, status and duration. */
export type HttpRequestRecorder = (method: string, status: number, seconds: number) => void;

export class Metrics {
  readonly enabled: boolean;
  readonly flagLabels: boolean;
  readonly registry: Registry;

  /** route → method → status: the request counter and latency series of one combination. */
  readonly #httpSeries: SeriesIndex<{ requests: CounterSeries; duration: HistogramSeries }>;
  readonly #httpRequests: CounterFamily;
  readonly #httpDuration: HistogramFamily;
  readonly #grpcRequests: CounterFamily;
  readonly #grpcDuration: HistogramFamily;
  readonly #evaluations: CounterFamily;
  readonly #evaluationDuration: HistogramFamily;
  readonly #evaluationErrors: CounterFamily;
  readonly #cacheHits: CounterFamily;
  readonly #cacheMisses: CounterFamily;
  readonly #cacheInvalidations: CounterFamily;
  readonly #dbQueries: CounterFamily;
  readonly #dbDuration: HistogramFamily;
  readonly #dbErrors: CounterFamily;
  readonly #snapshotCompilations: CounterFamily;
  readonly #snapshotDuration: HistogramFamily;
  readonly #tokensDeleted: CounterFamily;
  readonly #auditWebhookDeliveries: CounterFamily;
  readonly #auditDeliveryLag: GaugeFamily;
  readonly #changesRecorded: CounterFamily;
  readonly #jobRuns: CounterFamily;
  readonly #jobLastRun: GaugeFamily;

  constructor(options: MetricsOptions) {
    this.enabled = options.enabled;
    this.flagLabels = options.flagLabels;
    this.registry = new Registry();
    if (this.enabled) collectDefaultMetrics({ register: this.registry });

    const counter = (name: string, help: string, labelNames: readonly string[] = []) =>
      this.#register(new CounterFamily(name, help, labelNames));
    const histogram = (name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) =>
      this.#register(new HistogramFamily(name, help, labelNames, buckets));

    this.#httpRequests = counter(
      'vexil_http_requests_total',
      'HTTP requests by method, route template and status code',
      ['method', 'route', 'status'],
    );
    this.#httpDuration = histogram(
      'vexil_http_request_duration_seconds',
      'HTTP request latency by method and route template',
      ['method', 'route'],
      HTTP_BUCKETS,
    );
    this.#httpSeries = new SeriesIndex(3, ([route = '', method = '', status = '']) => ({
      requests: this.#httpRequests.index.get(method, route, status),
      duration: this.#httpDuration.index.get(method, route),
    }));
    this.#grpcRequests = counter('vexil_grpc_requests_total', 'gRPC calls by full method name and status code', [
      'method',
      'code',
    ]);
    this.#grpcDuration = histogram(
      'vexil_grpc_request_duration_seconds',
      'gRPC call latency by full method name (streams: their lifetime)',
      ['method'],
      HTTP_BUCKETS,
    );
    this.#evaluations = counter(
      'vexil_evaluations_total',
      'Flag evaluations by namespace, flag, flag type, reason and match',
      this.flagLabels ? ['namespace', 'flag', 'type', 'reason', 'match'] : ['namespace', 'type', 'reason', 'match'],
    );
    this.#evaluationDuration = histogram(
      'vexil_evaluation_duration_seconds',
      'Time one flag evaluation took, by namespace and flag type',
      ['namespace', 'type'],
      EVALUATION_BUCKETS,
    );
    this.#evaluationErrors = counter('vexil_evaluation_errors_total', 'Evaluations that failed, by kind of error', [
      'kind',
    ]);
    this.#cacheHits = counter('vexil_cache_hits_total', 'Cache hits by cache', ['cache']);
    this.#cacheMisses = counter('vexil_cache_misses_total', 'Cache misses by cache', ['cache']);
    this.#cacheInvalidations = counter(
      'vexil_cache_invalidations_total',
      'Cache entries invalidated (writes here or on other instances), by cache',
      ['cache'],
    );
    this.#dbQueries = counter('vexil_db_queries_total', 'Database queries by operation and table', [
      'operation',
      'table',
    ]);
    this.#dbDuration = histogram(
      'vexil_db_query_duration_seconds',
      'Database query latency by operation and table',
      ['operation', 'table'],
      DB_BUCKETS,
    );
    this.#dbErrors = counter('vexil_db_query_errors_total', 'Database queries that failed, by operation and table', [
      'operation',
      'table',
    ]);
    this.#snapshotCompilations = counter(
      'vexil_snapshot_compilations_total',
      'Namespace snapshots compiled from the database, by namespace',
      ['namespace'],
    );
    this.#snapshotDuration = histogram(
      'vexil_snapshot_compile_duration_seconds',
      'Time to read and compile one namespace snapshot',
      [],
      DB_BUCKETS,
    );
    this.#tokensDeleted = counter(
      'vexil_auth_expired_tokens_deleted_total',
      'Expired authentication tokens deleted by the cleanup job',
    );
    this.#auditWebhookDeliveries = counter(
      'vexil_audit_webhook_deliveries_total',
      'Audit events sent to a webhook, by sink and result (delivered, retry, rejected, invalid)',
      ['sink', 'result'],
    );
    this.#auditDeliveryLag = this.#register(
      new GaugeFamily(
        'vexil_audit_delivery_lag_seconds',
        'Age of the oldest recorded change an audit sink has not delivered yet (0 when none), by sink',
        ['sink'],
      ),
    );
    this.#changesRecorded = counter(
      'vexil_changes_recorded_total',
      'Changes recorded in the change log (committed writes), by resource type and action',
      ['resource_type', 'action'],
    );
    this.#jobRuns = counter(
      'vexil_job_runs_total',
      'Runs of the background jobs, by job and result (ok, error, skipped: another instance held the lease)',
      ['job', 'result'],
    );
    this.#jobLastRun = this.#register(
      new GaugeFamily(
        'vexil_job_last_run_timestamp_seconds',
        'When the job last ran on this instance (ok or error, not skipped), in Unix seconds, by job',
        ['job'],
      ),
    );
  }

  #register<F extends CounterFamily | HistogramFamily>(family: F): F {
    // The Registry only needs name, help, type and get(); it renders our families like its own.
    this.registry.registerMetric(family as unknown as Metric);
    return family;
  }

  /**
   * Records the HTTP requests of one route, `route` being its template (request.routeOptions.url) or
   * 'unmatched'. Made once per route: it keeps the series of the method and status it recorded last,
   * so the requests of a route that answers alike (evaluations: 200) look nothing up.
   */
  httpRequestRecorder(route: string): HttpRequestRecorder {
    if (!this.enabled) return () => {};
    let lastMethod = '';
    let lastStatus = -1;
    let last: { requests: CounterSeries; duration: HistogramSeries } | undefined;
    return (method, status, seconds) => {
      if (last === undefined || status !== lastStatus || method !== lastMethod) {
        last = this.#httpSeries.get(route, method, statusLabel(status));
        lastMethod = method;
        lastStatus = status;
      }
      last.requests.value += 1;
      this.#httpDuration.observe(last.duration, seconds);
    };
  }

  /** One gRPC call; `method` is the full path (/package.Service/Method), `code` the status name. */
  recordGrpcRequest(method: string, code: string, seconds: number): void {
    if (!this.enabled) return;
    this.#grpcRequests.index.get(method, code).value += 1;
    this.#grpcDuration.observe(this.#grpcDuration.index.get(method), seconds);
  }

  /**
   * The evaluation counter of one label set, to count into directly (`.value += 1`): callers that
   * see the same label set again and again (one per shared engine result) keep it instead of
   * finding it through the labels on every evaluation. Undefined when metrics are off.
   */
  evaluationCounter(labels: EvaluationLabels): { value: number } | undefined {
    if (!this.enabled) return undefined;
    const match = labels.match ? 'true' : 'false';
    return this.flagLabels
      ? this.#evaluations.index.get(labels.namespace, labels.flag, labels.type, labels.reason, match)
      : this.#evaluations.index.get(labels.namespace, labels.type, labels.reason, match);
  }

  /** One flag evaluated; `seconds` (optional) is the time the evaluation itself took. */
  recordEvaluation(labels: EvaluationLabels, seconds?: number): void {
    const series = this.evaluationCounter(labels);
    if (series === undefined) return;
    series.value += 1;
    if (seconds !== undefined) {
      this.#evaluationDuration.observe(this.#evaluationDuration.index.get(labels.namespace, labels.type), seconds);
    }
  }

  /** One evaluation that failed (a batch item that errored counts once). */
  evaluationError(kind: EvaluationErrorKind, count = 1): void {
    if (this.enabled && count > 0) this.#evaluationErrors.index.get(kind).value += count;
  }

  /** `cache` names the cache in code ('snapshot', 'auth', …), never a key. */
  cacheHit(cache: string): void {
    if (this.enabled) this.#cacheHits.index.get(cache).value += 1;
  }

  cacheMiss(cache: string): void {
    if (this.enabled) this.#cacheMisses.index.get(cache).value += 1;
  }

  cacheInvalidation(cache: string, count = 1): void {
    if (this.enabled && count > 0) this.#cacheInvalidations.index.get(cache).value += count;
  }

  /** One database query (recorded by the Kysely log hook in telemetry/db.ts). */
  recordDbQuery(operation: DbOperation, table: string, seconds: number, failed: boolean): void {
    if (!this.enabled) return;
    this.#dbQueries.index.get(operation, table).value += 1;
    this.#dbDuration.observe(this.#dbDuration.index.get(operation, table), seconds);
    if (failed) this.#dbErrors.index.get(operation, table).value += 1;
  }

  /** One namespace snapshot compiled; `seconds` (optional) is how long reading and compiling took. */
  snapshotCompiled(namespace: string, seconds?: number): void {
    if (!this.enabled) return;
    this.#snapshotCompilations.index.get(namespace).value += 1;
    if (seconds !== undefined) this.#snapshotDuration.observe(this.#snapshotDuration.index.get(''), seconds);
  }

  /** Expired tokens deleted by one run of the cleanup job. */
  tokensDeleted(count: number): void {
    if (this.enabled && count > 0) this.#tokensDeleted.index.get('').value += count;
  }

  /** One attempt to send an audit event to a webhook sink (`sink` names a configured sink). */
  auditWebhookDelivery(sink: string, result: string): void {
    if (this.enabled) this.#auditWebhookDeliveries.index.get(sink, result).value += 1;
  }

  /** How long the oldest change the audit sink has not delivered has waited. */
  auditDeliveryLag(sink: string, seconds: number): void {
    if (this.enabled) this.#auditDeliveryLag.index.get(sink).value = seconds;
  }

  /** Changes a committed write recorded. */
  changesRecorded(changes: readonly { resourceType: string; action: string }[]): void {
    if (!this.enabled) return;
    for (const c of changes) this.#changesRecorded.index.get(c.resourceType, c.action).value += 1;
  }

  /** One run of a background job ended at `endedAtMs` (Unix milliseconds). */
  jobRun(job: string, result: JobRunResult, endedAtMs: number): void {
    if (!this.enabled) return;
    this.#jobRuns.index.get(job, result).value += 1;
    if (result !== 'skipped') this.#jobLastRun.index.get(job).value = endedAtMs / 1000;
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    this.registry.clear();
  }
}

/** Status codes as label strings, made once. */
const STATUS_LABELS = new Map<number, string>();
function statusLabel(status: number): string {
  let label = STATUS_LABELS.get(status);
  if (label === undefined) {
    label = String(status);
    STATUS_LABELS.set(status, label);
  }
  return label;
}

export function createMetrics(config: { enabled: boolean; flag_labels: boolean }): Metrics {
  return new Metrics({ enabled: config.enabled, flagLabels: config.flag_labels });
}

/** The evaluation error kind of a thrown error (by its gRPC code), for metrics.evaluationError. */
export function evaluationErrorKind(err: unknown): EvaluationErrorKind {
  if (!(err instanceof DomainError)) return 'internal';
  switch (err.code) {
    case GrpcCode.INVALID_ARGUMENT:
    case GrpcCode.FAILED_PRECONDITION:
      return 'invalid_argument';
    case GrpcCode.NOT_FOUND:
      return err.message.startsWith('namespace') ? 'namespace_not_found' : 'flag_not_found';
    case GrpcCode.PERMISSION_DENIED:
      return 'permission_denied';
    case GrpcCode.UNAVAILABLE:
      return 'unavailable';
    case GrpcCode.UNAUTHENTICATED:
      return 'unauthenticated';
    default:
      return 'internal';
  }
}
