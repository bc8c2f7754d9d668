// One sample request per HTTP route of the role matrix (test/integration/roles-matrix.test.ts), keyed
// by `METHOD /route/:pattern` as the router records it. A route without a sample fails the matrix, so
// a new endpoint cannot go unchecked. A sample builds its request for namespace `ns`; writes that remove
// or change objects set up fresh ones first, so every row finds what it acts on.

import { fresh } from './roles-fixture.js';
import {
  bindingOn,
  CONSTRAINT,
  ENTITY,
  type HttpRequest,
  type HttpSample,
  rollout,
  type SampleContext,
  setUp,
  THRESHOLD,
} from './roles-samples.js';

type Method = HttpRequest['method'];
type Build = (ctx: SampleContext, ns: string) => Promise<Omit<HttpRequest, 'method'>> | Omit<HttpRequest, 'method'>;

const samples: Record<string, HttpSample> = {};

function add(method: Method, route: string, build: Build, traits: Omit<HttpSample, 'request'> = {}): void {
  samples[`${method} ${route}`] = { ...traits, request: async (ctx, ns) => ({ method, ...(await build(ctx, ns)) }) };
}

/**
 * A management route under /api/v1/namespaces/:namespaceKey and, unless `namespacedOnly`, its legacy
 * twin under /api/v1 whose namespace comes in the query (reads, deletes) or the body (writes).
 */
function management(
  method: Method,
  route: string,
  build: (
    ctx: SampleContext,
    ns: string,
  ) => Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown },
  namespacedOnly = false,
): void {
  add(method, `/api/v1/namespaces/:namespaceKey${route}`, async (ctx, ns) => {
    const { path, body } = await build(ctx, ns);
    return { url: `/api/v1/namespaces/${ns}${path}`, body };
  });
  if (namespacedOnly) return;
  add(method, `/api/v1${route}`, async (ctx, ns) => {
    const { path, body } = await build(ctx, ns);
    if (method === 'GET' || method === 'DELETE') {
      return { url: `/api/v1${path}${path.includes('?') ? '&' : '?'}namespaceKey=${ns}` };
    }
    return { url: `/api/v1${path}`, body: { ...(body as object), namespaceKey: ns } };
  });
}

// Flags and variants.
management('GET', '/flags', () => ({ path: '/flags' }));
management('POST', '/flags', () => {
  const key = fresh('flag');
  return { path: '/flags', body: { key, name: key, type: 'BOOLEAN_FLAG_TYPE' } };
});
management('GET', '/flags/:key', () => ({ path: '/flags/f1' }));
management('PUT', '/flags/:key', () => ({ path: '/flags/f1', body: { key: 'f1', name: fresh('f1'), enabled: true } }));
management('DELETE', '/flags/:key', async (ctx, ns) => {
  const key = fresh('gone');
  await setUp.flag(ctx, ns, key);
  return { path: `/flags/${key}` };
});
management('POST', '/flags/:flagKey/variants', () => {
  const key = fresh('variant');
  return { path: '/flags/f1/variants', body: { key, name: key } };
});
management('PUT', '/flags/:flagKey/variants/:id', (ctx, ns) => ({
  path: `/flags/f1/variants/${ctx.fx[ns]?.variantId}`,
  body: { key: 'v1', name: fresh('v1') },
}));
management('DELETE', '/flags/:flagKey/variants/:id', async (ctx, ns) => ({
  path: `/flags/f1/variants/${await setUp.variant(ctx, ns, fresh('gone'))}`,
}));

// Rules and distributions.
management('GET', '/flags/:flagKey/rules', () => ({ path: '/flags/f1/rules' }));
management('POST', '/flags/:flagKey/rules', () => ({ path: '/flags/f1/rules', body: { segmentKey: 's1', rank: 10 } }));
management('PUT', '/flags/:flagKey/rules/order', async (ctx, ns) => ({
  path: '/flags/fo/rules/order',
  body: { ruleIds: await setUp.reversedRules(ctx, ns) },
}));
management('GET', '/flags/:flagKey/rules/:id', (ctx, ns) => ({ path: `/flags/f1/rules/${ctx.fx[ns]?.ruleId}` }));
management('PUT', '/flags/:flagKey/rules/:id', (ctx, ns) => ({
  path: `/flags/f1/rules/${ctx.fx[ns]?.ruleId}`,
  body: { segmentKey: 's1' },
}));
management('DELETE', '/flags/:flagKey/rules/:id', async (ctx, ns) => ({
  path: `/flags/f1/rules/${await setUp.rule(ctx, ns)}`,
}));
management('POST', '/flags/:flagKey/rules/:ruleId/distributions', async (ctx, ns) => ({
  path: `/flags/f1/rules/${await setUp.rule(ctx, ns)}/distributions`,
  body: { variantId: ctx.fx[ns]?.variantId, rollout: 10 },
}));
management('PUT', '/flags/:flagKey/rules/:ruleId/distributions/:id', (ctx, ns) => ({
  path: `/flags/f1/rules/${ctx.fx[ns]?.ruleId}/distributions/${ctx.fx[ns]?.distributionId}`,
  body: { variantId: ctx.fx[ns]?.variantId, rollout: 50 },
}));
management('DELETE', '/flags/:flagKey/rules/:ruleId/distributions/:id', async (ctx, ns) => {
  const made = await setUp.distribution(ctx, ns);
  return { path: `/flags/f1/rules/${made.ruleId}/distributions/${made.id}?variantId=${ctx.fx[ns]?.variantId}` };
});

// Segments and constraints.
management('GET', '/segments', () => ({ path: '/segments' }));
management('POST', '/segments', () => {
  const key = fresh('segment');
  return { path: '/segments', body: { key, name: key, matchType: 'ANY_MATCH_TYPE' } };
});
management('GET', '/segments/:key', () => ({ path: '/segments/s1' }));
management('PUT', '/segments/:key', () => ({
  path: '/segments/s1',
  body: { key: 's1', name: fresh('s1'), matchType: 'ALL_MATCH_TYPE' },
}));
management('DELETE', '/segments/:key', async (ctx, ns) => {
  const key = fresh('gone');
  await setUp.segment(ctx, ns, key);
  return { path: `/segments/${key}` };
});
management('POST', '/segments/:segmentKey/constraints', () => ({ path: '/segments/s1/constraints', body: CONSTRAINT }));
management('PUT', '/segments/:segmentKey/constraints/:id', (ctx, ns) => ({
  path: `/segments/s1/constraints/${ctx.fx[ns]?.constraintId}`,
  body: { ...CONSTRAINT, value: fresh('plan') },
}));
management('DELETE', '/segments/:segmentKey/constraints/:id', async (ctx, ns) => ({
  path: `/segments/s1/constraints/${await setUp.constraint(ctx, ns)}`,
}));

// Rollouts (no legacy routes).
management('GET', '/flags/:flagKey/rollouts', () => ({ path: '/flags/b1/rollouts' }), true);
management('POST', '/flags/:flagKey/rollouts', () => ({ path: '/flags/b1/rollouts', body: rollout() }), true);
management(
  'PUT',
  '/flags/:flagKey/rollouts/order',
  async (ctx, ns) => ({
    path: '/flags/bo/rollouts/order',
    body: { rolloutIds: await setUp.reversedRollouts(ctx, ns) },
  }),
  true,
);
management(
  'GET',
  '/flags/:flagKey/rollouts/:id',
  (ctx, ns) => ({ path: `/flags/b1/rollouts/${ctx.fx[ns]?.rolloutId}` }),
  true,
);
management(
  'PUT',
  '/flags/:flagKey/rollouts/:id',
  (ctx, ns) => ({
    path: `/flags/b1/rollouts/${ctx.fx[ns]?.rolloutId}`,
    body: { threshold: THRESHOLD, description: fresh('d') },
  }),
  true,
);
management(
  'DELETE',
  '/flags/:flagKey/rollouts/:id',
  async (ctx, ns) => ({ path: `/flags/b1/rollouts/${await setUp.rollout(ctx, ns)}` }),
  true,
);

// Namespaces: creating and deleting need admin on `*`, whichever namespace they name.
add('GET', '/api/v1/namespaces', () => ({ url: '/api/v1/namespaces' }));
add('POST', '/api/v1/namespaces', () => {
  const key = fresh('ns');
  return { url: '/api/v1/namespaces', body: { key, name: key } };
});
add('GET', '/api/v1/namespaces/:key', (_ctx, ns) => ({ url: `/api/v1/namespaces/${ns}` }));
add('PUT', '/api/v1/namespaces/:key', (_ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}`,
  body: { name: ns, description: fresh('d') },
}));
add('DELETE', '/api/v1/namespaces/:key', async (ctx) => {
  const key = fresh('gone');
  await setUp.namespace(ctx, key);
  return { url: `/api/v1/namespaces/${key}` };
});

// Documents and history.
add('GET', '/api/v1/namespaces/:namespaceKey/export', (_ctx, ns) => ({ url: `/api/v1/namespaces/${ns}/export` }));
add('POST', '/api/v1/import', (_ctx, ns) => {
  const key = fresh('imported');
  const document = { version: '1.4', namespace: { key: ns }, flags: [{ key, name: key, type: 'BOOLEAN_FLAG_TYPE' }] };
  return { url: `/api/v1/import?namespace_key=${ns}`, body: document };
});
add('GET', '/api/v1/changes', () => ({ url: '/api/v1/changes' }));
add('GET', '/api/v1/namespaces/:namespaceKey/changes', (_ctx, ns) => ({ url: `/api/v1/namespaces/${ns}/changes` }));
add('GET', '/api/v1/namespaces/:namespaceKey/flags/:key/changes', (_ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/flags/f1/changes`,
}));
add('GET', '/api/v1/namespaces/:namespaceKey/segments/:key/changes', (_ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/segments/s1/changes`,
}));
add('GET', '/api/v1/namespaces/:namespaceKey/changes/:id', (ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/changes/${ctx.fx[ns]?.changeId}`,
}));
add('POST', '/api/v1/namespaces/:namespaceKey/changes/:id/revert', async (ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/changes/${await setUp.change(ctx, ns, fresh('reverted'))}/revert`,
  body: {},
}));

// Evaluation, OFREP, snapshots and streams.
add('POST', '/evaluate/v1/boolean', (_ctx, ns) => ({
  url: '/evaluate/v1/boolean',
  body: { namespaceKey: ns, flagKey: 'b1', ...ENTITY },
}));
add('POST', '/evaluate/v1/variant', (_ctx, ns) => ({
  url: '/evaluate/v1/variant',
  body: { namespaceKey: ns, flagKey: 'f1', ...ENTITY },
}));
add('POST', '/evaluate/v1/batch', (_ctx, ns) => ({
  url: '/evaluate/v1/batch',
  body: { requests: [{ namespaceKey: ns, flagKey: 'b1', ...ENTITY }] },
}));
add('POST', '/api/v1/evaluate', (_ctx, ns) => ({
  url: '/api/v1/evaluate',
  body: { namespaceKey: ns, flagKey: 'f1', ...ENTITY },
}));
add('POST', '/api/v1/namespaces/:namespaceKey/evaluate', (_ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/evaluate`,
  body: { flagKey: 'f1', ...ENTITY },
}));
add('POST', '/api/v1/batch-evaluate', (_ctx, ns) => ({
  url: '/api/v1/batch-evaluate',
  body: { namespaceKey: ns, requests: [{ flagKey: 'f1', ...ENTITY }] },
}));
add('POST', '/api/v1/namespaces/:namespaceKey/batch-evaluate', (_ctx, ns) => ({
  url: `/api/v1/namespaces/${ns}/batch-evaluate`,
  body: { requests: [{ flagKey: 'f1', ...ENTITY }] },
}));
const OFREP_BODY = { context: { targetingKey: 'e1', plan: 'pro' } };
add('POST', '/ofrep/v1/evaluate/flags/:key', (_ctx, ns) => ({
  url: '/ofrep/v1/evaluate/flags/b1',
  body: OFREP_BODY,
  headers: { 'x-service-namespace': ns },
}));
add('POST', '/ofrep/v1/evaluate/flags', (_ctx, ns) => ({
  url: '/ofrep/v1/evaluate/flags',
  body: OFREP_BODY,
  headers: { 'x-service-namespace': ns },
}));
add('GET', '/ofrep/v1/configuration', () => ({ url: '/ofrep/v1/configuration' }));
add('GET', '/ofrep/v1/namespaces/:namespaceKey/events', (_ctx, ns) => ({ url: `/ofrep/v1/namespaces/${ns}/events` }), {
  stream: true,
});
add('GET', '/internal/v1/evaluation/snapshot/namespace/:key', (_ctx, ns) => ({
  url: `/internal/v1/evaluation/snapshot/namespace/${ns}`,
}));
add(
  'GET',
  '/internal/v1/evaluation/snapshot/namespace/:key/events',
  (_ctx, ns) => ({ url: `/internal/v1/evaluation/snapshot/namespace/${ns}/events` }),
  { stream: true },
);

// Tokens: the target is a token reaching `ns` only.
add(
  'POST',
  '/auth/v1/method/token',
  (_ctx, ns) => ({
    url: '/auth/v1/method/token',
    body: { name: fresh('made'), roles: [{ role: 'admin', namespace: ns }] },
  }),
  { target: true },
);
add('GET', '/auth/v1/method', () => ({ url: '/auth/v1/method' }));
add('GET', '/auth/v1/self', () => ({ url: '/auth/v1/self' }));
add('PUT', '/auth/v1/self/expire', () => ({ url: '/auth/v1/self/expire', body: {} }), { freshCaller: true });
add('GET', '/auth/v1/tokens', () => ({ url: '/auth/v1/tokens' }));
add('GET', '/auth/v1/tokens/:id', (ctx, ns) => ({ url: `/auth/v1/tokens/${ctx.fx[ns]?.tokenId}` }), {
  target: true,
  handlerRole: 'admin',
});
add('DELETE', '/auth/v1/tokens/:id', async (ctx, ns) => ({ url: `/auth/v1/tokens/${await setUp.token(ctx, ns)}` }), {
  target: true,
});

// Role bindings (pending: see PENDING_SAMPLES): the target of a call by id is a binding on `ns`.
add('GET', '/api/v1/roles/bindings', () => ({ url: '/api/v1/roles/bindings' }));
add('POST', '/api/v1/roles/bindings', (_ctx, ns) => ({ url: '/api/v1/roles/bindings', body: bindingOn(ns) }));
add(
  'GET',
  '/api/v1/roles/bindings/:id',
  async (ctx, ns) => ({ url: `/api/v1/roles/bindings/${await setUp.binding(ctx, ns)}` }),
  {
    target: true,
  },
);
add(
  'DELETE',
  '/api/v1/roles/bindings/:id',
  async (ctx, ns) => ({ url: `/api/v1/roles/bindings/${await setUp.binding(ctx, ns)}` }),
  { target: true },
);

// Probes, meta and the dashboard's files: nothing beyond authentication (where it applies at all).
for (const method of ['GET', 'HEAD'] as const) {
  add(method, '/health', () => ({ url: '/health' }));
  add(method, '/metrics', () => ({ url: '/metrics' }));
  // The dashboard may not be built in a test checkout: any answer but a refusal.
  for (const url of ['/', '/index.html']) add(method, url, () => ({ url }), { anyStatus: true });
  add(method, '/assets/*', () => ({ url: '/assets/index.js' }), { anyStatus: true });
}
add('GET', '/meta/info', () => ({ url: '/meta/info' }));
add('GET', '/meta/config', () => ({ url: '/meta/config' }));
add('GET', '/openapi.json', () => ({ url: '/openapi.json' }));

export const HTTP_SAMPLES: Readonly<Record<string, HttpSample>> = samples;
