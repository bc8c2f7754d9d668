// OFREP over HTTP (behavior.md §6): POST /ofrep/v1/evaluate/flags/{key}, POST /ofrep/v1/evaluate/flags
// (bulk), GET /ofrep/v1/configuration. The namespace comes from X-Service-Namespace (interface.md) or
// X-Flipt-Namespace (Flipt), default `default`. Which entity and flags a request means, and the bulk
// answer's ETag, are the OFREP service's (services/ofrep.ts); this transport reads the request, answers
// 304 when If-None-Match names the ETag, and writes the JSON.
//
// These routes live in their own Fastify scope: OFREP errors have their own body
// {"key"?, "errorCode", "errorDetails"} (§6.4, ofrep-errors.ts), for failures and for unknown routes
// under /ofrep.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { namespaceKeyOrDefault } from '../../../domain/namespace-key.js';
import type { EvaluationContext, NamespaceSnapshot } from '../../../evaluation/index.js';
import type { OfrepBulkQuery } from '../../../services/ofrep.js';
import { OFREP_EVALUATION, OFREP_NAMESPACE_KEYS, ofrepConfiguration } from '../../ofrep-shapes.js';
import { answerWhenReady, sendJsonText, setRevision } from '../evaluation-answer.js';
import { ofrepBulkJson, ofrepFlagJson } from '../evaluation-json.js';
import type { HttpApp } from '../http-app.js';
import { OfrepError, sendOfrepError } from '../ofrep-errors.js';
import { replyHeaders } from '../reply-headers.js';
import { setRequestIdHeader } from '../request-telemetry.js';
import {
  BulkEvaluationSchema,
  EvaluatedFlagSchema,
  OfrepBulkBody as OfrepBulkBodySchema,
  OfrepConfigurationSchema,
  OfrepEvaluateBody,
  ofrepErrorResponses,
} from '../schemas/ofrep.js';
import type { RouteDeps } from './deps.js';

const tags = ['ofrep'];

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** X-Service-Namespace (interface.md) first, then Flipt's X-Flipt-Namespace, else `default`. */
function namespaceOf(request: FastifyRequest): string {
  return namespaceKeyOrDefault(header(request, OFREP_NAMESPACE_KEYS[0]) ?? header(request, OFREP_NAMESPACE_KEYS[1]));
}

const NO_CONTEXT: EvaluationContext = Object.freeze({});

/** Whether If-None-Match names this ETag (a list, weak forms and `*` included). */
function matchesIfNoneMatch(request: FastifyRequest, etag: string): boolean {
  const value = header(request, 'if-none-match');
  if (value === undefined) return false;
  for (const part of value.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}

/**
 * 304 with the ETag and no body, so send() without a payload, as routes/snapshot.ts does; send(null)
 * would be serialised to `null` with its Content-Type and a Content-Length of 4.
 */
function sendNotModified(reply: FastifyReply, etag: string): void {
  setRequestIdHeader(reply);
  reply.header('etag', etag).code(304).send();
}

export async function ofrepRoutes(app: HttpApp, { services, config, eventStreams }: RouteDeps): Promise<void> {
  const ofrep = services.ofrep;
  // Only with ofrep.event_streams on: the advert in bulk answers, and flagConfigEtag read-your-writes.
  const advert = eventStreams?.advert;
  const freshness = eventStreams?.freshness;
  const configuration = ofrepConfiguration(config);

  const answerFlag = (
    reply: FastifyReply,
    key: string,
    entityId: string,
    context: EvaluationContext,
    snapshot: NamespaceSnapshot,
  ): void => {
    setRevision(reply, snapshot);
    sendJsonText(reply, ofrep.evaluate(snapshot, key, entityId, context, ofrepFlagJson));
  };

  const answerBulk = (
    request: FastifyRequest,
    reply: FastifyReply,
    query: OfrepBulkQuery,
    namespaceKey: string,
    snapshot: NamespaceSnapshot,
  ): void => {
    setRevision(reply, snapshot);
    const { flags, etag } = ofrep.bulk(snapshot, query, ofrepFlagJson, advert?.etagVariant());
    // A failure above is answered without an ETag (sendOfrepError), so a 304 never stands for an error.
    if (etag !== undefined) {
      if (matchesIfNoneMatch(request, etag)) {
        sendNotModified(reply, etag);
        return;
      }
      // Straight into Fastify's header object, as the answer's other headers (reply-headers.ts).
      const headers = replyHeaders(reply);
      if (headers === undefined) reply.header('etag', etag);
      else headers.etag = etag;
    }
    sendJsonText(reply, ofrepBulkJson(flags, advert?.tail(request, namespaceKey)));
  };

  await app.register(
    async (plainScope) => {
      const scope = plainScope.withTypeProvider<TypeBoxTypeProvider>();
      scope.setErrorHandler((err, request, reply) => sendOfrepError(request, reply, err));
      scope.setNotFoundHandler((request, reply) => {
        app.observeUnmatchedRequest(request, reply);
        const path = request.url.split('?')[0] ?? '';
        return app.hasRouteWithOtherMethod(request.method, path)
          ? sendOfrepError(request, reply, new OfrepError(501, 'GENERAL', 'Method Not Allowed'))
          : sendOfrepError(request, reply, new OfrepError(404, 'FLAG_NOT_FOUND', 'Not Found'));
      });

      scope.get(
        '/v1/configuration',
        {
          schema: { tags, summary: 'OFREP provider configuration', response: { 200: OfrepConfigurationSchema } },
          config: { kind: 'ofrep-configuration', access: { resource: 'snapshot', action: 'read', namespace: 'none' } },
        },
        () => configuration,
      );

      // The namespace's change stream (features/event-streams), here to keep the OpenAPI order.
      eventStreams?.ofrepRoutes(scope);

      scope.post(
        '/v1/evaluate/flags/:key',
        {
          schema: {
            tags,
            summary: 'Evaluate one flag (OFREP)',
            params: Type.Object({ key: Type.String() }),
            body: OfrepEvaluateBody,
            response: { 200: EvaluatedFlagSchema, ...ofrepErrorResponses },
          },
          attachValidation: true,
          config: { kind: 'ofrep', access: OFREP_EVALUATION },
        },
        (request, reply) => {
          if (request.validationError && request.body !== undefined) {
            throw new OfrepError(400, 'INVALID_CONTEXT', 'invalid values for key(s) in json body');
          }
          const key = request.params.key;
          if (key === '') throw new OfrepError(400, 'INVALID_CONTEXT', 'flag key was not provided');
          const context = (request.body?.context ?? NO_CONTEXT) as EvaluationContext;
          const entityId = ofrep.entityOf(context);
          const snapshot = ofrep.snapshot(namespaceOf(request));
          // Resolves when the answer is finished (evaluation-answer.ts). A closure only for a request
          // that waits for a snapshot load: made per request, it would be allocated by every one.
          if (snapshot instanceof Promise) {
            return answerWhenReady(reply, snapshot, (held) => answerFlag(reply, key, entityId, context, held));
          }
          answerFlag(reply, key, entityId, context, snapshot);
          return undefined;
        },
      );

      scope.post(
        '/v1/evaluate/flags',
        {
          schema: {
            tags,
            summary: 'Evaluate all flags of the namespace, or those listed in context.flags (OFREP bulk)',
            body: OfrepBulkBodySchema,
            response: { 200: BulkEvaluationSchema, 304: Type.Null(), ...ofrepErrorResponses },
          },
          attachValidation: true,
          config: { kind: 'ofrep', access: OFREP_EVALUATION },
        },
        (request, reply) => {
          if (request.validationError && request.body !== undefined) {
            throw new OfrepError(400, 'INVALID_CONTEXT', 'invalid values for key(s) in json body');
          }
          const query = ofrep.bulkQuery(request.body?.context ?? NO_CONTEXT);
          const namespaceKey = namespaceOf(request);
          const snapshot =
            freshness === undefined
              ? ofrep.snapshot(namespaceKey)
              : freshness.snapshot(namespaceKey, (request.query as Record<string, unknown>).flagConfigEtag);
          // Resolves when the answer is finished (evaluation-answer.ts); a closure only when waiting.
          if (snapshot instanceof Promise) {
            return answerWhenReady(reply, snapshot, (held) => answerBulk(request, reply, query, namespaceKey, held));
          }
          answerBulk(request, reply, query, namespaceKey, snapshot);
          return undefined;
        },
      );
    },
    { prefix: '/ofrep' },
  );
}
