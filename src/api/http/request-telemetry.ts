// HTTP telemetry, installed on the Fastify app before any route (it records through telemetry/'s
// metrics and tracing; this transport installs the hooks): the request id echoed as
// `X-Request-Id` on every response, one log line per request, request metrics by route template, and
// (when tracing is on) one server span per request continuing an incoming `traceparent`, active
// while the route handler runs. Hooks are route-level, made per route (they know its template).
// Most routes record a request when its response has finished (onResponse); with tracing off the
// evaluation routes record it as they send (onSend), and set the header themselves, so their
// requests need no onRequest phase and no 'finish' listeners (ADR 0007). What a route is (its log class,
// whether it writes its own answer) comes from its kind (route-kinds.ts).

import type { IncomingMessage } from 'node:http';
import type { Context, Span } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type {
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onResponseHookHandler,
  onSendHookHandler,
} from 'fastify';
import type { Level } from 'pino';
import type { HttpRequestRecorder, Metrics } from '../../telemetry/metrics.js';
import { randomRequestId } from '../../telemetry/request-id.js';
import type { Tracing } from '../../telemetry/tracing.js';
import { mapError } from './error-mapping.js';
import type { HttpApp } from './http-app.js';
import { replyHeaders } from './reply-headers.js';
import { addRouteHook } from './route-hooks.js';
import { type LogClass, policyOf } from './route-kinds.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics (telemetry/metrics.ts): route modules record evaluations, cache use, … */
    metrics: Metrics;
    /** The app's tracing (telemetry/tracing.ts): evaluation and Redis spans. */
    tracing: Tracing;
    /** Request id header, metrics, log line and span of a request no route matched (404, 501). */
    observeUnmatchedRequest(request: FastifyRequest, reply: FastifyReply): void;
  }
}

export type EvaluationLogLevel = 'trace' | 'debug' | 'info';

export interface HttpTelemetry {
  metrics: Metrics;
  tracing: Tracing;
  /** Level of the log line of a successful evaluation request (`log.evaluation_level`). */
  evaluationLogLevel: EvaluationLogLevel;
}

/** Route label of requests no route matched (404, 501): raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The level of a request's log line: failures by status, successes by kind of route. */
export function requestLogLevel(kind: LogClass, status: number, evaluationLevel: EvaluationLogLevel): Level {
  // A 503 is the database away (logged once per outage at error, app/build-app.ts) or a draining
  // server: one error line per request it fails would bury the line that says why.
  if (status === 503) return 'warn';
  if (status >= 500) return 'error';
  if (status === 401 || status === 403) return 'warn';
  if (status >= 400) return 'info';
  if (kind === 'evaluation') return evaluationLevel;
  if (kind === 'probe') return 'debug';
  return 'info';
}

/** pino's level numbers, to skip building a log line nobody will see. */
const LEVEL_VALUE: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

const MAX_REQUEST_ID_LENGTH = 128;
const REQUEST_ID = /^[\x21-\x7e]+$/;

/** The request id: a sane incoming `X-Request-Id` (visible ASCII, ≤128 chars), else a new UUID. */
export function requestIdOf(headers: Record<string, string | string[] | undefined>): string {
  const incoming = headers['x-request-id'];
  if (typeof incoming === 'string' && incoming.length <= MAX_REQUEST_ID_LENGTH && REQUEST_ID.test(incoming)) {
    return incoming;
  }
  return randomRequestId();
}

/** When a request arrived (performance.now()), on the raw request: Fastify keeps no such time without a logger. */
const ARRIVED = Symbol('vexil.arrived');

/** Fastify's genReqId, called first for every request: notes its arrival and returns its id (requestIdOf). */
export function startRequest(req: IncomingMessage): string {
  (req as IncomingMessage & { [ARRIVED]?: number })[ARRIVED] = performance.now();
  return requestIdOf(req.headers);
}

/**
 * When the request arrived, as performance.now(): where answers measure requestDurationMillis from,
 * so they count the body's parsing too and read the clock once less.
 */
export function requestArrivedAt(request: { raw: IncomingMessage }): number {
  return (request.raw as IncomingMessage & { [ARRIVED]?: number })[ARRIVED] ?? performance.now();
}

/** Milliseconds since the request arrived. */
function elapsedMillis(request: FastifyRequest): number {
  return performance.now() - requestArrivedAt(request);
}

interface RequestSpan {
  span: Span;
  context: Context;
}

/**
 * The headers every answer carries, set where each answer's headers are written (no hook of its own):
 * the request id (see requestIdOf), and nosniff, so that no browser reads a JSON answer echoing input
 * as a page or script. Written into Fastify's header object (reply-headers.ts): every answer pays this.
 */
export function setRequestIdHeader(reply: FastifyReply): void {
  const headers = replyHeaders(reply);
  if (headers === undefined) {
    reply.header('x-request-id', reply.request.id);
    reply.header('x-content-type-options', 'nosniff');
    return;
  }
  headers['x-request-id'] = reply.request.id;
  headers['x-content-type-options'] = 'nosniff';
}

export function installHttpTelemetry(app: HttpApp, telemetry: HttpTelemetry): void {
  const { metrics, tracing, evaluationLogLevel } = telemetry;
  const logger = app.logger;
  app.decorate('metrics', metrics);
  app.decorate('tracing', tracing);

  const spans = tracing.enabled ? new WeakMap<FastifyRequest, RequestSpan>() : undefined;

  const start = (request: FastifyRequest, reply: FastifyReply, route: string | undefined): void => {
    setRequestIdHeader(reply);
    if (spans !== undefined) startRequestSpan(request, route, tracing, spans);
  };

  /** Metrics, the log line and the span's end of an answered request. */
  const finish = (
    request: FastifyRequest,
    status: number,
    route: string,
    kind: LogClass,
    record: HttpRequestRecorder,
  ): void => {
    const ms = elapsedMillis(request);
    record(request.method, status, ms / 1000);

    const level = requestLogLevel(kind, status, evaluationLogLevel);
    if ((LEVEL_VALUE[level] ?? 0) >= logger.levelVal) {
      const query = request.url.indexOf('?');
      logger[level](
        {
          requestId: request.id,
          method: request.method,
          route,
          // The path only: a query string may carry codes or state that do not belong in logs.
          path: query === -1 ? request.url : request.url.slice(0, query),
          status,
          durationMs: Math.round(ms * 1000) / 1000,
        },
        'request completed',
      );
    }

    if (spans !== undefined) {
      const state = spans.get(request);
      if (state !== undefined) {
        state.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (status >= 500) state.span.setStatus({ code: SpanStatusCode.ERROR });
        state.span.end();
        spans.delete(request);
      }
    }
  };

  // Route-level hooks, made per route in onRoute: each knows its route template and kind, so no
  // request looks them up (request.routeOptions builds a new object on every read).
  app.addHook('onRoute', (route) => {
    const template = route.url ?? route.path;
    const policy = policyOf(route);
    const kind = policy.log;
    // Made here, once per route: the metric series are then found without a lookup per request.
    const record = metrics.httpRequestRecorder(template);
    if (spans === undefined && policy.writesOwnAnswer) {
      // Evaluation routes set X-Request-Id as they answer (evaluation-answer.ts, sendErrorBody) and are
      // recorded as they send: Fastify adds 'finish' listeners to every response of a route that
      // has an onResponse hook. onSend runs for their errors too.
      const onSend: onSendHookHandler = (request, reply, payload, done) => {
        finish(request, reply.statusCode, template, kind, record);
        done(null, payload);
      };
      addRouteHook(route, 'onSend', onSend, 'last');
      return;
    }
    const onRequest: onRequestHookHandler = (request, reply, done) => {
      start(request, reply, template);
      done();
    };
    addRouteHook(route, 'onRequest', onRequest, 'first');
    const onResponse: onResponseHookHandler = (request, reply, done) => {
      finish(request, reply.statusCode, template, kind, record);
      done();
    };
    addRouteHook(route, 'onResponse', onResponse, 'first');
  });

  // Requests no route matched get no route hooks: the not-found handlers (app.ts, OFREP's) call this.
  const recordUnmatched = metrics.httpRequestRecorder(UNMATCHED_ROUTE);
  app.decorate('observeUnmatchedRequest', (request: FastifyRequest, reply: FastifyReply) => {
    start(request, reply, undefined);
    reply.raw.once('finish', () => finish(request, reply.statusCode, UNMATCHED_ROUTE, 'other', recordUnmatched));
  });

  if (spans !== undefined) {
    // The handler runs inside the request span's context, so evaluation, database and Redis spans
    // become its children (hooks before the handler are not wrapped).
    app.addHook('onRoute', (route) => {
      const handler = route.handler as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;
      route.handler = function tracedHandler(this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const state = spans.get(request);
        if (state === undefined) return handler.call(this, request, reply);
        return tracing.run(state.context, () => handler.call(this, request, reply));
      } as typeof route.handler;
    });
    app.addHook('onError', (request, _reply, error, done) => {
      const state = spans.get(request);
      // Client mistakes are answers, not failures: only what becomes a 5xx is recorded on the span.
      if (state !== undefined && mapError(error).status >= 500) state.span.recordException(error);
      done();
    });
  }
}

function startRequestSpan(
  request: FastifyRequest,
  route: string | undefined,
  tracing: Tracing,
  spans: WeakMap<FastifyRequest, RequestSpan>,
): void {
  const parent = tracing.extract(request.headers);
  const query = request.url.indexOf('?');
  const span = tracing.startSpan(
    route ? `${request.method} ${route}` : request.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_URL_PATH]: query === -1 ? request.url : request.url.slice(0, query),
        ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
      },
    },
    parent,
  );
  spans.set(request, { span, context: trace.setSpan(parent, span) });
}
