// flipt.Flipt's deprecated Evaluate and BatchEvaluate (variant flags), over the legacy evaluation use
// case. The service's management methods are the operations table's (api/operations): flipt-services.ts
// puts both in the one service. An empty namespace key is `default`.

import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { Services } from '../../services/index.js';
import { wireToMessage } from './messages.js';
import type { Rpc } from './rpc.js';

// biome-ignore lint/suspicious/noExplicitAny: decoded messages; the legacy use case reads the fields its proto declares
type Req = any;

const ns = (request: Req): string => namespaceKeyOrDefault(request.namespaceKey);

export function legacyEvaluationRpcs(services: Services): Rpc<never>[] {
  const { evaluation, legacyEvaluation } = services;
  const rpcs: Rpc<Req>[] = [
    {
      method: 'Evaluate',
      kind: 'legacy-evaluation',
      access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' },
      async handle(r, context) {
        const started = performance.now();
        const snapshot = await evaluation.snapshot(ns(r));
        context.setRevision(snapshot.revision);
        return wireToMessage(legacyEvaluation.evaluate(snapshot, r, started));
      },
    },
    {
      method: 'BatchEvaluate',
      kind: 'legacy-evaluation',
      access: { resource: 'evaluation', action: 'evaluate', namespace: 'request' },
      async handle(r, context) {
        const started = performance.now();
        const snapshot = await evaluation.snapshot(ns(r));
        context.setRevision(snapshot.revision);
        return wireToMessage(legacyEvaluation.batch(snapshot, r, started));
      },
    },
  ];
  return rpcs as Rpc<never>[];
}
