// Flipt's deprecated evaluation API, still served (behavior.md §1.7): POST /api/v1/evaluate and
// /api/v1/batch-evaluate, with or without the /namespaces/{namespaceKey} prefix. Variant flags only.

import Type from 'typebox';
import { namespaceKeyOrDefault } from '../../../domain/namespace-key.js';
import type { NamespaceSnapshot } from '../../../evaluation/index.js';
import { setRevision } from '../evaluation-answer.js';
import type { HttpApp } from '../http-app.js';
import { requestArrivedAt } from '../request-telemetry.js';
import {
  evaluationErrorResponses,
  LegacyBatchEvaluationRequestBody,
  LegacyBatchEvaluationResponseSchema,
  LegacyEvaluationRequestBody,
  LegacyEvaluationResponseSchema,
} from '../schemas/evaluation.js';
import { withPathParams } from '../wire.js';
import type { RouteDeps } from './deps.js';
import { invalidBodyError } from './route-helpers.js';

const tags = ['evaluation (legacy)'];
const NamespaceParams = Type.Object({ namespaceKey: Type.String() });

export async function legacyEvaluateRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const evaluation = services.evaluation;
  const legacy = services.legacyEvaluation;

  for (const url of ['/api/v1/evaluate', '/api/v1/namespaces/:namespaceKey/evaluate']) {
    const params = url.includes(':namespaceKey') ? { params: NamespaceParams } : {};
    app.post(
      url,
      {
        schema: {
          tags,
          summary: 'Evaluate a variant flag (deprecated: use /evaluate/v1/variant)',
          ...params,
          body: LegacyEvaluationRequestBody,
          response: { 200: LegacyEvaluationResponseSchema, ...evaluationErrorResponses },
        },
        attachValidation: true,
        config: {
          kind: 'legacy-evaluation',
          access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' },
        },
      },
      (request, reply) => {
        const started = requestArrivedAt(request);
        if (request.validationError) throw invalidBodyError();
        // Path parameters win over body fields of the same name (grpc-gateway).
        const body = withPathParams<LegacyEvaluationRequestBody>(request.body, request.params as object);
        const answer = (snapshot: NamespaceSnapshot) => {
          setRevision(reply, snapshot);
          return legacy.evaluate(snapshot, body, started, request.id);
        };
        const snapshot = evaluation.snapshot(namespaceKeyOrDefault(body.namespaceKey));
        return snapshot instanceof Promise ? snapshot.then(answer) : answer(snapshot);
      },
    );
  }

  for (const url of ['/api/v1/batch-evaluate', '/api/v1/namespaces/:namespaceKey/batch-evaluate']) {
    const params = url.includes(':namespaceKey') ? { params: NamespaceParams } : {};
    app.post(
      url,
      {
        schema: {
          tags,
          summary: 'Evaluate several variant flags of one namespace (deprecated: use /evaluate/v1/batch)',
          ...params,
          body: LegacyBatchEvaluationRequestBody,
          response: { 200: LegacyBatchEvaluationResponseSchema, ...evaluationErrorResponses },
        },
        attachValidation: true,
        config: {
          kind: 'legacy-evaluation',
          access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' },
        },
      },
      (request, reply) => {
        const started = requestArrivedAt(request);
        if (request.validationError) throw invalidBodyError();
        const body = withPathParams<LegacyBatchEvaluationRequestBody>(request.body, request.params as object);
        const answer = (snapshot: NamespaceSnapshot) => {
          setRevision(reply, snapshot);
          return legacy.batch(snapshot, body, started, request.id);
        };
        const snapshot = evaluation.snapshot(namespaceKeyOrDefault(body.namespaceKey));
        return snapshot instanceof Promise ? snapshot.then(answer) : answer(snapshot);
      },
    );
  }
}
