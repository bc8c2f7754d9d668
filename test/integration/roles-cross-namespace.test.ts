// Objects of another namespace reached through one's own (issue 41): an editor and an admin of team
// call every management entry point that names an object by id (variants, rules, distributions,
// constraints, rollouts, orders, changes and reverts) with team in the path or namespaceKey but the ids
// of other's objects. Authorization sees team, so the handler must find nothing: no read answers with
// other's object, and other is as it was (its export and history, and no row created anywhere; a delete
// that finds nothing answers 200 as in Flipt, and may still bump team's revision). The requests are the role matrix's own samples, made for other and
// re-addressed to team. Both transports, per backend.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, call } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { grpcEntryPoints, httpEntryPoints } from '../helpers/entry-points.js';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import {
  bootApi,
  fingerprint,
  INSIDE,
  type Json,
  makeToken,
  OUTSIDE,
  seedNamespace,
} from '../helpers/roles-fixture.js';
import { GRPC_SAMPLES } from '../helpers/roles-grpc-samples.js';
import { HTTP_SAMPLES } from '../helpers/roles-http-samples.js';
import { grpcAnswer, type RowWorld } from '../helpers/roles-rows.js';
import type { HttpRequest } from '../helpers/roles-samples.js';

const BOOT = 'roles-cross-boot';

/** Routes and methods that name an object by id, or a list of ids. */
const BY_ID_ROUTE = /\/(:id|:ruleId|order)(\/|$)/;
const BY_ID_METHOD =
  /^flipt\.Flipt\/((Get|Update|Delete)(Variant|Rule|Distribution|Constraint|Rollout)|Order\w+|CreateDistribution)$/;

/** `request`, made for other, addressed to team instead (path, query and body). */
function toInside(request: HttpRequest): HttpRequest {
  const url = request.url
    .replace(`/namespaces/${OUTSIDE}/`, `/namespaces/${INSIDE}/`)
    .replace(`namespaceKey=${OUTSIDE}`, `namespaceKey=${INSIDE}`);
  const body = request.body as Json;
  return { ...request, url, body: body?.namespaceKey === OUTSIDE ? { ...body, namespaceKey: INSIDE } : body };
}

describeEachBackend('ids of another namespace through one’s own', (backend) => {
  let l: ListeningApp;
  let world: RowWorld;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    l = await startListeningApp(backend, {
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    });
    const api = bootApi(l.t.app, BOOT);
    const fx = { [INSIDE]: await seedNamespace(api, INSIDE), [OUTSIDE]: await seedNamespace(api, OUTSIDE) };
    world = { app: l.t.app, api, fx, base: l.base, grpc: l.grpc };
    for (const role of ['editor', 'admin'] as const) {
      tokens[role] = (await makeToken(api, [{ role, namespace: INSIDE }])).token;
    }
  }, 60_000);
  afterAll(async () => l?.t.close());

  /** Other's objects as an export shows them, its history, and every table's row count but history's. */
  async function otherState(): Promise<string> {
    const as = bearer(BOOT);
    const exported = await call(l.t.app, 'GET', `/api/v1/namespaces/${OUTSIDE}/export?format=json`, undefined, as);
    const history = await call(l.t.app, 'GET', `/api/v1/namespaces/${OUTSIDE}/changes?limit=1000`, undefined, as);
    // A write in team that finds nothing may still record itself there (an order naming unknown ids).
    const { changes: _inTeamToo, ...counts } = JSON.parse(await fingerprint(l.t.app)).numbers;
    return JSON.stringify([exported.body, history.body.changes.length, counts]);
  }

  /** A read must not answer, a write must leave other (and every count) as it was. */
  async function attempt(key: string, isRead: boolean, failures: string[], run: () => Promise<string | undefined>) {
    const before = await otherState();
    const answered = await run();
    if (isRead && answered !== undefined) failures.push(`${key}: answered ${answered}`);
    if ((await otherState()) !== before) failures.push(`${key}: other or a count changed`);
  }

  for (const role of ['editor', 'admin']) {
    it(`an ${role} of team finds nothing of other's over HTTP, and changes nothing`, async () => {
      const entries = httpEntryPoints(l.t.app).filter(
        (entry) =>
          entry.key.startsWith('GET') ||
          entry.key.startsWith('PUT') ||
          entry.key.startsWith('POST') ||
          entry.key.startsWith('DELETE'),
      );
      // Tokens and role bindings name no namespace in their path: the escalation tests cover them.
      const byId = entries.filter(
        (entry) =>
          entry.access.resource !== 'token' && entry.access.resource !== 'role-binding' && BY_ID_ROUTE.test(entry.key),
      );
      expect(byId.length).toBeGreaterThan(20);
      const failures: string[] = [];
      for (const entry of byId) {
        const sample = HTTP_SAMPLES[entry.key];
        if (sample === undefined) throw new Error(`no sample for ${entry.key}`);
        const request = toInside(await sample.request(world, OUTSIDE));
        await attempt(entry.key, request.method === 'GET', failures, async () => {
          const res = await call(
            l.t.app,
            request.method as 'GET',
            request.url,
            request.body,
            bearer(tokens[role] as string),
          );
          if (res.status >= 500) failures.push(`${entry.key}: ${res.status} ${JSON.stringify(res.body)}`);
          return res.status < 300 ? `${res.status} ${JSON.stringify(res.body)}` : undefined;
        });
      }
      expect(failures).toEqual([]);
    });

    it(`an ${role} of team finds nothing of other's over gRPC, and changes nothing`, async () => {
      const byId = grpcEntryPoints(l.t.app).filter((entry) => BY_ID_METHOD.test(entry.key));
      expect(byId.length).toBeGreaterThanOrEqual(15);
      const failures: string[] = [];
      for (const entry of byId) {
        const sample = GRPC_SAMPLES[entry.key];
        if (sample === undefined) throw new Error(`no sample for ${entry.key}`);
        const request = await sample.request(world, OUTSIDE);
        const message = { ...request.message, namespaceKey: INSIDE };
        await attempt(entry.key, (entry.method as string).startsWith('Get'), failures, async () => {
          const error = await grpcAnswer(world, entry, { message }, `Bearer ${tokens[role]}`, false);
          if (error?.code === 13 || error?.code === 2) failures.push(`${entry.key}: ${error.code} ${error.details}`);
          return error === undefined ? 'OK' : undefined;
        });
      }
      expect(failures).toEqual([]);
    });
  }
});
