// /evaluate/v1: boolean, variant and batch evaluation (Flipt's bodies and responses, behavior.md §1.6),
// plus `?explain=true` on boolean and variant (beyond Flipt). Handlers are synchronous while the
// namespace's snapshot is held — no promise, no database — and await only a snapshot load. A request
// without a requestId gets the HTTP request id (X-Request-Id, a UUID v4 unless the client sent one),
// so the body and the header name the same request.

import type { FastifyReply } from 'fastify';
import { InvalidArgumentError } from '../../../domain/errors.js';
import type { NamespaceSnapshot } from '../../../evaluation/index.js';
import { DEFAULT_NAMESPACE } from '../../../services/evaluation.js';
import type { HttpApp } from '../app.js';
import {
  BatchEvaluationRequestBody,
  BatchEvaluationResponseSchema,
  BooleanEvaluationResponseSchema,
  EvaluationRequestBody,
  evaluationErrorResponses,
  ExplainQuerystring,
  VariantEvaluationResponseSchema,
  wantsExplain,
} from '../schemas/evaluation.js';
import type { RouteDeps } from './deps.js';

const tags = ['evaluation'];
/** A POST without a body (and without a content type, so no parser ran) is an empty request. */
const EMPTY_BODY = Object.freeze({});

/** Flipt's answer to any body its decoder rejects (a non-string context value above all). */
export function invalidBodyError(): InvalidArgumentError {
  return new InvalidArgumentError('invalid values for key(s) in json body');
}

/** The revision an answer was computed from (beyond Flipt: read-your-writes can be checked). */
export const REVISION_HEADER = 'x-vexil-revision';

export function setRevision(reply: FastifyReply, snapshot: NamespaceSnapshot): void {
  if (snapshot.revision !== '') reply.header(REVISION_HEADER, snapshot.revision);
}

export async function evaluationRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const evaluation = services.evaluation;

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
    },
    (request, reply) => {
      const started = performance.now();
      if (request.validationError) throw invalidBodyError();
      const body = request.body ?? EMPTY_BODY;
      const explain = request.query.explain !== undefined && wantsExplain(request.query);
      const namespaceKey = body.namespaceKey || DEFAULT_NAMESPACE;
      // The hot path: a held snapshot, no promise and no closure.
      const held = evaluation.heldSnapshot(namespaceKey);
      if (held !== undefined) {
        setRevision(reply, held);
        return evaluation.boolean(held, body, started, explain, request.id);
      }
      return evaluation.loadSnapshot(namespaceKey).then((snapshot) => {
        setRevision(reply, snapshot);
        return evaluation.boolean(snapshot, body, started, explain, request.id);
      });
    },
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
    },
    (request, reply) => {
      const started = performance.now();
      if (request.validationError) throw invalidBodyError();
      const body = request.body ?? EMPTY_BODY;
      const explain = request.query.explain !== undefined && wantsExplain(request.query);
      const namespaceKey = body.namespaceKey || DEFAULT_NAMESPACE;
      const held = evaluation.heldSnapshot(namespaceKey);
      if (held !== undefined) {
        setRevision(reply, held);
        return evaluation.variant(held, body, started, explain, request.id);
      }
      return evaluation.loadSnapshot(namespaceKey).then((snapshot) => {
        setRevision(reply, snapshot);
        return evaluation.variant(snapshot, body, started, explain, request.id);
      });
    },
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
    },
    (request) => {
      const started = performance.now();
      if (request.validationError) throw invalidBodyError();
      return evaluation.batch(request.body ?? EMPTY_BODY, started, request.id);
    },
  );
}
