// An empty namespace key means `default` on every route and RPC that addresses a namespace, as in Flipt
// (a client that leaves its namespace empty calls `/api/v1/namespaces//segments`), on every backend,
// without authentication and with a token scoped to `default` (the scope check must read "" as
// `default` too). The walk is over the router and the gRPC service tables: a route or RPC that takes a
// namespace and has no row here fails the coverage test. Each row addresses "" (in the path, body,
// query or OFREP header), and must answer as `default` does: reads equal the same read of `default`,
// writes land in `default` (a witness read of `default` shows them), deletes remove from `default`.
// The change streams (SSE and gRPC's WatchNamespace) must open "" as `default`'s stream.

import { type ClientReadableStream, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fliptServiceTables } from '../../src/api/grpc/flipt-services.js';
import { declaredRoutes } from '../../src/api/http/route-kinds.js';
import type { RouteKind } from '../../src/api/kinds.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg, messageJson, serviceConstructor } from '../helpers/flipt-grpc.js';
import { openSse } from '../helpers/sse.js';

const BOOT = 'empty-namespace-bootstrap';

/** Kinds whose routes address a namespace (the others: tokens, meta, probes, OFREP's configuration, the UI). */
const NAMESPACED_KINDS: ReadonlySet<RouteKind> = new Set([
  'management',
  'evaluation',
  'legacy-evaluation',
  'ofrep',
  'client-snapshot',
  'ofrep-events',
  'change-stream',
]);

/** Routes of those kinds that address no namespace, or whose namespace cannot be empty in a URL. */
const HTTP_EXEMPT: Record<string, string> = {
  'GET /api/v1/namespaces': 'lists every namespace',
  'POST /api/v1/namespaces': 'creates the namespace its body names (an empty key is a validation error)',
  'GET /api/v1/namespaces/:key': 'an empty key is the trailing slash of the listing',
  'PUT /api/v1/namespaces/:key': 'an empty key is the trailing slash of the listing (405)',
  'DELETE /api/v1/namespaces/:key': 'an empty key is the trailing slash of the listing (405)',
  'GET /internal/v1/evaluation/snapshot/namespace/:key':
    'an empty key is a trailing slash (over gRPC, EvaluationSnapshotNamespace covers "")',
  'POST /api/v1/import': 'the documents name their namespaces',
  'GET /api/v1/changes': 'across namespaces',
};

/** RPCs with a namespace_key that is not an addressed namespace. */
const GRPC_EXEMPT: Record<string, string> = {
  'flipt.auth.AuthenticationMethodTokenService/CreateToken': "namespace_key scopes the new token; '' = unscoped",
  'flipt.Flipt/ListNamespaces': 'lists every namespace',
  'flipt.Flipt/CreateNamespace': 'an empty key is a validation error',
  // Flipt takes a namespace's own key as given here: "" is not found (update) or, oddly, refused as
  // protected (delete, which looks `default` up); Vexil answers NOT_FOUND to both.
  'flipt.Flipt/UpdateNamespace': "the namespace's own key, taken as given (not found)",
  'flipt.Flipt/DeleteNamespace': "the namespace's own key, taken as given (not found)",
};

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The ids rows create and later rows use. */
type Ids = Record<string, string>;

interface HttpRow {
  /** The route as registered (`METHOD /url/:param`). */
  route: string;
  /** The request, for namespace `ns` ('' in the row, `default` for the comparison). */
  request(ns: string, ids: Ids): { path: string; body?: unknown; headers?: Record<string, string> };
  /** Reads: the same request for `default` answers the same (after `volatile` fields are dropped). */
  same?: true;
  /** The answer repeats the request's namespaceKey (Flipt's deprecated Evaluate): not compared. */
  echoes?: true;
  /** Writes: keep ids from the answer. */
  keep?(body: Msg, ids: Ids): void;
  /** A read of `default` that must show the write (a subset of its answer), or 404 for a delete. */
  witness?(ids: Ids): { path: string; has?: unknown; gone?: true };
  /** The row uses the unscoped token (OFREP refuses namespace-scoped tokens by design). */
  unscoped?: true;
}

/** Answer fields that differ between two identical requests. */
const VOLATILE = new Set(['requestId', 'timestamp', 'requestDurationMillis']);

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, stable(v)]),
  );
}

const ctx = { entityId: 'e1', context: { p: 'w' } };
const q = (ns: string) => `namespaceKey=${ns}`;
const nsPath = (ns: string) => `/api/v1/namespaces/${ns}`;
const D = '/api/v1/namespaces/default';

/** In lifecycle order: creates, reads, updates, evaluations, history, deletes. */
const HTTP_ROWS: HttpRow[] = [
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags',
    request: (ns) => ({ path: `${nsPath(ns)}/flags`, body: { key: 'vf', name: 'VF', type: 'VARIANT_FLAG_TYPE' } }),
    witness: () => ({ path: `${D}/flags/vf`, has: { key: 'vf', namespaceKey: 'default' } }),
  },
  {
    route: 'POST /api/v1/flags',
    request: (ns) => ({
      path: '/api/v1/flags',
      body: { namespaceKey: ns, key: 'bf', name: 'BF', type: 'BOOLEAN_FLAG_TYPE' },
    }),
    witness: () => ({ path: `${D}/flags/bf`, has: { key: 'bf' } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf`, body: { name: 'VF2', enabled: true } }),
    witness: () => ({ path: `${D}/flags/vf`, has: { name: 'VF2', enabled: true } }),
  },
  {
    route: 'PUT /api/v1/flags/:key',
    request: (ns) => ({ path: '/api/v1/flags/bf', body: { namespaceKey: ns, name: 'BF2', enabled: true } }),
    witness: () => ({ path: `${D}/flags/bf`, has: { name: 'BF2', enabled: true } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags/:flagKey/variants',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf/variants`, body: { key: 'one' } }),
    keep: (body, ids) => {
      ids.v1 = body.id;
    },
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [{ key: 'one' }] } }),
  },
  {
    route: 'POST /api/v1/flags/:flagKey/variants',
    request: (ns) => ({ path: '/api/v1/flags/vf/variants', body: { namespaceKey: ns, key: 'two' } }),
    keep: (body, ids) => {
      ids.v2 = body.id;
    },
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [{ key: 'one' }, { key: 'two' }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/variants/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/variants/${ids.v1}`, body: { key: 'one', name: 'One' } }),
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [{ key: 'one', name: 'One' }, { key: 'two' }] } }),
  },
  {
    route: 'PUT /api/v1/flags/:flagKey/variants/:id',
    request: (ns, ids) => ({
      path: `/api/v1/flags/vf/variants/${ids.v2}`,
      body: { namespaceKey: ns, key: 'two', name: 'Two' },
    }),
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [{ name: 'One' }, { name: 'Two' }] } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/segments',
    request: (ns) => ({ path: `${nsPath(ns)}/segments`, body: { key: 'sa', name: 'SA', matchType: 'ALL_MATCH_TYPE' } }),
    witness: () => ({ path: `${D}/segments/sa`, has: { key: 'sa' } }),
  },
  {
    route: 'POST /api/v1/segments',
    request: (ns) => ({ path: '/api/v1/segments', body: { namespaceKey: ns, key: 'sb', name: 'SB' } }),
    witness: () => ({ path: `${D}/segments/sb`, has: { key: 'sb' } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/segments/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/segments/sa`, body: { name: 'SA2', matchType: 'ANY_MATCH_TYPE' } }),
    witness: () => ({ path: `${D}/segments/sa`, has: { name: 'SA2', matchType: 'ANY_MATCH_TYPE' } }),
  },
  {
    route: 'PUT /api/v1/segments/:key',
    request: (ns) => ({ path: '/api/v1/segments/sb', body: { namespaceKey: ns, name: 'SB2' } }),
    witness: () => ({ path: `${D}/segments/sb`, has: { name: 'SB2' } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/segments/:segmentKey/constraints',
    request: (ns) => ({
      path: `${nsPath(ns)}/segments/sa/constraints`,
      body: { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' },
    }),
    keep: (body, ids) => {
      ids.c1 = body.id;
    },
    witness: () => ({ path: `${D}/segments/sa`, has: { constraints: [{ property: 'p', value: 'v' }] } }),
  },
  {
    route: 'POST /api/v1/segments/:segmentKey/constraints',
    request: (ns) => ({
      path: '/api/v1/segments/sb/constraints',
      body: { namespaceKey: ns, type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' },
    }),
    keep: (body, ids) => {
      ids.c2 = body.id;
    },
    witness: () => ({ path: `${D}/segments/sb`, has: { constraints: [{ property: 'p' }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/segments/:segmentKey/constraints/:id',
    request: (ns, ids) => ({
      path: `${nsPath(ns)}/segments/sa/constraints/${ids.c1}`,
      body: { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'w' },
    }),
    witness: () => ({ path: `${D}/segments/sa`, has: { constraints: [{ value: 'w' }] } }),
  },
  {
    route: 'PUT /api/v1/segments/:segmentKey/constraints/:id',
    request: (ns, ids) => ({
      path: `/api/v1/segments/sb/constraints/${ids.c2}`,
      body: { namespaceKey: ns, type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'w' },
    }),
    witness: () => ({ path: `${D}/segments/sb`, has: { constraints: [{ value: 'w' }] } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf/rules`, body: { segmentKey: 'sa', rank: 1 } }),
    keep: (body, ids) => {
      ids.r1 = body.id;
    },
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sa' }] } }),
  },
  {
    route: 'POST /api/v1/flags/:flagKey/rules',
    request: (ns) => ({ path: '/api/v1/flags/vf/rules', body: { namespaceKey: ns, segmentKey: 'sb', rank: 2 } }),
    keep: (body, ids) => {
      ids.r2 = body.id;
    },
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sa' }, { segmentKey: 'sb' }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}`, body: { segmentKey: 'sb' } }),
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sb' }, { segmentKey: 'sb' }] } }),
  },
  {
    route: 'PUT /api/v1/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `/api/v1/flags/vf/rules/${ids.r1}`, body: { namespaceKey: ns, segmentKey: 'sa' } }),
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sa' }, { segmentKey: 'sb' }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/order',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/rules/order`, body: { ruleIds: [ids.r2, ids.r1] } }),
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sb' }, { segmentKey: 'sa' }] } }),
  },
  {
    route: 'PUT /api/v1/flags/:flagKey/rules/order',
    request: (ns, ids) => ({
      path: '/api/v1/flags/vf/rules/order',
      body: { namespaceKey: ns, ruleIds: [ids.r1, ids.r2] },
    }),
    witness: () => ({ path: `${D}/flags/vf/rules`, has: { rules: [{ segmentKey: 'sa' }, { segmentKey: 'sb' }] } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:ruleId/distributions',
    request: (ns, ids) => ({
      path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}/distributions`,
      body: { variantId: ids.v1, rollout: 50 },
    }),
    keep: (body, ids) => {
      ids.d1 = body.id;
    },
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r1}`, has: { distributions: [{ rollout: 50 }] } }),
  },
  {
    route: 'POST /api/v1/flags/:flagKey/rules/:ruleId/distributions',
    request: (ns, ids) => ({
      path: `/api/v1/flags/vf/rules/${ids.r2}/distributions`,
      body: { namespaceKey: ns, variantId: ids.v2, rollout: 50 },
    }),
    keep: (body, ids) => {
      ids.d2 = body.id;
    },
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r2}`, has: { distributions: [{ rollout: 50 }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:ruleId/distributions/:id',
    request: (ns, ids) => ({
      path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}/distributions/${ids.d1}`,
      body: { variantId: ids.v1, rollout: 100 },
    }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r1}`, has: { distributions: [{ rollout: 100 }] } }),
  },
  {
    route: 'PUT /api/v1/flags/:flagKey/rules/:ruleId/distributions/:id',
    request: (ns, ids) => ({
      path: `/api/v1/flags/vf/rules/${ids.r2}/distributions/${ids.d2}`,
      body: { namespaceKey: ns, variantId: ids.v2, rollout: 100 },
    }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r2}`, has: { distributions: [{ rollout: 100 }] } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts',
    request: (ns) => ({
      path: `${nsPath(ns)}/flags/bf/rollouts`,
      body: { rank: 1, segment: { segmentKey: 'sa', value: true } },
    }),
    keep: (body, ids) => {
      ids.ro1 = body.id;
    },
    witness: () => ({ path: `${D}/flags/bf/rollouts`, has: { rules: [{ segment: { segmentKey: 'sa' } }] } }),
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts/:id',
    request: (ns, ids) => ({
      path: `${nsPath(ns)}/flags/bf/rollouts/${ids.ro1}`,
      body: { segment: { segmentKey: 'sb', value: true } },
    }),
    witness: () => ({ path: `${D}/flags/bf/rollouts`, has: { rules: [{ segment: { segmentKey: 'sb' } }] } }),
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/bf/rollouts`, body: { rank: 2, threshold: { percentage: 50 } } }),
    keep: (body, ids) => {
      ids.ro2 = body.id;
    },
  },
  {
    route: 'PUT /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts/order',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/bf/rollouts/order`, body: { rolloutIds: [ids.ro2, ids.ro1] } }),
    witness: (ids) => ({ path: `${D}/flags/bf/rollouts`, has: { rules: [{ id: ids.ro2 }, { id: ids.ro1 }] } }),
  },

  // Reads: the same answer as `default`'s.
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags',
    request: (ns) => ({ path: `${nsPath(ns)}/flags` }),
    same: true,
  },
  { route: 'GET /api/v1/flags', request: (ns) => ({ path: `/api/v1/flags?${q(ns)}` }), same: true },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf` }),
    same: true,
  },
  { route: 'GET /api/v1/flags/:key', request: (ns) => ({ path: `/api/v1/flags/vf?${q(ns)}` }), same: true },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/segments',
    request: (ns) => ({ path: `${nsPath(ns)}/segments` }),
    same: true,
  },
  { route: 'GET /api/v1/segments', request: (ns) => ({ path: `/api/v1/segments?${q(ns)}` }), same: true },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/segments/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/segments/sa` }),
    same: true,
  },
  { route: 'GET /api/v1/segments/:key', request: (ns) => ({ path: `/api/v1/segments/sa?${q(ns)}` }), same: true },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf/rules` }),
    same: true,
  },
  {
    route: 'GET /api/v1/flags/:flagKey/rules',
    request: (ns) => ({ path: `/api/v1/flags/vf/rules?${q(ns)}` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}` }),
    same: true,
  },
  {
    route: 'GET /api/v1/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `/api/v1/flags/vf/rules/${ids.r1}?${q(ns)}` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/bf/rollouts` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/bf/rollouts/${ids.ro1}` }),
    same: true,
  },
  // The export's first lines name the time it was written; the rest must be the same document.
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/export',
    request: (ns) => ({ path: `${nsPath(ns)}/export` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/changes',
    request: (ns) => ({ path: `${nsPath(ns)}/changes` }),
    keep: (body, ids) => {
      ids.change = body.changes.find(
        (c: Msg) => c.resourceType === 'segment' && c.resourceKey === 'sa' && c.action === 'updated',
      ).id;
    },
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/flags/:key/changes',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf/changes` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/segments/:key/changes',
    request: (ns) => ({ path: `${nsPath(ns)}/segments/sa/changes` }),
    same: true,
  },
  {
    route: 'GET /api/v1/namespaces/:namespaceKey/changes/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/changes/${ids.change}` }),
    same: true,
  },

  // Evaluations: the same answer as `default`'s.
  {
    route: 'POST /evaluate/v1/boolean',
    request: (ns) => ({ path: '/evaluate/v1/boolean', body: { namespaceKey: ns, flagKey: 'bf', ...ctx } }),
    same: true,
  },
  {
    route: 'POST /evaluate/v1/variant',
    request: (ns) => ({ path: '/evaluate/v1/variant', body: { namespaceKey: ns, flagKey: 'vf', ...ctx } }),
    same: true,
  },
  {
    route: 'POST /evaluate/v1/batch',
    request: (ns) => ({
      path: '/evaluate/v1/batch',
      body: {
        requests: [
          { namespaceKey: ns, flagKey: 'vf', ...ctx },
          { namespaceKey: ns, flagKey: 'bf', ...ctx },
        ],
      },
    }),
    same: true,
  },
  {
    route: 'POST /api/v1/evaluate',
    request: (ns) => ({ path: '/api/v1/evaluate', body: { namespaceKey: ns, flagKey: 'vf', ...ctx } }),
    same: true,
    echoes: true,
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/evaluate',
    request: (ns) => ({ path: `${nsPath(ns)}/evaluate`, body: { flagKey: 'vf', ...ctx } }),
    same: true,
    echoes: true,
  },
  {
    route: 'POST /api/v1/batch-evaluate',
    request: (ns) => ({
      path: '/api/v1/batch-evaluate',
      body: { namespaceKey: ns, requests: [{ flagKey: 'vf', ...ctx }] },
    }),
    same: true,
  },
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/batch-evaluate',
    request: (ns) => ({ path: `${nsPath(ns)}/batch-evaluate`, body: { requests: [{ flagKey: 'vf', ...ctx }] } }),
    same: true,
  },
  {
    route: 'POST /ofrep/v1/evaluate/flags/:key',
    request: (ns) => ({
      path: '/ofrep/v1/evaluate/flags/vf',
      body: { context: { targetingKey: 'e1', p: 'w' } },
      headers: { 'x-flipt-namespace': ns },
    }),
    same: true,
    unscoped: true,
  },
  {
    route: 'POST /ofrep/v1/evaluate/flags',
    request: (ns) => ({
      path: '/ofrep/v1/evaluate/flags',
      body: { context: { targetingKey: 'e1', p: 'w' } },
      headers: { 'x-flipt-namespace': ns },
    }),
    same: true,
    unscoped: true,
  },

  // A revert of the segment's update, then deletes, each gone from `default` afterwards.
  {
    route: 'POST /api/v1/namespaces/:namespaceKey/changes/:id/revert',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/changes/${ids.change}/revert` }),
    witness: () => ({ path: `${D}/segments/sa`, has: { name: 'SA' } }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/flags/:flagKey/rollouts/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/bf/rollouts/${ids.ro1}` }),
    witness: (ids) => ({ path: `${D}/flags/bf/rollouts/${ids.ro1}`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:ruleId/distributions/:id',
    request: (ns, ids) => ({
      path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}/distributions/${ids.d1}?variantId=${ids.v1}`,
    }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r1}`, has: { distributions: [] } }),
  },
  {
    route: 'DELETE /api/v1/flags/:flagKey/rules/:ruleId/distributions/:id',
    request: (ns, ids) => ({
      path: `/api/v1/flags/vf/rules/${ids.r2}/distributions/${ids.d2}?variantId=${ids.v2}&${q(ns)}`,
    }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r2}`, has: { distributions: [] } }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/rules/${ids.r1}` }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r1}`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/flags/:flagKey/rules/:id',
    request: (ns, ids) => ({ path: `/api/v1/flags/vf/rules/${ids.r2}?${q(ns)}` }),
    witness: (ids) => ({ path: `${D}/flags/vf/rules/${ids.r2}`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/segments/:segmentKey/constraints/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/segments/sa/constraints/${ids.c1}` }),
    witness: () => ({ path: `${D}/segments/sa`, has: { constraints: [] } }),
  },
  {
    route: 'DELETE /api/v1/segments/:segmentKey/constraints/:id',
    request: (ns, ids) => ({ path: `/api/v1/segments/sb/constraints/${ids.c2}?${q(ns)}` }),
    witness: () => ({ path: `${D}/segments/sb`, has: { constraints: [] } }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/flags/:flagKey/variants/:id',
    request: (ns, ids) => ({ path: `${nsPath(ns)}/flags/vf/variants/${ids.v1}` }),
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [{ key: 'two' }] } }),
  },
  {
    route: 'DELETE /api/v1/flags/:flagKey/variants/:id',
    request: (ns, ids) => ({ path: `/api/v1/flags/vf/variants/${ids.v2}?${q(ns)}` }),
    witness: () => ({ path: `${D}/flags/vf`, has: { variants: [] } }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/segments/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/segments/sa` }),
    witness: () => ({ path: `${D}/segments/sa`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/segments/:key',
    request: (ns) => ({ path: `/api/v1/segments/sb?${q(ns)}` }),
    witness: () => ({ path: `${D}/segments/sb`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/namespaces/:namespaceKey/flags/:key',
    request: (ns) => ({ path: `${nsPath(ns)}/flags/vf` }),
    witness: () => ({ path: `${D}/flags/vf`, gone: true }),
  },
  {
    route: 'DELETE /api/v1/flags/:key',
    request: (ns) => ({ path: `/api/v1/flags/bf?${q(ns)}` }),
    witness: () => ({ path: `${D}/flags/bf`, gone: true }),
  },
];

/** The event streams: the first event of "" is the first event of `default` (the current revision). */
const STREAM_ROUTES = [
  {
    route: 'GET /ofrep/v1/namespaces/:namespaceKey/events',
    path: (ns: string) => `/ofrep/v1/namespaces/${ns}/events`,
    ofrep: true,
  },
  {
    route: 'GET /internal/v1/evaluation/snapshot/namespace/:key/events',
    path: (ns: string) => `/internal/v1/evaluation/snapshot/namespace/${ns}/events`,
    ofrep: false,
  },
];

interface GrpcRow {
  /** `service/Method` */
  rpc: string;
  request(ns: string, ids: Ids): unknown;
  /** OFREP names its namespace in metadata. */
  metadata?(ns: string): Record<string, string>;
  same?: true;
  /** The answer repeats the request's namespaceKey (Flipt's deprecated Evaluate): not compared. */
  echoes?: true;
  keep?(answer: Msg, ids: Ids): void;
  /** A read of `default` (over REST) that must show the write, or 404 for a delete. */
  witness?(ids: Ids): { path: string; has?: unknown; gone?: true };
  unscoped?: true;
}

const F = 'flipt.Flipt';
const E = 'flipt.evaluation.EvaluationService';
const gctx = { entityId: 'e1', context: { p: 'w' } };

const GRPC_ROWS: GrpcRow[] = [
  {
    rpc: `${F}/CreateFlag`,
    request: (ns) => ({ namespaceKey: ns, key: 'gv', name: 'GV', type: 'VARIANT_FLAG_TYPE', enabled: true }),
    witness: () => ({ path: `${D}/flags/gv`, has: { key: 'gv' } }),
  },
  {
    rpc: `${F}/UpdateFlag`,
    request: (ns) => ({ namespaceKey: ns, key: 'gv', name: 'GV2', enabled: true }),
    witness: () => ({ path: `${D}/flags/gv`, has: { name: 'GV2' } }),
  },
  {
    rpc: `${F}/CreateVariant`,
    request: (ns) => ({ namespaceKey: ns, flagKey: 'gv', key: 'one' }),
    keep: (a, ids) => {
      ids.v = a.id;
    },
    witness: () => ({ path: `${D}/flags/gv`, has: { variants: [{ key: 'one' }] } }),
  },
  {
    rpc: `${F}/UpdateVariant`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', id: ids.v, key: 'one', name: 'One' }),
    witness: () => ({ path: `${D}/flags/gv`, has: { variants: [{ name: 'One' }] } }),
  },
  {
    rpc: `${F}/CreateSegment`,
    request: (ns) => ({ namespaceKey: ns, key: 'gs', name: 'GS', matchType: 'ALL_MATCH_TYPE' }),
    witness: () => ({ path: `${D}/segments/gs`, has: { key: 'gs' } }),
  },
  {
    rpc: `${F}/UpdateSegment`,
    request: (ns) => ({ namespaceKey: ns, key: 'gs', name: 'GS2', matchType: 'ALL_MATCH_TYPE' }),
    witness: () => ({ path: `${D}/segments/gs`, has: { name: 'GS2' } }),
  },
  {
    rpc: `${F}/CreateConstraint`,
    request: (ns) => ({
      namespaceKey: ns,
      segmentKey: 'gs',
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 'v',
    }),
    keep: (a, ids) => {
      ids.c = a.id;
    },
    witness: () => ({ path: `${D}/segments/gs`, has: { constraints: [{ value: 'v' }] } }),
  },
  {
    rpc: `${F}/UpdateConstraint`,
    request: (ns, ids) => ({
      namespaceKey: ns,
      segmentKey: 'gs',
      id: ids.c,
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 'w',
    }),
    witness: () => ({ path: `${D}/segments/gs`, has: { constraints: [{ value: 'w' }] } }),
  },
  {
    rpc: `${F}/CreateRule`,
    request: (ns) => ({ namespaceKey: ns, flagKey: 'gv', segmentKey: 'gs', rank: 1 }),
    keep: (a, ids) => {
      ids.r = a.id;
    },
    witness: () => ({ path: `${D}/flags/gv/rules`, has: { rules: [{ segmentKey: 'gs' }] } }),
  },
  {
    rpc: `${F}/UpdateRule`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', id: ids.r, segmentKey: 'gs' }),
  },
  {
    rpc: `${F}/CreateRule`,
    request: (ns) => ({ namespaceKey: ns, flagKey: 'gv', segmentKey: 'gs', rank: 2 }),
    keep: (a, ids) => {
      ids.r2 = a.id;
    },
  },
  {
    rpc: `${F}/OrderRules`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', ruleIds: [ids.r2, ids.r] }),
    witness: (ids) => ({ path: `${D}/flags/gv/rules`, has: { rules: [{ id: ids.r2 }, { id: ids.r }] } }),
  },
  {
    rpc: `${F}/CreateDistribution`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', ruleId: ids.r, variantId: ids.v, rollout: 50 }),
    keep: (a, ids) => {
      ids.d = a.id;
    },
    witness: (ids) => ({ path: `${D}/flags/gv/rules/${ids.r}`, has: { distributions: [{ rollout: 50 }] } }),
  },
  {
    rpc: `${F}/UpdateDistribution`,
    request: (ns, ids) => ({
      namespaceKey: ns,
      flagKey: 'gv',
      ruleId: ids.r,
      id: ids.d,
      variantId: ids.v,
      rollout: 100,
    }),
    witness: (ids) => ({ path: `${D}/flags/gv/rules/${ids.r}`, has: { distributions: [{ rollout: 100 }] } }),
  },
  {
    rpc: `${F}/CreateFlag`,
    request: (ns) => ({ namespaceKey: ns, key: 'gb', name: 'GB', type: 'BOOLEAN_FLAG_TYPE', enabled: true }),
  },
  {
    rpc: `${F}/CreateRollout`,
    request: (ns) => ({ namespaceKey: ns, flagKey: 'gb', rank: 1, threshold: { percentage: 50, value: true } }),
    keep: (a, ids) => {
      ids.ro = a.id;
    },
    witness: () => ({ path: `${D}/flags/gb/rollouts`, has: { rules: [{ threshold: { percentage: 50 } }] } }),
  },
  {
    rpc: `${F}/UpdateRollout`,
    request: (ns, ids) => ({
      namespaceKey: ns,
      flagKey: 'gb',
      id: ids.ro,
      threshold: { percentage: 100, value: true },
    }),
    witness: () => ({ path: `${D}/flags/gb/rollouts`, has: { rules: [{ threshold: { percentage: 100 } }] } }),
  },
  {
    rpc: `${F}/CreateRollout`,
    request: (ns) => ({ namespaceKey: ns, flagKey: 'gb', rank: 2, threshold: { percentage: 10, value: false } }),
    keep: (a, ids) => {
      ids.ro2 = a.id;
    },
  },
  {
    rpc: `${F}/OrderRollouts`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gb', rolloutIds: [ids.ro2, ids.ro] }),
    witness: (ids) => ({ path: `${D}/flags/gb/rollouts`, has: { rules: [{ id: ids.ro2 }, { id: ids.ro }] } }),
  },

  { rpc: `${F}/GetNamespace`, request: (ns) => ({ key: ns }), same: true },
  { rpc: `${F}/GetFlag`, request: (ns) => ({ namespaceKey: ns, key: 'gv' }), same: true },
  { rpc: `${F}/ListFlags`, request: (ns) => ({ namespaceKey: ns }), same: true },
  { rpc: `${F}/GetSegment`, request: (ns) => ({ namespaceKey: ns, key: 'gs' }), same: true },
  { rpc: `${F}/ListSegments`, request: (ns) => ({ namespaceKey: ns }), same: true },
  { rpc: `${F}/GetRule`, request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', id: ids.r }), same: true },
  { rpc: `${F}/ListRules`, request: (ns) => ({ namespaceKey: ns, flagKey: 'gv' }), same: true },
  { rpc: `${F}/GetRollout`, request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gb', id: ids.ro }), same: true },
  { rpc: `${F}/ListRollouts`, request: (ns) => ({ namespaceKey: ns, flagKey: 'gb' }), same: true },
  {
    rpc: 'flipt.evaluation.DataService/EvaluationSnapshotNamespace',
    request: (ns) => ({ key: ns }),
    same: true,
  },
  { rpc: `${E}/Boolean`, request: (ns) => ({ namespaceKey: ns, flagKey: 'gb', ...gctx }), same: true },
  { rpc: `${E}/Variant`, request: (ns) => ({ namespaceKey: ns, flagKey: 'gv', ...gctx }), same: true },
  {
    rpc: `${E}/Batch`,
    request: (ns) => ({
      requests: [
        { namespaceKey: ns, flagKey: 'gv', ...gctx },
        { namespaceKey: ns, flagKey: 'gb', ...gctx },
      ],
    }),
    same: true,
  },
  { rpc: `${F}/Evaluate`, request: (ns) => ({ namespaceKey: ns, flagKey: 'gv', ...gctx }), same: true, echoes: true },
  {
    rpc: `${F}/BatchEvaluate`,
    request: (ns) => ({ namespaceKey: ns, requests: [{ flagKey: 'gv', ...gctx }] }),
    same: true,
  },
  {
    rpc: 'flipt.ofrep.OFREPService/EvaluateFlag',
    request: () => ({ key: 'gv', context: { targetingKey: 'e1', p: 'w' } }),
    metadata: (ns) => ({ 'x-flipt-namespace': ns }),
    same: true,
    unscoped: true,
  },
  {
    rpc: 'flipt.ofrep.OFREPService/EvaluateBulk',
    request: () => ({ context: { targetingKey: 'e1', p: 'w' } }),
    metadata: (ns) => ({ 'x-flipt-namespace': ns }),
    same: true,
    unscoped: true,
  },

  {
    rpc: `${F}/DeleteRollout`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gb', id: ids.ro }),
    witness: (ids) => ({ path: `${D}/flags/gb/rollouts/${ids.ro}`, gone: true }),
  },
  {
    rpc: `${F}/DeleteDistribution`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', ruleId: ids.r, id: ids.d, variantId: ids.v }),
    witness: (ids) => ({ path: `${D}/flags/gv/rules/${ids.r}`, has: { distributions: [] } }),
  },
  {
    rpc: `${F}/DeleteRule`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', id: ids.r }),
    witness: (ids) => ({ path: `${D}/flags/gv/rules/${ids.r}`, gone: true }),
  },
  {
    rpc: `${F}/DeleteConstraint`,
    request: (ns, ids) => ({ namespaceKey: ns, segmentKey: 'gs', id: ids.c }),
    witness: () => ({ path: `${D}/segments/gs`, has: { constraints: [] } }),
  },
  {
    rpc: `${F}/DeleteVariant`,
    request: (ns, ids) => ({ namespaceKey: ns, flagKey: 'gv', id: ids.v }),
    witness: () => ({ path: `${D}/flags/gv`, has: { variants: [] } }),
  },
  {
    rpc: `${F}/DeleteFlag`,
    request: (ns) => ({ namespaceKey: ns, key: 'gv' }),
    witness: () => ({ path: `${D}/flags/gv`, gone: true }),
  },
  {
    rpc: `${F}/DeleteSegment`,
    request: (ns) => ({ namespaceKey: ns, key: 'gs' }),
    witness: () => ({ path: `${D}/segments/gs`, gone: true }),
  },
];

/** Whether an RPC's request names a namespace: a namespace_key field, a batch of items, or its own key. */
function rpcTakesNamespace(service: string, method: string): boolean {
  // proto-loader's definitions carry each message's descriptor (`requestType.type.field`).
  const definition = serviceConstructor(service).service[method] as unknown as {
    requestType?: { type?: { field?: { name: string }[] } };
  };
  const fields = (definition?.requestType?.type?.field ?? []).map((f) => f.name);
  if (fields.includes('namespace_key') || fields.includes('requests')) return true;
  // Addressed by key: the namespace RPCs and the client snapshot; OFREP by metadata.
  return service === 'flipt.ofrep.OFREPService'
    ? method !== 'GetProviderConfiguration'
    : fields.includes('key') && /Namespace/.test(method);
}

const AUTH_ROWS = [
  { name: 'without authentication', required: false },
  { name: 'with a token scoped to default', required: true },
] as const;

describeEachBackend('an empty namespace key means default', (backend) => {
  describe.each(AUTH_ROWS)('$name', (row) => {
    let t: TestApp;
    let base: string;
    let grpc: FliptGrpc;
    let scoped = '';

    beforeAll(async () => {
      t = await startTestApp(backend, {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        ofrep: { event_streams: { enabled: true } },
        ...(row.required
          ? { authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } } }
          : {}),
      });
      const ports = await t.app.listen();
      base = `http://127.0.0.1:${ports.httpPort}`;
      grpc = new FliptGrpc(ports.grpcPort);
      if (row.required) {
        const created = await send('POST', '/auth/v1/method/token', { name: 'scoped', namespaceKey: 'default' }, BOOT);
        expect(created.status).toBe(200);
        scoped = created.body.clientToken;
      }
    });
    afterAll(async () => {
      grpc?.close();
      await t?.close();
    });

    const tokenFor = (unscoped?: true) => (row.required ? (unscoped ? BOOT : scoped) : undefined);

    async function send(
      method: Method,
      path: string,
      body?: unknown,
      token?: string,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: Msg; text: string }> {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // the export's YAML
      }
      return { status: res.status, body: parsed, text };
    }

    async function witness(check: { path: string; has?: unknown; gone?: true }, label: string) {
      const res = await send('GET', check.path, undefined, tokenFor());
      if (check.gone) expect(res.status, `${label}: ${check.path} is gone`).toBe(404);
      else {
        expect(res.status, `${label}: ${check.path}`).toBe(200);
        expect(res.body, `${label}: ${check.path}`).toMatchObject(check.has as object);
      }
    }

    it('covers every HTTP route that takes a namespace', () => {
      const covered = new Set([...HTTP_ROWS.map((r) => r.route), ...STREAM_ROUTES.map((r) => r.route)]);
      const missing = declaredRoutes(t.app.http)
        .filter((r) => r.kind !== undefined && NAMESPACED_KINDS.has(r.kind) && r.method !== 'HEAD')
        .map((r) => `${r.method} ${r.url}`)
        .filter((route) => !covered.has(route) && HTTP_EXEMPT[route] === undefined);
      expect(missing, 'add a row for each (or an exemption with its reason)').toEqual([]);
    });

    it('answers "" on every HTTP route as default', async () => {
      const ids: Ids = {};
      for (const r of HTTP_ROWS) {
        const method = r.route.split(' ')[0] as Method;
        const empty = r.request('', ids);
        const res = await send(method, empty.path, empty.body, tokenFor(r.unscoped), empty.headers);
        expect(res.status, `${r.route}: ${JSON.stringify(res.body)}`).toBe(200);
        r.keep?.(res.body, ids);
        if (r.same) {
          const named = r.request('default', ids);
          const expected = await send(method, named.path, named.body, tokenFor(r.unscoped), named.headers);
          expect(expected.status, r.route).toBe(200);
          if (typeof res.body === 'string') {
            const withoutComments = (text: string) => text.replace(/^#.*\n/gm, '');
            expect(withoutComments(res.text), r.route).toBe(withoutComments(expected.text));
          } else {
            const drop = (body: Msg) => (r.echoes ? { ...body, namespaceKey: undefined } : body);
            expect(stable(drop(res.body)), r.route).toEqual(stable(drop(expected.body)));
          }
        }
        const check = r.witness?.(ids);
        if (check) await witness(check, r.route);
      }
    });

    it.each(STREAM_ROUTES)('$route: "" streams what default streams', async ({ path, ofrep }) => {
      const token = tokenFor(ofrep ? true : undefined);
      const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
      const empty = await openSse(`${base}${path('')}`, headers);
      const named = await openSse(`${base}${path('default')}`, headers);
      try {
        expect(empty.status).toBe(200);
        await empty.until((s) => s.events.length === 1);
        await named.until((s) => s.events.length === 1);
        expect(empty.events[0]).toEqual(named.events[0]);
      } finally {
        empty.close();
        named.close();
      }
    });

    it('WatchNamespace (the gRPC change stream): "" streams what default streams', async () => {
      const client = grpc.client('vexil.changes.v1.ChangeService') as unknown as {
        WatchNamespace(request: unknown, metadata: Metadata): ClientReadableStream<Msg>;
      };
      const first = (namespaceKey: string) =>
        new Promise<Msg>((resolve, reject) => {
          const metadata = new Metadata();
          const token = tokenFor();
          if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
          const call = client.WatchNamespace({ namespaceKey }, metadata);
          call.on('data', (change: Msg) => {
            resolve(change);
            call.cancel();
          });
          call.on('error', (err: ServiceError) => {
            if (err.code !== status.CANCELLED) reject(err);
          });
        });
      const empty = await first('');
      expect(empty.namespaceKey).toBe('default');
      expect(empty).toEqual(await first('default'));
    });

    it('covers every gRPC method that takes a namespace', () => {
      const covered = new Set(GRPC_ROWS.map((r) => r.rpc));
      const missing: string[] = [];
      for (const [service, rpcs] of Object.entries(fliptServiceTables(t.app.services, t.app.config))) {
        for (const { method } of rpcs) {
          const name = `${service}/${method}`;
          if (rpcTakesNamespace(service, method) && !covered.has(name) && GRPC_EXEMPT[name] === undefined) {
            missing.push(name);
          }
        }
      }
      expect(missing, 'add a row for each (or an exemption with its reason)').toEqual([]);
    });

    it('answers "" on every gRPC method as default', async () => {
      const ids: Ids = {};
      for (const r of GRPC_ROWS) {
        const [service, method] = r.rpc.split('/') as [string, string];
        const token = tokenFor(r.unscoped);
        const call = async (ns: string) => {
          try {
            return messageJson(
              (await grpc.call(service, method, r.request(ns, ids), { token, metadata: r.metadata?.(ns) })).response,
            );
          } catch (err) {
            throw new Error(`${r.rpc} (namespace "${ns}"): ${(err as Error).message}`);
          }
        };
        const answer = await call('');
        r.keep?.(answer, ids);
        const drop = (body: Msg) => (r.echoes ? { ...body, namespaceKey: undefined } : body);
        if (r.same) expect(stable(drop(answer)), r.rpc).toEqual(stable(drop(await call('default'))));
        const check = r.witness?.(ids);
        if (check) await witness(check, r.rpc);
      }
    });
  });
});
