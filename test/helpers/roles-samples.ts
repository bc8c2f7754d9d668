// What a role-matrix sample is (one per entry point, in roles-http-samples.ts and roles-grpc-samples.ts),
// and what a sample is given to build its request: the fixture's ids per namespace, the bootstrap
// token's API for set-up, and fresh keys.

import type { App } from '../../src/app/build-app.js';
import type { Role } from '../../src/auth/roles/roles.js';
import type { BootApi, Json, NamespaceFixture } from './roles-fixture.js';

export interface SampleContext {
  app: App;
  api: BootApi;
  fx: Record<string, NamespaceFixture>;
}

interface SampleTraits {
  /**
   * A call whose rule addresses no namespace but whose handler checks the object it acts on (a token):
   * the sample runs inside and outside, that object in `ns`.
   */
  target?: true;
  /** The role the handler checks on the target (for a declaration that itself needs none). */
  handlerRole?: Role;
  /** Allowed rows may answer anything but 401 and 403 / UNAUTHENTICATED and PERMISSION_DENIED. */
  anyStatus?: true;
  /** A stream: allowed once it answers, then closed. */
  stream?: true;
  /** The call ends its caller (expiring oneself): made by a fresh token with the caller's roles. */
  freshCaller?: true;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HttpSample extends SampleTraits {
  /** The request addressed to namespace `ns` (made after any set-up it needs). */
  request(ctx: SampleContext, ns: string): HttpRequest | Promise<HttpRequest>;
}

export interface GrpcRequest {
  message: Json;
  metadata?: Record<string, string>;
}

export interface GrpcSample extends SampleTraits {
  request(ctx: SampleContext, ns: string): GrpcRequest | Promise<GrpcRequest>;
}

/** Set-up shared by both transports' samples: fresh objects a write may delete or change. */
export const setUp = {
  async flag(ctx: SampleContext, ns: string, key: string): Promise<void> {
    await ctx.api('POST', `/api/v1/namespaces/${ns}/flags`, { key, name: key, type: 'BOOLEAN_FLAG_TYPE' });
  },
  async variant(ctx: SampleContext, ns: string, key: string): Promise<string> {
    return (await ctx.api('POST', `/api/v1/namespaces/${ns}/flags/f1/variants`, { key, name: key })).id;
  },
  async rule(ctx: SampleContext, ns: string): Promise<string> {
    return (await ctx.api('POST', `/api/v1/namespaces/${ns}/flags/f1/rules`, { segmentKey: 's1', rank: 10 })).id;
  },
  async distribution(ctx: SampleContext, ns: string): Promise<{ ruleId: string; id: string }> {
    const ruleId = await setUp.rule(ctx, ns);
    const made = await ctx.api('POST', `/api/v1/namespaces/${ns}/flags/f1/rules/${ruleId}/distributions`, {
      variantId: ctx.fx[ns]?.variantId,
      rollout: 10,
    });
    return { ruleId, id: made.id };
  },
  async segment(ctx: SampleContext, ns: string, key: string): Promise<void> {
    await ctx.api('POST', `/api/v1/namespaces/${ns}/segments`, { key, name: key, matchType: 'ALL_MATCH_TYPE' });
  },
  async constraint(ctx: SampleContext, ns: string): Promise<string> {
    return (await ctx.api('POST', `/api/v1/namespaces/${ns}/segments/s1/constraints`, CONSTRAINT)).id;
  },
  async rollout(ctx: SampleContext, ns: string): Promise<string> {
    return (await ctx.api('POST', `/api/v1/namespaces/${ns}/flags/b1/rollouts`, rollout())).id;
  },
  /** The rule ids of `fo` (or rollout ids of `bo`), reversed: an order naming every one. */
  async reversedRules(ctx: SampleContext, ns: string): Promise<string[]> {
    const rules = await ctx.api('GET', `/api/v1/namespaces/${ns}/flags/fo/rules`);
    return rules.rules.map((rule: Json) => rule.id).reverse();
  },
  async reversedRollouts(ctx: SampleContext, ns: string): Promise<string[]> {
    const rollouts = await ctx.api('GET', `/api/v1/namespaces/${ns}/flags/bo/rollouts`);
    return rollouts.rules.map((rollout: Json) => rollout.id).reverse();
  },
  /** A change to revert: a fresh flag's creation, the namespace's newest change. */
  async change(ctx: SampleContext, ns: string, key: string): Promise<string> {
    await setUp.flag(ctx, ns, key);
    return String((await ctx.api('GET', `/api/v1/namespaces/${ns}/changes?limit=1`)).changes[0].id);
  },
  async namespace(ctx: SampleContext, key: string): Promise<void> {
    await ctx.api('POST', '/api/v1/namespaces', { key, name: key });
  },
  /** A stored role binding on `ns` matching nobody here, to read or delete (issue 41, role bindings). */
  async binding(ctx: SampleContext, ns: string): Promise<string> {
    return (await ctx.api('POST', '/api/v1/roles/bindings', bindingOn(ns))).id;
  },
  /** A token on `ns` only, to read or delete. */
  async token(ctx: SampleContext, ns: string): Promise<string> {
    const made = await ctx.api('POST', '/auth/v1/method/token', {
      name: 'victim',
      roles: [{ role: 'client', namespace: ns }],
    });
    return made.authentication.id;
  },
};

let bindings = 0;
/** A role binding on `ns` whose pattern matches no identity of the tests (a domain of its own). */
export function bindingOn(ns: string): Json {
  bindings += 1;
  return {
    match: { metadata: 'io.flipt.auth.jwt.email', pattern: `*@nobody-${bindings}.test` },
    role: 'viewer',
    namespace: ns,
  };
}

/**
 * Samples of entry points another branch adds (the role bindings API): used once their routes and
 * methods exist, and not counted as stale before.
 */
export const PENDING_SAMPLES: ReadonlySet<string> = new Set([
  'GET /api/v1/roles/bindings',
  'POST /api/v1/roles/bindings',
  'GET /api/v1/roles/bindings/:id',
  'DELETE /api/v1/roles/bindings/:id',
  'vexil.roles.v1.RoleBindingService/ListRoleBindings',
  'vexil.roles.v1.RoleBindingService/GetRoleBinding',
  'vexil.roles.v1.RoleBindingService/CreateRoleBinding',
  'vexil.roles.v1.RoleBindingService/DeleteRoleBinding',
]);

export const CONSTRAINT = { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' };
export const THRESHOLD = { percentage: 50, value: true };
let rank = 10;
/** A rollout for `b1` (a rank of its own: a flag's rollout ranks are unique). */
export function rollout(): { rank: number; threshold: typeof THRESHOLD } {
  rank += 1;
  return { rank, threshold: THRESHOLD };
}
export const ENTITY = { entityId: 'e1', context: { plan: 'pro' } };
