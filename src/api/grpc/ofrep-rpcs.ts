// flipt.ofrep.OFREPService over the OFREP service, as /ofrep calls it: the namespace from
// `x-service-namespace` metadata, else Flipt's `x-flipt-namespace`, else `default`; the entity from
// the context's targetingKey; a missing flag is NOT_FOUND `flag was not found <key>` (Flipt's words).
// Bulk answers carry no ETag: gRPC has no conditional requests.

import type { Metadata } from '@grpc/grpc-js';
import type { Config } from '../../config/schema.js';
import { GrpcCode, InvalidArgumentError } from '../../domain/errors.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { EvaluationContext } from '../../evaluation/index.js';
import type { Services } from '../../services/index.js';
import { FlagFailure } from '../../services/ofrep.js';
import { errorStatus } from '../error-status.js';
import {
  OFREP_EVALUATION,
  OFREP_NAMESPACE_KEYS,
  type OfrepFlag,
  ofrepConfiguration,
  ofrepFlag,
} from '../ofrep-shapes.js';
import { jsonToStruct, wireToMessage } from './messages.js';
import { type Rpc, RpcError } from './rpc.js';

// biome-ignore lint/suspicious/noExplicitAny: decoded messages; each adapter reads the fields its proto declares
type Req = any;

function metadataValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return value === undefined || value === '' ? undefined : value.toString();
}

function namespaceOf(metadata: Metadata): string {
  return namespaceKeyOrDefault(
    metadataValue(metadata, OFREP_NAMESPACE_KEYS[0]) ?? metadataValue(metadata, OFREP_NAMESPACE_KEYS[1]),
  );
}

/** flipt.ofrep.EvaluatedFlag: metadata as a Struct, the value as a google.protobuf.Value. */
function flagMessage(flag: OfrepFlag) {
  return {
    key: flag.key,
    reason: flag.reason,
    variant: flag.variant,
    metadata: jsonToStruct(flag.metadata),
    value: typeof flag.value === 'boolean' ? { boolValue: flag.value } : { stringValue: flag.value },
  };
}

/** A flag's failure in Flipt's OFREP terms. */
function unwrap(err: unknown): unknown {
  if (!(err instanceof FlagFailure)) return err;
  const { code } = errorStatus(err.cause);
  return code === GrpcCode.NOT_FOUND ? new RpcError(code, `flag was not found ${err.key}`) : err.cause;
}

export function ofrepRpcs({ ofrep }: Services, config: Config): Rpc<never>[] {
  const configuration = wireToMessage(ofrepConfiguration(config));
  const rpcs: Rpc<Req>[] = [
    {
      method: 'GetProviderConfiguration',
      kind: 'ofrep-configuration',
      access: { resource: 'snapshot', action: 'read', namespace: 'none' },
      handle: () => configuration,
    },
    {
      method: 'EvaluateFlag',
      kind: 'ofrep',
      access: OFREP_EVALUATION,
      async handle(r, context) {
        if (!r.key) throw new InvalidArgumentError('flag key was not provided');
        const evaluationContext = r.context as EvaluationContext;
        const entityId = ofrep.entityOf(evaluationContext);
        const snapshot = await ofrep.snapshot(namespaceOf(context.metadata));
        context.setRevision(snapshot.revision);
        try {
          return flagMessage(ofrep.evaluate(snapshot, r.key, entityId, evaluationContext, ofrepFlag));
        } catch (err) {
          throw unwrap(err);
        }
      },
    },
    {
      method: 'EvaluateBulk',
      kind: 'ofrep',
      access: OFREP_EVALUATION,
      async handle(r, context) {
        const query = ofrep.bulkQuery(r.context);
        const snapshot = await ofrep.snapshot(namespaceOf(context.metadata));
        context.setRevision(snapshot.revision);
        try {
          return { flags: ofrep.bulk(snapshot, query, ofrepFlag).flags.map(flagMessage) };
        } catch (err) {
          throw unwrap(err);
        }
      },
    },
  ];
  return rpcs as Rpc<never>[];
}
