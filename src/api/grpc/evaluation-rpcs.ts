// flipt.evaluation.EvaluationService (Boolean, Variant, Batch) and DataService
// (EvaluationSnapshotNamespace) over the evaluation service, as /evaluate/v1 and the client snapshot
// route call it. The answer names the snapshot's revision (x-vexil-revision).

import { randomUUID } from 'node:crypto';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { FlagEvaluation } from '../../evaluation/index.js';
import { currentTimestamp, type EvaluationInput } from '../../services/evaluation-types.js';
import type { Services } from '../../services/index.js';
import { clientFlagRenderer, SnapshotLevel } from '../client-snapshot.js';
import { timestampMessage } from './messages.js';
import type { Rpc } from './rpc.js';

/** flipt.evaluation.EvaluationRequest as proto-loader decodes it (defaults filled in). */
export interface EvaluationRequestMessage {
  requestId: string;
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: Record<string, string>;
  reference: string;
}

interface BatchRequestMessage {
  requestId: string;
  requests: EvaluationRequestMessage[];
  reference: string;
}

function stamp(requestId: string, started: number) {
  return {
    requestId,
    requestDurationMillis: performance.now() - started,
    timestamp: timestampMessage(currentTimestamp()),
  };
}

/** A batch item as flipt.evaluation.EvaluationResponse. */
function batchItemMessage(item: FlagEvaluation, request: EvaluationInput | undefined, stamped: object) {
  switch (item.type) {
    case 'BOOLEAN_EVALUATION_RESPONSE_TYPE':
      return { type: item.type, booleanResponse: { ...item.booleanResponse, ...stamped } };
    case 'VARIANT_EVALUATION_RESPONSE_TYPE':
      return { type: item.type, variantResponse: { ...item.variantResponse, ...stamped } };
    default:
      return {
        type: item.type,
        errorResponse: { ...item.errorResponse, namespaceKey: request?.namespaceKey ?? '' },
      };
  }
}

export function evaluationRpcs({ evaluation }: Services): Rpc<never>[] {
  const single = <R extends object>(
    method: string,
    evaluate: (snapshot: Parameters<typeof evaluation.booleanResult>[0], input: EvaluationInput) => R,
  ): Rpc<EvaluationRequestMessage> => ({
    method,
    kind: 'evaluation',
    async handle(request, context) {
      const started = performance.now();
      const snapshot = await evaluation.snapshot(namespaceKeyOrDefault(request.namespaceKey));
      context.setRevision(snapshot.revision);
      const result = evaluate(snapshot, request);
      return { ...result, ...stamp(request.requestId || randomUUID(), started) };
    },
  });

  const batch: Rpc<BatchRequestMessage> = {
    method: 'Batch',
    kind: 'evaluation',
    namespaces: (request) => {
      const keys = new Set(request.requests.map((item) => namespaceKeyOrDefault(item.namespaceKey)));
      return keys.size ? [...keys] : [namespaceKeyOrDefault('')];
    },
    async handle(request) {
      const started = performance.now();
      const answer = await evaluation.batch(request);
      const responses = answer.items.map((item, i) => {
        const itemRequest = answer.requests[i];
        return batchItemMessage(item, itemRequest, stamp(itemRequest?.requestId ?? '', started));
      });
      return { requestId: answer.requestId, responses, requestDurationMillis: performance.now() - started };
    },
  };

  return [
    single('Boolean', (s, input) => evaluation.booleanResult(s, input)),
    single('Variant', (s, input) => evaluation.variantResult(s, input)),
    batch,
  ] as Rpc<never>[];
}

export function dataRpcs({ evaluation }: Services): Rpc<never>[] {
  const snapshot: Rpc<{ key: string; reference: string }> = {
    method: 'EvaluationSnapshotNamespace',
    kind: 'client-snapshot',
    namespaces: (request) => [namespaceKeyOrDefault(request.key)],
    async handle(request, context) {
      const key = namespaceKeyOrDefault(request.key);
      const source = await evaluation.source(key);
      if (source === undefined) return { namespace: { key }, flags: [] };
      context.setRevision(source.revision);
      const render = clientFlagRenderer(source, SnapshotLevel.DEFAULT_VARIANT);
      const flags = source.flags.map((f) => {
        const flag = render(f) as Record<string, unknown> & { createdAt: string; updatedAt: string };
        return { ...flag, createdAt: timestampMessage(flag.createdAt), updatedAt: timestampMessage(flag.updatedAt) };
      });
      return { namespace: { key }, flags };
    },
  };

  return [snapshot] as Rpc<never>[];
}
