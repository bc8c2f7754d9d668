// Builds the Fastify application (never listens: main.ts does). Wire conventions shared by every
// route live here: any Content-Type parsed as JSON, empty bodies as {}, snake_case accepted, one
// trailing slash ignored, Flipt's error body for every failure, 404/501 for unknown routes and methods
// (HEAD included), and the limits of Flipt's Go server: 1 MiB of request line and headers, 10 s to
// read a request, 30 s for its answer to be taken (write-timeout.ts), no other.

import type { Duplex } from 'node:stream';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
  type onSendHookHandler,
} from 'fastify';
import pino, { type Logger } from 'pino';
import { GrpcCode } from '../../domain/errors.js';
import { Metrics } from '../../telemetry/metrics.js';
import { Tracing } from '../../telemetry/tracing.js';
import { COMPRESSION_ENCODINGS, COMPRESSION_THRESHOLD } from './answer-encoding.js';
import { answerConnect } from './connect-method.js';
import { sendError, sendErrorBody } from './error-handler.js';
import type { HttpApp, NotFoundFallback } from './http-app.js';
import { installNamespaceDefault } from './namespace-default.js';
import { sendOfrepError } from './ofrep-errors.js';
import { type HttpTelemetry, installHttpTelemetry, startRequest } from './request-telemetry.js';
import { addRouteHook } from './route-hooks.js';
import { policyOf, recordRouteKinds } from './route-kinds.js';
import { discardTooLargeBodies } from './too-large-bodies.js';
import { camelizeKeys, indentJson, wantsPretty, withGoStrings } from './wire.js';
import { closeStalledWrites, WRITE_TIMEOUT_MS } from './write-timeout.js';

export interface HttpAppOptions {
  bodyLimit: number;
  /** Serve HTTPS with this key and certificate chain (PEM), instead of plain HTTP. */
  tls?: { key: Buffer; cert: Buffer };
  /** The process logger (false: log nothing). */
  logger: Logger | false;
  version: string;
  /** Metrics, tracing and the evaluation log level (default: metrics and tracing off). */
  telemetry?: HttpTelemetry;
  /** How long an answer's bytes may wait for the client to read them (default: WRITE_TIMEOUT_MS, Flipt's). */
  writeTimeoutMs?: number;
}

/**
 * Request line and headers may take 1 MiB, as Flipt's http.Server allows (MaxHeaderBytes, behavior.md
 * §0.1); Node's own default is 16 KiB. Node counts the request target and header names and values,
 * Go the raw bytes plus 4 KiB of slack: the same limit, give or take separators.
 */
export const MAX_HEADER_SIZE = 1024 * 1024;

/**
 * Flipt's ReadTimeout (behavior.md §0.1): a request, headers and body, must have arrived within 10 s
 * of its start (Node's default: 5 minutes, and 60 s for the headers). Node looks for late requests on
 * a timer, every 30 s by default: once a second (NODE_SERVER_OPTIONS) keeps the limit close to 10 s.
 * A late request's connection is closed without an answer (answerUnreadableRequest).
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Options of the Node server itself (http or https alike), which Fastify passes to it when it creates
 * it. The headers' own timeout must be set here too: Fastify sets the request timeout only after Node
 * has made the server, so the headers' timeout stays at Node's 60 s, and with it above the request
 * timeout (a state Node's constructor would refuse) Node never times out a body that stalls.
 */
const NODE_SERVER_OPTIONS = {
  maxHeaderSize: MAX_HEADER_SIZE,
  headersTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: 1_000,
};

/**
 * Go's net/http answers a request it cannot read before any handler runs, so neither Flipt's error
 * body nor Fastify's: headers over the limit get 431 in plain text, other malformed requests 400,
 * and the connection is closed. A timeout while reading is closed without an answer, as Go does.
 */
function answerUnreadableRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code !== 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable) {
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
  }
  socket.destroy(err);
}

/**
 * What Fastify's router rejects before any route (a malformed percent-escape in the path, above all)
 * answers in the API's error body: OFREP's under /ofrep, Flipt's elsewhere.
 */
function answerFrameworkError(err: Error, request: FastifyRequest, reply: FastifyReply): void {
  request.server.observeUnmatchedRequest(request, reply);
  const path = request.url.split('?')[0] ?? '/';
  if (path === '/ofrep' || path.startsWith('/ofrep/')) {
    sendOfrepError(request, reply, err);
    return;
  }
  sendError(request, reply, err);
}

/** A `\u` escape of a UTF-16 surrogate: only through one can JSON.parse make a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  let body = JSON.parse(raw) as unknown;
  // Lone surrogates read as U+FFFD (Go). The body is already UTF-8 decoded, so only an escape makes
  // one: bodies without `\u` pay one scan as fast as the `_` one below, the rest a regex.
  if (raw.includes('\\u') && SURROGATE_ESCAPE.test(raw)) body = withGoStrings(body);
  return raw.includes('_') ? camelizeKeys(body) : body;
}

/** Route patterns by method, to tell an unknown path (404) from a known path with another method (501). */
class RouteTable {
  readonly #patterns: { method: string; regex: RegExp }[] = [];

  add(method: string | string[], url: string): void {
    const source = url
      .replace(/\/+$/, '')
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    for (const m of Array.isArray(method) ? method : [method]) {
      this.#patterns.push({ method: m.toUpperCase(), regex: new RegExp(`^${source}/?$`) });
    }
  }

  hasOtherMethod(method: string, path: string): boolean {
    // HEAD and OPTIONS (the CORS preflight route, `*`) are answered for paths that have other methods.
    return this.#patterns.some(
      (p) => p.method !== method && p.method !== 'HEAD' && p.method !== 'OPTIONS' && p.regex.test(path),
    );
  }
}

export async function buildHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    // Logging is ours (telemetry/http.ts, error-handler.ts) through `app.logger`: with a Fastify logger
    // every request would pay for a child logger and 'finish' listeners (ADR 0007).
    logger: false,
    bodyLimit: options.bodyLimit,
    // A path parameter is bounded by the header limit alone, as in Flipt (the request line counts
    // towards it): a longer key reaches its route and gets the route's own answer (404, …).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_HEADER_SIZE },
    http: NODE_SERVER_OPTIONS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerUnreadableRequest,
    frameworkErrors: answerFrameworkError,
    // grpc-gateway answers HEAD like any method a route does not have (501); the few routes where
    // HEAD is expected (/health, /metrics, the dashboard) ask for it themselves.
    exposeHeadRoutes: false,
    // An incoming X-Request-Id is kept when sane (telemetry/http.ts), else a UUID; echoed on every response.
    requestIdHeader: false,
    genReqId: startRequest,
    // verbose: failed values reach the error messages; it costs nothing on valid requests.
    ajv: {
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: true,
        allErrors: false,
        verbose: true,
      },
    },
    return503OnClosing: true,
    // An https.Server answers requests exactly as the http.Server the HttpApp type names.
    ...(options.tls ? { https: { ...options.tls, ...NODE_SERVER_OPTIONS } } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;
  const logger: Logger = options.logger === false ? pino({ level: 'silent' }) : options.logger;
  app.decorate('logger', logger);
  answerConnect(app.server);
  const stopWatchingWrites = closeStalledWrites(app.server, options.writeTimeoutMs ?? WRITE_TIMEOUT_MS);
  app.addHook('onClose', async () => stopWatchingWrites());

  // The route table of kinds the route coverage test walks (route-kinds.ts).
  recordRouteKinds(app);
  // An empty namespace in a route's path means `default`, for every route that has one.
  installNamespaceDefault(app);
  // First, so its onRoute hook sees every route and its hooks run before any other.
  installHttpTelemetry(
    app,
    options.telemetry ?? {
      metrics: new Metrics({ enabled: false, flagLabels: false }),
      tracing: new Tracing({
        enabled: false,
        exporter: 'otlp',
        sampling_ratio: 1,
        otlp: { endpoint: '', headers: {} },
      }),
      evaluationLogLevel: 'debug',
    },
  );

  app.removeAllContentTypeParsers();
  const parseBody = (_request: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch {
      const err = new Error('request body is not valid JSON') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  };
  // The exact JSON type first: Fastify finds it with one map lookup, where `*` alone makes it parse
  // the Content-Type header of every request.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseBody);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseBody);

  // grpc-gateway treats an empty body as {}; Fastify leaves it undefined (the parser never runs).
  // A route-level hook on the POST and PUT routes that need it, not an app-wide one every request pays.
  const emptyBodyAsObject: onRequestHookHandler = (request, _reply, done) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => m === 'POST' || m === 'PUT') || policyOf(route).writesOwnAnswer) return;
    addRouteHook(route, 'preValidation', emptyBodyAsObject, 'first');
  });

  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url ?? route.path));
  app.decorate('hasRouteWithOtherMethod', (method: string, path: string) => routes.hasOtherMethod(method, path));

  // Flipt's chi Compress (behavior.md §0.1): gzip or deflate at zlib's default level, for compressible
  // types (JSON, text, JS, CSS, SVG…) when the client sends Accept-Encoding; never br or zstd, which
  // chi does not offer. Registered before any route, so its onRoute hook adds its hooks to each (the
  // dashboard's static files included); requests no route matched (the not-found handler) get none.
  // Below COMPRESSION_THRESHOLD buffered answers go uncompressed. Routes that write their own answers
  // (route-kinds.ts: the evaluation routes) opt out here, before the plugin's onRoute hook sees them,
  // and compress their answers themselves (answer-encoding.ts), the same way, without hooks that every
  // request would pay for. Request bodies are not decompressed, as in Flipt.
  app.addHook('onRoute', (route) => {
    if (policyOf(route).writesOwnAnswer) route.compress = false;
  });
  await app.register(compress, {
    encodings: [...COMPRESSION_ENCODINGS],
    threshold: COMPRESSION_THRESHOLD,
    globalDecompression: false,
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Vexil',
        description: 'Feature-flag service, wire-compatible with Flipt v1',
        version: options.version,
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      },
    },
  });
  app.get(
    '/openapi.json',
    {
      schema: { hide: true },
      config: { kind: 'openapi', access: { resource: 'service', action: 'read', namespace: 'none' } },
    },
    async () => app.swagger(),
  );

  app.addHook('onError', discardTooLargeBodies());
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.decorate('notFoundFallbacks', [] as NotFoundFallback[]);
  app.setNotFoundHandler((request, reply) => {
    app.observeUnmatchedRequest(request, reply);
    for (const fallback of app.notFoundFallbacks) if (fallback(request, reply)) return reply;
    const path = request.url.split('?')[0] ?? '/';
    // No route, so no route hooks: sendErrorBody indents for `?pretty` itself.
    if (app.hasRouteWithOtherMethod(request.method, path)) {
      return sendErrorBody(request, reply.code(501), {
        code: GrpcCode.UNIMPLEMENTED,
        message: 'Method Not Allowed',
        details: [],
      });
    }
    return sendErrorBody(request, reply.code(404), { code: GrpcCode.NOT_FOUND, message: 'Not Found', details: [] });
  });

  // Flipt's `?pretty` and `Accept: application/json+pretty`: indented JSON, for people reading it.
  // Added to each route (onRoute below) except those that write their JSON text themselves and
  // indent it there (evaluation-answer.ts), so their requests skip the onSend phase.
  const indentIfAsked: onSendHookHandler = (request, reply, payload, done) => {
    if (typeof payload !== 'string' || !wantsPretty(request)) return done(null, payload);
    if (!String(reply.getHeader('content-type') ?? '').includes('json')) return done(null, payload);
    done(null, indentJson(payload));
  };
  app.addHook('onRoute', (route) => {
    if (policyOf(route).writesOwnAnswer) return;
    addRouteHook(route, 'onSend', indentIfAsked, 'first');
  });
  return app;
}
