// gRPC telemetry as one server interceptor (covers every service registered on the server): call
// metrics by full method name and status code, one log line per call (failures at info or above,
// successes at debug), and (tracing on) a server span per call that continues the `traceparent` of
// the request metadata and is active while the handler runs. Also: @grpc/grpc-js's own messages, into
// the process log at `log.grpc_level`. Being the one interceptor, it also lets a unary call's answer
// and status leave in one write (answerWithStatus) and counts calls for the drain (onCall).

import { performance } from 'node:perf_hooks';
import { format } from 'node:util';
import {
  status as GrpcStatus,
  logVerbosity as LogVerbosity,
  type Metadata,
  ServerInterceptingCall,
  type ServerInterceptor,
  type ServerMethodDefinition,
  setLogger,
  setLogVerbosity,
} from '@grpc/grpc-js';
import type { Context, Span, TextMapGetter } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_RPC_METHOD, ATTR_RPC_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import type { Level, Logger } from 'pino';
import type { Metrics } from './metrics.js';
import type { Tracing } from './tracing.js';

export interface GrpcTelemetry {
  metrics: Metrics;
  tracing: Tracing;
  logger: Logger;
  /**
   * Told of each call as it starts (the drain's count, api/grpc/call-drain.ts); the function it returns
   * is called once, after the call's status has been sent or when it is cancelled. Here rather than in
   * an interceptor of its own: grpc-js wraps every call in one more layer per interceptor.
   */
  onCall?: (descriptor: ServerMethodDefinition<unknown, unknown>) => (() => void) | undefined;
}

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    if (values.length === 0) return undefined;
    return values.map((v) => (typeof v === 'string' ? v : v.toString('utf8')));
  },
};

/** grpc-js has three severities: pino's trace and debug are its DEBUG, warn its ERROR, fatal none. */
const GRPC_VERBOSITY: Readonly<Record<string, number>> = {
  trace: LogVerbosity.DEBUG,
  debug: LogVerbosity.DEBUG,
  info: LogVerbosity.INFO,
  warn: LogVerbosity.ERROR,
  error: LogVerbosity.ERROR,
  fatal: LogVerbosity.NONE,
  silent: LogVerbosity.NONE,
};

/**
 * Sends @grpc/grpc-js's messages (otherwise written to stderr with its own format) to `logger` as lines
 * with `component: "grpc"`, keeping those at `level` (Flipt's log.grpc_level) and above. grpc-js has
 * one logger per process: the last call wins.
 */
export function routeGrpcLogs(logger: Logger, level: string): void {
  const grpcLogger = logger.child({ component: 'grpc' }, { level });
  const line =
    (write: (message: string) => void) =>
    (message?: unknown, ...params: unknown[]) =>
      write(format(message, ...params));
  setLogger({
    error: line((m) => grpcLogger.error(m)),
    info: line((m) => grpcLogger.info(m)),
    debug: line((m) => grpcLogger.debug(m)),
  });
  setLogVerbosity(GRPC_VERBOSITY[level] ?? LogVerbosity.ERROR);
}

/** The status name of a gRPC code ('OK', 'NOT_FOUND', …); bounded, for labels. */
export function grpcCodeName(code: number): string {
  return GrpcStatus[code] ?? 'UNKNOWN';
}

/** The level of a call's log line (shared with the evaluation fast path, api/grpc/evaluation-fast-path.ts). */
export function callLogLevel(code: number): Level {
  switch (code) {
    case GrpcStatus.OK:
    case GrpcStatus.CANCELLED:
      return 'debug';
    case GrpcStatus.UNKNOWN:
    case GrpcStatus.INTERNAL:
    case GrpcStatus.DATA_LOSS:
      return 'error';
    // UNAVAILABLE as HTTP's 503 (request-telemetry.ts): the outage itself is logged once, at error.
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.PERMISSION_DENIED:
      return 'warn';
    default:
      return 'info';
  }
}

/**
 * A finished call's metric and log line, as every gRPC call records them (the interceptor here and the
 * evaluation fast path, api/grpc/evaluation-fast-path.ts); answers the status code's name.
 */
export function recordGrpcCall(
  { metrics, logger }: Pick<GrpcTelemetry, 'metrics' | 'logger'>,
  method: string,
  code: number,
  started: number,
): string {
  const ms = performance.now() - started;
  const codeName = grpcCodeName(code);
  metrics.recordGrpcRequest(method, codeName, ms / 1000);
  const level = callLogLevel(code);
  if (logger.isLevelEnabled(level)) {
    logger[level](
      { grpcMethod: method, code: codeName, durationMs: Math.round(ms * 1000) / 1000 },
      'grpc call completed',
    );
  }
  return codeName;
}

export function grpcTelemetryInterceptor({ metrics, tracing, logger, onCall }: GrpcTelemetry): ServerInterceptor {
  return (descriptor, call) => {
    const method = descriptor.path;
    const started = performance.now();
    let state: { span: Span; context: Context } | undefined;
    let finished = false;

    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      const codeName = recordGrpcCall({ metrics, logger }, method, code, started);
      if (state !== undefined) {
        state.span.setAttribute('rpc.grpc.status_code', code);
        if (code !== GrpcStatus.OK) state.span.setStatus({ code: SpanStatusCode.ERROR, message: codeName });
        state.span.end();
      }
    };
    // The handler is invoked from these listener callbacks: running them in the span's context
    // makes the handler's own spans (evaluations, queries) children of the call span. With tracing
    // off the messages pass through untouched (no listener, no closure per message).
    const inContext = (fn: () => void) => (state === undefined ? fn() : tracing.run(state.context, fn));
    let ended = onCall?.(descriptor);
    const end = () => {
      const once = ended;
      ended = undefined;
      once?.();
    };

    const intercepting = new ServerInterceptingCall(call, {
      start: (next) =>
        next(
          tracing.enabled
            ? {
                onReceiveMetadata: (metadata, nextMetadata) => {
                  const parent = tracing.extract(metadata, metadataGetter);
                  const span = tracing.startSpan(
                    method.replace(/^\//, ''),
                    {
                      kind: SpanKind.SERVER,
                      attributes: { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: method.replace(/^\//, '') },
                    },
                    parent,
                  );
                  state = { span, context: trace.setSpan(parent, span) };
                  inContext(() => nextMetadata(metadata));
                },
                onReceiveMessage: (message, nextMessage) => inContext(() => nextMessage(message)),
                onReceiveHalfClose: (nextHalfClose) => inContext(() => nextHalfClose()),
                onCancel: () => {
                  finish(GrpcStatus.CANCELLED);
                  end();
                },
              }
            : {
                onCancel: () => {
                  finish(GrpcStatus.CANCELLED);
                  end();
                },
              },
        ),
      sendStatus: (status, nextStatus) => {
        finish(status.code ?? GrpcStatus.UNKNOWN);
        nextStatus(status);
        end();
      },
    });
    if (!descriptor.responseStream) answerWithStatus(intercepting);
    return intercepting;
  };
}

/**
 * grpc-js sends a unary call's status only once its answer's bytes have left (sendMessage's callback
 * runs after the socket write): the answer and the trailers then go out in two writes, a turn of the
 * event loop apart. Told at once that the message is sent, grpc-js ends the stream in the same turn;
 * Node's HTTP/2 stream keeps the order (DATA, then the trailers) and writes both together. A failed
 * write still ends the call (the stream is gone either way).
 */
function answerWithStatus(call: ServerInterceptingCall): void {
  const sendMessage = call.sendMessage.bind(call);
  call.sendMessage = (message, callback) => {
    sendMessage(message, () => {});
    callback();
  };
}
