// OFREP's answers as objects, for both transports: the provider configuration, the reason names and an
// evaluated flag (behavior.md §6). HTTP writes flags as cached JSON bytes (http/evaluation-json.ts,
// with the reason mapping from here); gRPC's OFREPService sends these objects as flipt.ofrep messages.

import type { Access } from '../auth/access.js';
import { ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { FlagEvaluation } from '../evaluation/index.js';

/** Where OFREP names the namespace (an HTTP header, a gRPC metadata key): its own first, then Flipt's. */
export const OFREP_NAMESPACE_KEYS = ['x-service-namespace', 'x-flipt-namespace'] as const;

/** An OFREP evaluation of the namespace those name, which authorization reads from them too. */
export const OFREP_EVALUATION: Access = {
  resource: 'evaluation',
  action: 'evaluate',
  namespace: 'request',
  namespaceHeaders: OFREP_NAMESPACE_KEYS,
};

export type OfrepReasonName = 'TARGETING_MATCH' | 'DISABLED' | 'DEFAULT' | 'UNKNOWN';

const OFREP_REASONS: Readonly<Record<string, OfrepReasonName>> = {
  MATCH_EVALUATION_REASON: 'TARGETING_MATCH',
  FLAG_DISABLED_EVALUATION_REASON: 'DISABLED',
  DEFAULT_EVALUATION_REASON: 'DEFAULT',
};

export function ofrepReason(reason: string): OfrepReasonName {
  return OFREP_REASONS[reason] ?? 'UNKNOWN';
}

/** GET /ofrep/v1/configuration's answer. */
export function ofrepConfiguration(config: Pick<Config, 'cache'>) {
  return {
    name: 'flipt',
    capabilities: {
      cacheInvalidation: {
        polling: config.cache.enabled
          ? { enabled: true, minPollingIntervalMs: ms(config.cache.ttl) }
          : { enabled: false, minPollingIntervalMs: 0 },
      },
      flagEvaluation: { supportedTypes: ['string', 'boolean'] },
    },
  };
}

export interface OfrepFlag {
  key: string;
  reason: OfrepReasonName;
  variant: string;
  /** Variant flags: the matched segments (comma-separated) and the attachment, each only when present. */
  metadata: Record<string, string>;
  value: boolean | string;
}

/** OFREP's EvaluatedFlag for an evaluated (found) flag. */
export function ofrepFlag(item: FlagEvaluation): OfrepFlag {
  if (item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE') {
    const r = item.booleanResponse;
    return {
      key: r.flagKey,
      reason: ofrepReason(r.reason),
      variant: String(r.enabled),
      metadata: {},
      value: r.enabled,
    };
  }
  if (item.type === 'VARIANT_EVALUATION_RESPONSE_TYPE') {
    const r = item.variantResponse;
    const metadata: Record<string, string> = {};
    if (r.segmentKeys.length > 0) metadata.segments = r.segmentKeys.join(',');
    if (r.variantAttachment !== '') metadata.attachment = r.variantAttachment;
    return { key: r.flagKey, reason: ofrepReason(r.reason), variant: r.variantKey, metadata, value: r.variantKey };
  }
  throw new Error(`flag "${item.errorResponse.flagKey}" was not evaluated`);
}
