// The role matrix's world: two namespaces (`team`, the callers' own, and `other`) holding one object of
// every kind, made through the API by the bootstrap token; tokens made with roles; and a fingerprint of
// the database that any write changes (row counts, namespace revisions, expiries), so a refused call
// can be shown to have changed nothing.

import { sql } from 'kysely';
import type { App } from '../../src/app/build-app.js';
import type { RoleBinding } from '../../src/auth/roles/roles.js';
import { bearer, call } from './app.js';

export const INSIDE = 'team';
export const OUTSIDE = 'other';

/** The ids of one namespace's fixture objects (keys are fixed: f1, b1, s1, fo, bo). */
export interface NamespaceFixture {
  variantId: string;
  ruleId: string;
  distributionId: string;
  constraintId: string;
  rolloutId: string;
  /** A change recorded in the namespace (history reads). */
  changeId: string;
  /** A token made with a role on the namespace only (token reads by id). */
  tokenId: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Json = any;

/** Calls as the bootstrap token; anything but a 2xx fails the test at once with the answer. */
export type BootApi = (method: Method, url: string, body?: unknown) => Promise<Json>;

export function bootApi(app: App, bootToken: string): BootApi {
  return async (method, url, body) => {
    const res = await call(app, method, url, body, bearer(bootToken));
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
}

let counter = 0;
/** A key no earlier call used (writes that create or delete take fresh objects, so rows never collide). */
export function fresh(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** One namespace with a variant flag (variant, rule, distribution), a segment (constraint), a boolean flag (rollout). */
export async function seedNamespace(api: BootApi, ns: string): Promise<NamespaceFixture> {
  const base = `/api/v1/namespaces/${ns}`;
  await api('POST', '/api/v1/namespaces', { key: ns, name: ns });
  await api('POST', `${base}/flags`, { key: 'f1', name: 'f1', type: 'VARIANT_FLAG_TYPE', enabled: true });
  const variant = await api('POST', `${base}/flags/f1/variants`, { key: 'v1', name: 'v1' });
  await api('POST', `${base}/segments`, { key: 's1', name: 's1', matchType: 'ALL_MATCH_TYPE' });
  const constraint = await api('POST', `${base}/segments/s1/constraints`, {
    type: 'STRING_COMPARISON_TYPE',
    property: 'plan',
    operator: 'eq',
    value: 'pro',
  });
  const rule = await api('POST', `${base}/flags/f1/rules`, { segmentKey: 's1', rank: 1 });
  const distribution = await api('POST', `${base}/flags/f1/rules/${rule.id}/distributions`, {
    variantId: variant.id,
    rollout: 50,
  });
  await api('POST', `${base}/flags`, { key: 'b1', name: 'b1', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
  const rollout = await api('POST', `${base}/flags/b1/rollouts`, {
    rank: 1,
    threshold: { percentage: 50, value: true },
  });
  // Flags whose rules and rollouts only the order calls touch: an order names every one of them.
  await api('POST', `${base}/flags`, { key: 'fo', name: 'fo', type: 'VARIANT_FLAG_TYPE', enabled: true });
  for (const rank of [1, 2]) await api('POST', `${base}/flags/fo/rules`, { segmentKey: 's1', rank });
  await api('POST', `${base}/flags`, { key: 'bo', name: 'bo', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
  for (const rank of [1, 2]) {
    await api('POST', `${base}/flags/bo/rollouts`, { rank, threshold: { percentage: 10 * rank, value: true } });
  }
  const changes = await api('GET', `${base}/changes?limit=1`);
  const token = await makeToken(api, [{ role: 'client', namespace: ns }]);
  return {
    variantId: variant.id,
    ruleId: rule.id,
    distributionId: distribution.id,
    constraintId: constraint.id,
    rolloutId: rollout.id,
    changeId: String(changes.changes[0].id),
    tokenId: token.id,
  };
}

/** A token made by the bootstrap token with `roles`: its secret and id. */
export async function makeToken(api: BootApi, roles: RoleBinding[]): Promise<{ token: string; id: string }> {
  const made = await api('POST', '/auth/v1/method/token', { name: fresh('matrix'), description: 'role matrix', roles });
  return { token: made.clientToken, id: made.authentication.id };
}

const COUNTED = [
  'namespaces',
  'flags',
  'variants',
  'segments',
  'constraints',
  'rules',
  'distributions',
  'rollouts',
  'rollout_thresholds',
  'authentications',
  'changes',
] as const;

/** Row counts, every namespace's revision and the number of tokens with an expiry: any write moves one. */
export async function fingerprint(app: App): Promise<string> {
  const db = app.db.kysely;
  const counts = await sql<Record<string, number | string>>`select ${sql.join(
    COUNTED.map((table) => sql`(select count(*) from ${sql.table(table)}) as ${sql.ref(table)}`),
  )}, (select count(*) from authentications where expires_at is not null) as expiring`.execute(db);
  const revisions = await db.selectFrom('namespaces').select(['key', 'revision', 'name']).orderBy('key').execute();
  const row = counts.rows[0] ?? {};
  const numbers = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  return JSON.stringify({
    numbers,
    revisions: revisions.map((r) => `${r.key}@${Number(r.revision)}:${r.name}`),
  });
}
