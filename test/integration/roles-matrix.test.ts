// The role matrix (issue 41), generated from the access declarations: every entry point of both
// transports (the HTTP router's route table and every gRPC service table, streams included), each with
// a sample request (test/helpers/roles-http-samples.ts, roles-grpc-samples.ts) made inside the callers'
// namespace and, where its rule addresses one, outside it; callers are tokens made with roles and people
// signed in by JWT whose roles come from `authorization.roles` (a rule, or the default none). What a
// row should get comes from neededRole(access) and the namespace addressed (test/helpers/entry-points.ts):
// allowed is any answer but a refusal, refused is 403 with Flipt's body naming the role (gRPC
// PERMISSION_DENIED) and nothing changed in the database. An entry point without a sample fails here,
// as one without a declaration fails the access coverage test. Per backend.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type EntryPoint, grpcEntryPoints, httpEntryPoints } from '../helpers/entry-points.js';
import { jwtPeople } from '../helpers/jwt-people.js';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import {
  type BootApi,
  bootApi,
  INSIDE,
  type Json,
  makeToken,
  OUTSIDE,
  seedNamespace,
} from '../helpers/roles-fixture.js';
import { GRPC_SAMPLES } from '../helpers/roles-grpc-samples.js';
import { HTTP_SAMPLES } from '../helpers/roles-http-samples.js';
import { type Caller, grpcRow, httpRow, type RowWorld, rowNamespaces } from '../helpers/roles-rows.js';
import { type GrpcSample, type HttpSample, PENDING_SAMPLES } from '../helpers/roles-samples.js';

const BOOT = 'roles-matrix-boot';

/** Who calls: tokens with each role on the callers' namespace, an admin of every namespace and one of none here. */
const TOKEN_CALLERS: Omit<Caller, 'authorization'>[] = [
  { name: 'client@team', roles: [{ role: 'client', namespace: INSIDE }] },
  { name: 'viewer@team', roles: [{ role: 'viewer', namespace: INSIDE }] },
  { name: 'editor@team', roles: [{ role: 'editor', namespace: INSIDE }] },
  { name: 'admin@team', roles: [{ role: 'admin', namespace: INSIDE }] },
  { name: 'admin@*', roles: [{ role: 'admin', namespace: '*' }] },
  { name: 'admin@elsewhere', roles: [{ role: 'admin', namespace: 'elsewhere' }] },
];

/** People: an editor of team by rule (email domain), and one no rule matches (the default: no role at all). */
const PEOPLE = [
  { name: 'person editor@team', roles: [{ role: 'editor' as const, namespace: INSIDE }], email: 'ada@editors.test' },
  { name: 'person with no role', roles: [], email: 'bob@elsewhere.test' },
];
const PEOPLE_ROLES = {
  default: 'none',
  rules: [
    { match: { metadata: 'io.flipt.auth.jwt.email', pattern: '*@editors.test' }, role: 'editor', namespace: INSIDE },
  ],
};
const CALLER_NAMES = [...TOKEN_CALLERS, ...PEOPLE].map((caller) => caller.name);

describeEachBackend('the role matrix over every entry point', (backend) => {
  let l: ListeningApp;
  let world: RowWorld;
  let api: BootApi;
  const callers: Caller[] = [];

  beforeAll(async () => {
    const people = await jwtPeople();
    l = await startListeningApp(backend, {
      authentication: {
        required: true,
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          jwt: { enabled: true, public_key_file: people.publicKeyFile },
        },
      },
      authorization: { roles: PEOPLE_ROLES },
      ofrep: { event_streams: { enabled: true } },
    });
    api = bootApi(l.t.app, BOOT);
    const fx = { [INSIDE]: await seedNamespace(api, INSIDE), [OUTSIDE]: await seedNamespace(api, OUTSIDE) };
    world = { app: l.t.app, api, fx, base: l.base, grpc: l.grpc };
    for (const caller of TOKEN_CALLERS) {
      callers.push({ ...caller, authorization: `Bearer ${(await makeToken(api, caller.roles)).token}` });
    }
    for (const { email, ...caller } of PEOPLE) {
      const authorization = `JWT ${await people.sign({ user: { email } })}`;
      callers.push({ ...caller, authorization, person: true });
    }
  }, 60_000);
  afterAll(async () => l?.t.close());

  it('gives each caller the roles its rows expect', async () => {
    for (const caller of callers) {
      const self = await call(l.t.app, 'GET', '/auth/v1/self', undefined, { authorization: caller.authorization });
      expect(self.status, caller.name).toBe(200);
      expect(self.body.roles ?? [], caller.name).toEqual(caller.roles);
    }
  });

  describe('every entry point has a sample', () => {
    it('over HTTP, keyed by route', () => {
      const entries = httpEntryPoints(l.t.app);
      expect(entries.length).toBeGreaterThan(90);
      const missing = entries.filter((entry) => HTTP_SAMPLES[entry.key] === undefined).map((entry) => entry.key);
      expect(missing, 'add a sample to test/helpers/roles-http-samples.ts').toEqual([]);
      const known = new Set(entries.map((entry) => entry.key));
      const stale = Object.keys(HTTP_SAMPLES).filter((key) => !known.has(key) && !PENDING_SAMPLES.has(key));
      expect(stale, 'samples of routes that no longer exist').toEqual([]);
    });

    it('over gRPC, keyed by method', () => {
      const entries = grpcEntryPoints(l.t.app);
      expect(entries.length).toBeGreaterThan(50);
      const missing = entries.filter((entry) => GRPC_SAMPLES[entry.key] === undefined).map((entry) => entry.key);
      expect(missing, 'add a sample to test/helpers/roles-grpc-samples.ts').toEqual([]);
      const known = new Set(entries.map((entry) => entry.key));
      const stale = Object.keys(GRPC_SAMPLES).filter((key) => !known.has(key) && !PENDING_SAMPLES.has(key));
      expect(stale, 'samples of methods that no longer exist').toEqual([]);
    });
  });

  /** Every row of one caller over one transport: the failures listed together, and how many were refused. */
  async function rows(
    caller: Caller,
    transport: 'http' | 'grpc',
  ): Promise<{ failures: string[]; refused: number; total: number }> {
    const entries: EntryPoint[] = transport === 'http' ? httpEntryPoints(l.t.app) : grpcEntryPoints(l.t.app);
    const failures: string[] = [];
    let refused = 0;
    let total = 0;
    for (const entry of entries) {
      const sample = transport === 'http' ? HTTP_SAMPLES[entry.key] : GRPC_SAMPLES[entry.key];
      if (sample === undefined) continue;
      for (const ns of rowNamespaces(entry, sample, INSIDE, OUTSIDE)) {
        try {
          const outcome =
            transport === 'http'
              ? await httpRow(world, caller, entry, sample as HttpSample, ns, INSIDE)
              : await grpcRow(world, caller, entry, sample as GrpcSample, ns, INSIDE);
          total += 1;
          if (outcome.refused) refused += 1;
          if (outcome.failure !== undefined) failures.push(outcome.failure);
        } catch (err) {
          failures.push(`${caller.name} ${entry.key} ${ns ?? ''}: ${(err as Error).message}`);
        }
      }
    }
    return { failures, refused, total };
  }

  for (const name of CALLER_NAMES) {
    for (const transport of ['http', 'grpc'] as const) {
      it(`${name} over ${transport}: allowed where its roles reach, refused elsewhere with nothing changed`, async () => {
        const caller = callers.find((c) => c.name === name) as Caller;
        const { failures, refused, total } = await rows(caller, transport);
        expect(failures).toEqual([]);
        // The matrix refuses where roles fall short (an admin of every namespace: nowhere).
        if (name === 'admin@*') expect(refused).toBe(0);
        else if (name.includes('no role') || name.includes('elsewhere')) expect(refused).toBeGreaterThan(total / 2);
        else expect(refused).toBeGreaterThan(total / 10);
      }, 120_000);
    }
  }

  describe('lists across namespaces are filtered to what the caller may see', () => {
    const as = (name: string) => ({ authorization: (callers.find((c) => c.name === name) as Caller).authorization });

    it('the namespaces list (REST and gRPC) shows a viewer of team only team', async () => {
      const listed = await call(l.t.app, 'GET', '/api/v1/namespaces', undefined, as('viewer@team'));
      expect(listed.status).toBe(200);
      expect(listed.body.namespaces.map((n: Json) => n.key)).toEqual([INSIDE]);
      const overGrpc = await l.grpc.call('flipt.Flipt', 'ListNamespaces', {}, { metadata: as('viewer@team') });
      expect(overGrpc.response.namespaces.map((n: Json) => n.key)).toEqual([INSIDE]);
      const everything = await call(l.t.app, 'GET', '/api/v1/namespaces', undefined, as('admin@*'));
      expect(everything.body.namespaces.map((n: Json) => n.key)).toEqual(expect.arrayContaining([INSIDE, OUTSIDE]));
    });

    it('the history shows a viewer of team nothing of other', async () => {
      const listed = await call(l.t.app, 'GET', '/api/v1/changes?limit=1000', undefined, as('viewer@team'));
      expect(listed.status).toBe(200);
      const namespaces = new Set(listed.body.changes.map((c: Json) => c.namespaceKey));
      expect([...namespaces]).toEqual([INSIDE]);
      const all = await call(l.t.app, 'GET', '/api/v1/changes?limit=1000', undefined, as('admin@*'));
      expect(all.body.changes.some((c: Json) => c.namespaceKey === OUTSIDE)).toBe(true);
    });

    it('the token list shows an admin of team only tokens that reach team alone', async () => {
      const listed = await call(l.t.app, 'GET', '/auth/v1/tokens?limit=1000', undefined, as('admin@team'));
      expect(listed.status).toBe(200);
      const reach = listed.body.authentications.map((a: Json) => (a.roles ?? []).map((r: Json) => r.namespace));
      expect(reach.length).toBeGreaterThan(0);
      for (const namespaces of reach) expect(namespaces.every((n: string) => n === INSIDE)).toBe(true);
      const viewer = await call(l.t.app, 'GET', '/auth/v1/tokens', undefined, as('viewer@team'));
      expect(viewer.body.authentications).toEqual([]);
    });

    it('an export of every namespace holds only the namespaces a viewer may see', async () => {
      const exported = await call(
        l.t.app,
        'GET',
        `/api/v1/namespaces/${INSIDE}/export?all=true&format=json`,
        undefined,
        {
          ...as('viewer@team'),
        },
      );
      expect(exported.status).toBe(200);
      expect(JSON.stringify(exported.body)).not.toContain(`"${OUTSIDE}"`);
    });
  });
});
