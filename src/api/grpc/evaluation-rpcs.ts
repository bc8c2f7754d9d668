// flipt.evaluation.EvaluationService (Boolean, Variant, Batch) and DataService
// (EvaluationSnapshotNamespace) over the evaluation service, as /evaluate/v1 and the client snapshot
// route call it. The answer names the snapshot's revision (x-vexil-revision).

import { performance } from 'node:perf_hooks';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { BooleanEvaluation, NamespaceSnapshot, VariantEvaluation } from '../../evaluation/index.js';
import { type BatchEvaluation, currentTimestamp, type EvaluationInput } from '../../services/evaluation-types.js';
import type { Services } from '../../services/index.js';
import { randomRequestId } from '../../telemetry/request-id.js';
import { clientFlagRenderer, SnapshotLevel } from '../client-snapshot.js';
import { batchAnswerBytes, booleanAnswerBytes, variantAnswerBytes } from './evaluation-answer.js';
import { timestampMessage } from './messages.js';
import type { Rpc, RpcContext } from './rpc.js';

/** flipt.evaluation.EvaluationRequest as proto-loader decodes it (proto/'s names, defaults filled in). */
export interface EvaluationRequestMessage {
  request_id: string;
  namespace_key: string;
  flag_key: string;
  entity_id: string;
  context: Record<string, string>;
  reference: string;
}

/** flipt.evaluation.BatchEvaluationRequest as proto-loader decodes it. */
export interface BatchRequestMessage {
  request_id: string;
  requests: EvaluationRequestMessage[];
  reference: string;
}

/** The services' view of a request message (as HTTP's body gives it). */
function evaluationInput(message: EvaluationRequestMessage): EvaluationInput {
  return {
    requestId: message.request_id,
    namespaceKey: message.namespace_key,
    flagKey: message.flag_key,
    entityId: message.entity_id,
    context: message.context,
  };
}

/**
 * The per-call fields in the object form of an answer, which rpc.ts renames and proto-loader encodes:
 * only for a result evaluation-answer.ts cannot write (a reason the proto lacks).
 */
function stamp(requestId: string, started: number) {
  return {
    requestId,
    requestDurationMillis: performance.now() - started,
    timestamp: timestampMessage(currentTimestamp()),
  };
}

/** A batch's answer: its bytes (framed: RpcContext.framesAnswer), or the object form when an item has a reason the proto lacks. */
function batchAnswer(answer: BatchEvaluation, started: number, framed: boolean) {
  const encoded = batchAnswerBytes(
    answer.requestId,
    answer.requests,
    answer.items,
    () => performance.now() - started,
    Date.now,
    framed,
  );
  if (encoded !== undefined) return encoded;
  return {
    requestId: answer.requestId,
    responses: answer.items.map((item, i) => {
      const itemRequest = answer.requests[i];
      const stamped = stamp(itemRequest?.requestId ?? '', started);
      switch (item.type) {
        case 'BOOLEAN_EVALUATION_RESPONSE_TYPE':
          return { type: item.type, booleanResponse: { ...item.booleanResponse, ...stamped } };
        case 'VARIANT_EVALUATION_RESPONSE_TYPE':
          return { type: item.type, variantResponse: { ...item.variantResponse, ...stamped } };
        default:
          return {
            type: item.type,
            errorResponse: { ...item.errorResponse, namespaceKey: itemRequest?.namespaceKey ?? '' },
          };
      }
    }),
    requestDurationMillis: performance.now() - started,
  };
}

export function evaluationRpcs({ evaluation }: Services): Rpc<never>[] {
  const single = <R extends BooleanEvaluation | VariantEvaluation>(
    method: string,
    evaluate: (snapshot: NamespaceSnapshot, input: EvaluationInput) => R,
    bytes: (
      result: R,
      requestId: string,
      durationMillis: number,
      millis: number,
      framed: boolean,
    ) => Buffer | undefined,
  ): Rpc<EvaluationRequestMessage> => {
    const answer = (
      snapshot: NamespaceSnapshot,
      request: EvaluationRequestMessage,
      context: RpcContext,
      started: number,
    ) => {
      context.setRevision(snapshot.revision);
      const result = evaluate(snapshot, evaluationInput(request));
      const requestId = request.request_id || randomRequestId();
      return (
        bytes(result, requestId, performance.now() - started, Date.now(), context.framesAnswer === true) ?? {
          ...result,
          ...stamp(requestId, started),
        }
      );
    };
    return {
      method,
      kind: 'evaluation',
      access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' },
      protoNames: true,
      // Synchronous while the namespace's snapshot is held, as over HTTP; a closure only for a call
      // that waits for a snapshot load.
      handle(request, context) {
        const started = performance.now();
        const snapshot = evaluation.snapshot(namespaceKeyOrDefault(request.namespace_key));
        if (snapshot instanceof Promise) return snapshot.then((held) => answer(held, request, context, started));
        return answer(snapshot, request, context, started);
      },
    };
  };

  const batch: Rpc<BatchRequestMessage> = {
    method: 'Batch',
    kind: 'evaluation',
    access: { resource: 'evaluation', action: 'evaluate', namespace: 'items' },
    protoNames: true,
    handle(request, context) {
      const started = performance.now();
      const framed = context.framesAnswer === true;
      const batch = evaluation.batch({
        requestId: request.request_id,
        requests: request.requests.map(evaluationInput),
      });
      return batch instanceof Promise
        ? batch.then((done) => batchAnswer(done, started, framed))
        : batchAnswer(batch, started, framed);
    },
  };

  return [
    single('Boolean', (s, input) => evaluation.booleanResult(s, input), booleanAnswerBytes),
    single('Variant', (s, input) => evaluation.variantResult(s, input), variantAnswerBytes),
    batch,
  ] as Rpc<never>[];
}

export function dataRpcs({ evaluation }: Services): Rpc<never>[] {
  const snapshot: Rpc<{ key: string; reference: string }> = {
    method: 'EvaluationSnapshotNamespace',
    kind: 'client-snapshot',
    access: { resource: 'snapshot', action: 'read', namespace: 'key' },
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
