// /evaluate/v1: boolean, variant and batch evaluation (Flipt's bodies and responses, behavior.md §1.6),
// plus `?explain=true` on boolean and variant (beyond Flipt). Handlers are synchronous while the
// namespace's snapshot is held — no promise, no database — and await only a snapshot load. A request
// without a requestId gets the HTTP request id (X-Request-Id, a UUID v4 unless the client sent one),
// so the body and the header name the same request.

import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';
import { namespaceKeyOrDefault } from '../../../domain/namespace-key.js';
import type { NamespaceSnapshot } from '../../../evaluation/index.js';
import { type BatchEvaluation, currentTimestamp, type EvaluationInput } from '../../../services/evaluation-types.js';
import { answerWhenReady, sendJsonText, setRevision } from '../evaluation-answer.js';
import { batchResponseJson, booleanResponseJson, variantResponseJson } from '../evaluation-json.js';
import type { HttpApp } from '../http-app.js';
import { requestArrivedAt } from '../request-telemetry.js';
import {
  BatchEvaluationRequestBody,
  BatchEvaluationResponseSchema,
  BooleanEvaluationResponseSchema,
  EvaluationRequestBody,
  ExplainQuerystring,
  evaluationErrorResponses,
  VariantEvaluationResponseSchema,
  wantsExplain,
} from '../schemas/evaluation.js';
import type { RouteDeps } from './deps.js';
import { invalidBodyError } from './route-helpers.js';

/** What the boolean and variant handlers read from a request. */
interface SingleFlagRequest {
  id: string;
  raw: IncomingMessage;
  body: EvaluationInput | undefined;
  query: { explain?: string };
  validationError?: Error;
}

const tags = ['evaluation'];
/** A POST without a body (and without a content type, so no parser ran) is an empty request. */
const EMPTY_BODY = Object.freeze({});

/** Sends a batch's answer; every item carries the batch's duration and end time (Flipt stamps them after the batch). */
function writeBatch(reply: FastifyReply, started: number, batch: BatchEvaluation): void {
  const text = batchResponseJson(
    batch.requestId,
    batch.requests,
    batch.items,
    performance.now() - started,
    currentTimestamp(),
  );
  sendJsonText(reply, text);
}

export async function evaluationRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const evaluation = services.evaluation;
  const explain = services.explain;

  /**
   * One handler for the boolean and variant endpoints: synchronous while the namespace's snapshot is
   * held (no promise, no database), awaiting only a snapshot load. A plain answer is JSON text written
   * from the engine's result (evaluation-json.ts); an explained one an object for the schema serializer.
   */
  const singleFlag = <R>(
    evaluate: (snapshot: NamespaceSnapshot, body: EvaluationInput) => R,
    write: (result: R, requestId: string, durationMillis: number, timestamp: string) => string,
    explained: (snapshot: NamespaceSnapshot, body: EvaluationInput, started: number, id: string) => object,
  ) => {
    // Made once per route, not per request: a closure over the request would be allocated by every
    // request, though only those that wait for a snapshot load need one.
    const answer = (
      request: SingleFlagRequest,
      reply: FastifyReply,
      body: EvaluationInput,
      explain: boolean,
      started: number,
      snapshot: NamespaceSnapshot,
    ): void => {
      setRevision(reply, snapshot);
      if (explain) {
        // The route's schema serializer writes the explained answer (explain is not cached text).
        sendJsonText(reply, reply.serialize(explained(snapshot, body, started, request.id)) as string);
        return;
      }
      const result = evaluate(snapshot, body);
      const text = write(result, body.requestId || request.id, performance.now() - started, currentTimestamp());
      sendJsonText(reply, text);
    };
    return (request: SingleFlagRequest, reply: FastifyReply): undefined | Promise<void> => {
      const started = requestArrivedAt(request);
      if (request.validationError && request.body !== undefined) throw invalidBodyError();
      const body: EvaluationInput = request.body ?? EMPTY_BODY;
      const explain = request.query.explain !== undefined && wantsExplain(request.query);
      const snapshot = evaluation.snapshot(namespaceKeyOrDefault(body.namespaceKey));
      // Settles when the answer is finished (evaluation-answer.ts).
      if (snapshot instanceof Promise) {
        return answerWhenReady(reply, snapshot, (held) => answer(request, reply, body, explain, started, held));
      }
      answer(request, reply, body, explain, started, snapshot);
      return undefined;
    };
  };

  app.post(
    '/evaluate/v1/boolean',
    {
      schema: {
        tags,
        summary: 'Evaluate a boolean flag',
        body: EvaluationRequestBody,
        querystring: ExplainQuerystring,
        response: { 200: BooleanEvaluationResponseSchema, ...evaluationErrorResponses },
      },
      attachValidation: true,
      config: { kind: 'evaluation', access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' } },
    },
    singleFlag(
      (snapshot, body) => evaluation.booleanResult(snapshot, body),
      booleanResponseJson,
      (snapshot, body, started, id) => explain.boolean(snapshot, body, started, id),
    ),
  );

  app.post(
    '/evaluate/v1/variant',
    {
      schema: {
        tags,
        summary: 'Evaluate a variant flag',
        body: EvaluationRequestBody,
        querystring: ExplainQuerystring,
        response: { 200: VariantEvaluationResponseSchema, ...evaluationErrorResponses },
      },
      attachValidation: true,
      config: { kind: 'evaluation', access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' } },
    },
    singleFlag(
      (snapshot, body) => evaluation.variantResult(snapshot, body),
      variantResponseJson,
      (snapshot, body, started, id) => explain.variant(snapshot, body, started, id),
    ),
  );

  app.post(
    '/evaluate/v1/batch',
    {
      schema: {
        tags,
        summary: 'Evaluate several flags, across namespaces, in one request',
        body: BatchEvaluationRequestBody,
        response: { 200: BatchEvaluationResponseSchema, ...evaluationErrorResponses },
      },
      attachValidation: true,
      config: { kind: 'evaluation', access: { resource: 'evaluation', action: 'evaluate', namespace: 'items' } },
    },
    (request, reply) => {
      const started = requestArrivedAt(request);
      if (request.validationError && request.body !== undefined) throw invalidBodyError();
      const batch = evaluation.batch(request.body ?? EMPTY_BODY, request.id);
      // A closure only for a batch that waits for a snapshot load (see singleFlag).
      if (batch instanceof Promise) return answerWhenReady(reply, batch, (done) => writeBatch(reply, started, done));
      writeBatch(reply, started, batch);
      return undefined;
    },
  );
}
