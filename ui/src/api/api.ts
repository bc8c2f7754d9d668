// Typed functions for every REST endpoint the dashboard calls (behavior.md §3.1, §1.6, §5.2, §7).
// Each returns the server's JSON or throws an ApiError carrying Flipt's error body.

import { noteReadAt, request, requestText, revisionOf } from './client.js';
import type {
  Authentication,
  AuthenticationList,
  BooleanEvaluation,
  ComparisonType,
  Constraint,
  CreatedToken,
  Distribution,
  EvaluationRequest,
  Flag,
  FlagList,
  FlagType,
  MatchType,
  MetaInfo,
  Namespace,
  NamespaceList,
  Rollout,
  RolloutList,
  RolloutSegment,
  RolloutThreshold,
  Rule,
  RuleList,
  Segment,
  SegmentList,
  SegmentOperator,
  Variant,
  VariantEvaluation,
} from './types.js';

const enc = encodeURIComponent;
const nsPath = (ns: string) => `/api/v1/namespaces/${enc(ns)}`;
const flagPath = (ns: string, flagKey: string) => `${nsPath(ns)}/flags/${enc(flagKey)}`;
const segmentPath = (ns: string, segmentKey: string) => `${nsPath(ns)}/segments/${enc(segmentKey)}`;

type Empty = Record<string, never>;

/** A write's precondition: the revision the edited object was read at (client.ts revisionOf). */
export interface WriteOptions {
  ifMatch?: string | undefined;
}

/** Follows nextPageToken until the list is complete (a server may page even when asked for all). */
async function collect<L extends { nextPageToken: string }, T>(
  fetchPage: (pageToken?: string) => Promise<L>,
  items: (list: L) => T[],
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  let first: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = await fetchPage(token);
    first ??= revisionOf(page);
    out.push(...items(page));
    if (!page.nextPageToken || page.nextPageToken === token) break;
    token = page.nextPageToken;
  }
  // The list as a whole is as old as its first page.
  if (first) noteReadAt(out, first);
  return out;
}

// ---- meta, auth -------------------------------------------------------------------------------

export const getMetaInfo = (signal?: AbortSignal) => request<MetaInfo>('GET', '/meta/info', { signal, quiet401: true });

/** The caller's own authentication; `token` tests a token before it is kept. */
export const getSelf = (token?: string) => request<Authentication>('GET', '/auth/v1/self', { token, quiet401: true });

/** One of the server's authentication methods, as GET /auth/v1/method lists them. */
export interface AuthMethodInfo {
  method: string;
  enabled: boolean;
  sessionCompatible: boolean;
  metadata?: Record<string, unknown>;
}

/** The methods the server offers (an open call). */
export const listAuthMethods = () =>
  request<{ methods: AuthMethodInfo[] }>('GET', '/auth/v1/method', { quiet401: true });

/** Starts a sign-in: the server sets its state cookie and answers where to send the browser. */
export const startSignIn = (authorizePath: string) =>
  request<{ authorizeUrl: string }>('GET', authorizePath, { quiet401: true });

/** Ends the browser's own session (the server also clears its cookie). */
export const expireSelf = () => request<Record<string, never>>('PUT', '/auth/v1/self/expire', { quiet401: true });

export const listTokens = (pageToken?: string) =>
  request<AuthenticationList>('GET', '/auth/v1/tokens', { query: { limit: 100, pageToken } });

export interface TokenInput {
  name: string;
  description?: string;
  expiresAt?: string;
  namespaceKey?: string;
  /** The token's roles (issue 41); none: today's meaning, everything within its namespace scope. */
  roles?: { role: string; namespace: string }[];
}
export const createToken = (input: TokenInput) =>
  request<CreatedToken>('POST', '/auth/v1/method/token', { body: input });
export const deleteToken = (id: string) => request<Empty>('DELETE', `/auth/v1/tokens/${enc(id)}`);

// ---- namespaces -------------------------------------------------------------------------------

export interface NamespaceInput {
  key: string;
  name: string;
  description: string;
}
export const listNamespaces = () =>
  collect(
    (pageToken) =>
      request<NamespaceList>('GET', '/api/v1/namespaces', {
        query: { pageToken, limit: pageToken ? 1000 : undefined },
      }),
    (l) => l.namespaces,
  );
export const getNamespace = (key: string) => request<Namespace>('GET', nsPath(key));
export const createNamespace = (input: NamespaceInput) =>
  request<Namespace>('POST', '/api/v1/namespaces', { body: input });
export const updateNamespace = (key: string, input: Omit<NamespaceInput, 'key'>, options: WriteOptions = {}) =>
  request<Namespace>('PUT', nsPath(key), { body: input, ...options });
export const deleteNamespace = (key: string, force = false) =>
  request<Empty>('DELETE', nsPath(key), { query: { force: force ? 'true' : undefined } });

// ---- flags and variants -----------------------------------------------------------------------

export interface FlagCreateInput {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type: FlagType;
  metadata?: Flag['metadata'];
}
export interface FlagUpdateInput {
  name: string;
  description: string;
  enabled: boolean;
  /** Always sent: Flipt clears the default variant when it is omitted. */
  defaultVariantId: string;
  metadata?: Flag['metadata'];
}

/** Every flag of a namespace (the list page filters and pages in the browser). */
export const listAllFlags = (ns: string, signal?: AbortSignal) =>
  collect(
    (pageToken) =>
      request<FlagList>('GET', `${nsPath(ns)}/flags`, {
        signal,
        query: { pageToken, limit: pageToken ? 1000 : undefined },
      }),
    (l) => l.flags,
  );
/** How many flags the namespace holds (the list's total, read with one item). */
export const countFlags = async (ns: string) =>
  (await request<FlagList>('GET', `${nsPath(ns)}/flags`, { query: { limit: 1 } })).totalCount;
export const countSegments = async (ns: string) =>
  (await request<SegmentList>('GET', `${nsPath(ns)}/segments`, { query: { limit: 1 } })).totalCount;
export const getFlag = (ns: string, key: string) => request<Flag>('GET', flagPath(ns, key));
export const createFlag = (ns: string, input: FlagCreateInput) =>
  request<Flag>('POST', `${nsPath(ns)}/flags`, { body: input });
export const updateFlag = (ns: string, key: string, input: FlagUpdateInput, options: WriteOptions = {}) =>
  request<Flag>('PUT', flagPath(ns, key), { body: input, ...options });
export const deleteFlag = (ns: string, key: string) => request<Empty>('DELETE', flagPath(ns, key));

/** The body of a flag update that changes only `changes`, keeping everything else as stored. */
export function flagUpdateFrom(flag: Flag, changes: Partial<FlagUpdateInput> = {}): FlagUpdateInput {
  return {
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    defaultVariantId: flag.defaultVariant?.id ?? '',
    ...(flag.metadata ? { metadata: flag.metadata } : {}),
    ...changes,
  };
}

export interface VariantInput {
  key: string;
  name: string;
  description: string;
  attachment: string;
}
export const createVariant = (ns: string, flagKey: string, input: VariantInput) =>
  request<Variant>('POST', `${flagPath(ns, flagKey)}/variants`, { body: input });
export const updateVariant = (
  ns: string,
  flagKey: string,
  id: string,
  input: VariantInput,
  options: WriteOptions = {},
) => request<Variant>('PUT', `${flagPath(ns, flagKey)}/variants/${enc(id)}`, { body: input, ...options });
export const deleteVariant = (ns: string, flagKey: string, id: string) =>
  request<Empty>('DELETE', `${flagPath(ns, flagKey)}/variants/${enc(id)}`);

// ---- rules and distributions ------------------------------------------------------------------

export interface SegmentSelection {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
}
/** Flipt takes one segment as `segmentKey` and several as `segmentKeys`, never both. */
function segmentFields(selection: SegmentSelection) {
  return selection.segmentKeys.length === 1
    ? { segmentKey: selection.segmentKeys[0], segmentOperator: 'OR_SEGMENT_OPERATOR' as const }
    : { segmentKeys: selection.segmentKeys, segmentOperator: selection.segmentOperator };
}

export const listRules = (ns: string, flagKey: string) =>
  collect(
    (pageToken) =>
      request<RuleList>('GET', `${flagPath(ns, flagKey)}/rules`, {
        query: { pageToken, limit: pageToken ? 1000 : undefined },
      }),
    (l) => l.rules,
  );
/** A rule's whole split, written with the rule in one request (a Vexil extension, ADR 0036). */
export interface SplitInput {
  variantId: string;
  rollout: number;
}
export const createRule = (
  ns: string,
  flagKey: string,
  rank: number,
  selection: SegmentSelection,
  distributions?: SplitInput[],
) =>
  request<Rule>('POST', `${flagPath(ns, flagKey)}/rules`, {
    body: { rank, ...segmentFields(selection), ...(distributions ? { distributions } : {}) },
  });
export const updateRule = (
  ns: string,
  flagKey: string,
  id: string,
  selection: SegmentSelection,
  distributions?: SplitInput[],
  options: WriteOptions = {},
) =>
  request<Rule>('PUT', `${flagPath(ns, flagKey)}/rules/${enc(id)}`, {
    body: { ...segmentFields(selection), ...(distributions ? { distributions } : {}) },
    ...options,
  });
export const deleteRule = (ns: string, flagKey: string, id: string) =>
  request<Empty>('DELETE', `${flagPath(ns, flagKey)}/rules/${enc(id)}`);
export const orderRules = (ns: string, flagKey: string, ruleIds: string[]) =>
  request<Empty>('PUT', `${flagPath(ns, flagKey)}/rules/order`, { body: { ruleIds } });

export const createDistribution = (ns: string, flagKey: string, ruleId: string, variantId: string, rollout: number) =>
  request<Distribution>('POST', `${flagPath(ns, flagKey)}/rules/${enc(ruleId)}/distributions`, {
    body: { variantId, rollout },
  });
export const updateDistribution = (
  ns: string,
  flagKey: string,
  ruleId: string,
  id: string,
  variantId: string,
  rollout: number,
) =>
  request<Distribution>('PUT', `${flagPath(ns, flagKey)}/rules/${enc(ruleId)}/distributions/${enc(id)}`, {
    body: { variantId, rollout },
  });
export const deleteDistribution = (ns: string, flagKey: string, ruleId: string, id: string, variantId: string) =>
  request<Empty>('DELETE', `${flagPath(ns, flagKey)}/rules/${enc(ruleId)}/distributions/${enc(id)}`, {
    query: { variantId },
  });

// ---- rollouts ---------------------------------------------------------------------------------

export type RolloutRuleInput = { threshold: RolloutThreshold } | { segment: SegmentSelection & { value: boolean } };

function rolloutRuleBody(
  rule: RolloutRuleInput,
): { threshold: RolloutThreshold } | { segment: Partial<RolloutSegment> } {
  if ('threshold' in rule) return { threshold: rule.threshold };
  return { segment: { ...segmentFields(rule.segment), value: rule.segment.value } };
}

export const listRollouts = (ns: string, flagKey: string) =>
  collect(
    (pageToken) =>
      request<RolloutList>('GET', `${flagPath(ns, flagKey)}/rollouts`, {
        query: { pageToken, limit: pageToken ? 1000 : undefined },
      }),
    (l) => l.rules,
  );
export const createRollout = (ns: string, flagKey: string, rank: number, description: string, rule: RolloutRuleInput) =>
  request<Rollout>('POST', `${flagPath(ns, flagKey)}/rollouts`, {
    body: { rank, description, ...rolloutRuleBody(rule) },
  });
export const updateRollout = (
  ns: string,
  flagKey: string,
  id: string,
  description: string,
  rule: RolloutRuleInput,
  options: WriteOptions = {},
) =>
  request<Rollout>('PUT', `${flagPath(ns, flagKey)}/rollouts/${enc(id)}`, {
    body: { description, ...rolloutRuleBody(rule) },
    ...options,
  });
export const deleteRollout = (ns: string, flagKey: string, id: string) =>
  request<Empty>('DELETE', `${flagPath(ns, flagKey)}/rollouts/${enc(id)}`);
export const orderRollouts = (ns: string, flagKey: string, rolloutIds: string[]) =>
  request<Empty>('PUT', `${flagPath(ns, flagKey)}/rollouts/order`, { body: { rolloutIds } });

// ---- segments and constraints -----------------------------------------------------------------

export interface SegmentInput {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
}
export const listAllSegments = (ns: string) =>
  collect(
    (pageToken) =>
      request<SegmentList>('GET', `${nsPath(ns)}/segments`, {
        query: { pageToken, limit: pageToken ? 1000 : undefined },
      }),
    (l) => l.segments,
  );
export const getSegment = (ns: string, key: string) => request<Segment>('GET', segmentPath(ns, key));
export const createSegment = (ns: string, input: SegmentInput) =>
  request<Segment>('POST', `${nsPath(ns)}/segments`, { body: input });
export const updateSegment = (ns: string, key: string, input: Omit<SegmentInput, 'key'>, options: WriteOptions = {}) =>
  request<Segment>('PUT', segmentPath(ns, key), { body: input, ...options });
export const deleteSegment = (ns: string, key: string) => request<Empty>('DELETE', segmentPath(ns, key));

export interface ConstraintInput {
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  description: string;
}
export const createConstraint = (ns: string, segmentKey: string, input: ConstraintInput) =>
  request<Constraint>('POST', `${segmentPath(ns, segmentKey)}/constraints`, { body: input });
export const updateConstraint = (ns: string, segmentKey: string, id: string, input: ConstraintInput) =>
  request<Constraint>('PUT', `${segmentPath(ns, segmentKey)}/constraints/${enc(id)}`, { body: input });
export const deleteConstraint = (ns: string, segmentKey: string, id: string) =>
  request<Empty>('DELETE', `${segmentPath(ns, segmentKey)}/constraints/${enc(id)}`);

// ---- evaluation -------------------------------------------------------------------------------

export const evaluateBoolean = (input: EvaluationRequest, explain: boolean) =>
  request<BooleanEvaluation>('POST', '/evaluate/v1/boolean', {
    body: input,
    query: { explain: explain ? 'true' : undefined },
  });
export const evaluateVariant = (input: EvaluationRequest, explain: boolean) =>
  request<VariantEvaluation>('POST', '/evaluate/v1/variant', {
    body: input,
    query: { explain: explain ? 'true' : undefined },
  });

// ---- import and export (Flipt's document format) ---------------------------------------------

/** One object an import created, skipped or dropped. */
export interface ImportEntry {
  namespace: string;
  type: string;
  key: string;
}

export interface ImportResult {
  created: ImportEntry[];
  skipped: ImportEntry[];
  dropped: ImportEntry[];
}

export interface ImportOptions {
  skipExisting?: boolean;
  dryRun?: boolean;
  /**
   * The namespace the document is for, checked before the body is read (issue 41): without it the
   * server checks `default`, which a caller with roles elsewhere may not write to.
   */
  namespaceKey?: string | undefined;
}

/** The namespace as a Flipt document (YAML unless asked for JSON). */
/** The namespace's export; `header` heads it as an export file is (for a download). */
export const exportNamespace = (ns: string, format: 'yaml' | 'json' = 'yaml', header = false) =>
  requestText('GET', `${nsPath(ns)}/export`, { query: { format, header: header || undefined } });

/** Imports a document (YAML or JSON text) in one transaction; a dry run changes nothing. */
export const importDocument = (text: string, contentType: string, options: ImportOptions = {}) =>
  requestText('POST', '/api/v1/import', {
    body: { text, contentType },
    accept: 'application/json',
    query: {
      skip_existing: options.skipExisting || undefined,
      dry_run: options.dryRun || undefined,
      namespace_key: options.namespaceKey || undefined,
    },
  }).then((answer) => JSON.parse(answer) as ImportResult);
