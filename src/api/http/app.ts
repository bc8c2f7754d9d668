// Builds the Fastify application (never listens: main.ts does). Wire conventions shared by every
// route live here: any Content-Type parsed as JSON, empty bodies as {}, snake_case accepted, one
// trailing slash ignored, Flipt's error body for every failure, 404/501 for unknown routes and methods.

import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { GrpcCode } from '../../domain/errors.js';
import { type HttpTelemetry, installHttpTelemetry, requestIdOf } from '../../telemetry/http.js';
import { Metrics } from '../../telemetry/metrics.js';
import { Tracing } from '../../telemetry/tracing.js';
import { sendError } from './error-handler.js';
import { camelizeKeys } from './wire.js';

export interface HttpAppOptions {
  bodyLimit: number;
  logger: FastifyServerOptions['loggerInstance'] | boolean;
  version: string;
  /** Metrics, tracing and the evaluation log level (default: metrics and tracing off). */
  telemetry?: HttpTelemetry;
}

export type HttpApp = FastifyInstance<
  FastifyInstance['server'],
  FastifyInstance['server'] extends infer _ ? import('node:http').IncomingMessage : never,
  import('node:http').ServerResponse,
  FastifyInstance['log'],
  TypeBoxTypeProvider
>;

function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  const body = JSON.parse(raw) as unknown;
  return raw.includes('_') ? camelizeKeys(body) : body;
}

/** `?pretty` (any value) or `Accept: application/json+pretty`. */
function wantsPretty(request: { url: string; query: unknown; headers: { accept?: string } }): boolean {
  if (request.headers.accept?.includes('application/json+pretty')) return true;
  if (!request.url.includes('pretty')) return false;
  const query = request.query as Record<string, unknown> | undefined;
  return query !== undefined && 'pretty' in query;
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
    return this.#patterns.some((p) => p.method !== method && p.method !== 'HEAD' && p.regex.test(path));
  }
}

export async function buildHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const loggerOption =
    typeof options.logger === 'boolean' ? { logger: options.logger } : { loggerInstance: options.logger };
  const app = Fastify({
    ...loggerOption,
    bodyLimit: options.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // Request logging is ours (telemetry), so evaluations can stay out of the log at info level.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // An incoming X-Request-Id is kept when sane (telemetry/http.ts), else a UUID; echoed on every response.
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers),
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
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;

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
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch {
      const err = new Error('request body is not valid JSON') as Error & { statusCode: number };
      err.statusCode = 400;
      done(err, undefined);
    }
  });

  // grpc-gateway treats an empty body as {}; Fastify leaves it undefined (the parser never runs).
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT')) request.body = {};
  });

  const routes = new RouteTable();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url ?? route.path));

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
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (routes.hasOtherMethod(request.method, path)) {
      return reply.code(501).send({ code: GrpcCode.UNIMPLEMENTED, message: 'Method Not Allowed', details: [] });
    }
    return reply.code(404).send({ code: GrpcCode.NOT_FOUND, message: 'Not Found', details: [] });
  });

  // Flipt's `?pretty` and `Accept: application/json+pretty`: indented JSON, for people reading it.
  // Synchronous, and out after one string test on the common path: it runs for every response.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload !== 'string' || !wantsPretty(request)) return done(null, payload);
    if (!String(reply.getHeader('content-type') ?? '').includes('json')) return done(null, payload);
    try {
      done(null, JSON.stringify(JSON.parse(payload), null, 2));
    } catch {
      done(null, payload);
    }
  });

  return app;
}
