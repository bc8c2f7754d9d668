// `authentication.exclude.evaluation` and `exclude.ofrep` skip role checks on their routes (issue 41):
// every entry point of those groups, over both transports (found from the route and service tables
// by their kind, as the matrix finds them), answers with no token at all and with a token holding no
// role on the namespace it addresses; management and legacy evaluation (the management group) stay
// closed to both. Per backend.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type EntryPoint, grpcEntryPoints, httpEntryPoints } from '../helpers/entry-points.js';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.js';
import { bootApi, INSIDE, makeToken, OUTSIDE, seedNamespace } from '../helpers/roles-fixture.js';
import { GRPC_SAMPLES } from '../helpers/roles-grpc-samples.js';
import { HTTP_SAMPLES } from '../helpers/roles-http-samples.js';
import { grpcAnswer, httpAnswer, type RowWorld, rowNamespaces } from '../helpers/roles-rows.js';

const BOOT = 'roles-exclude-boot';
const EXCLUDED = new Set(['evaluation', 'ofrep']);

describeEachBackend('exclude.evaluation and exclude.ofrep skip role checks', (backend) => {
  let l: ListeningApp;
  let world: RowWorld;
  /** A token with a role, but none on the namespaces the rows address. */
  let elsewhere = '';

  beforeAll(async () => {
    l = await startListeningApp(backend, {
      authentication: {
        required: true,
        exclude: { evaluation: true, ofrep: true },
        methods: { token: { enabled: true, bootstrap: { token: BOOT } } },
      },
      ofrep: { event_streams: { enabled: true } },
    });
    const api = bootApi(l.t.app, BOOT);
    const fx = { [INSIDE]: await seedNamespace(api, INSIDE), [OUTSIDE]: await seedNamespace(api, OUTSIDE) };
    world = { app: l.t.app, api, fx, base: l.base, grpc: l.grpc };
    elsewhere = (await makeToken(api, [{ role: 'admin', namespace: 'elsewhere' }])).token;
  }, 60_000);
  afterAll(async () => l?.t.close());

  const excluded = (entries: EntryPoint[]) => entries.filter((entry) => EXCLUDED.has(entry.group));

  it('finds the evaluation and OFREP entry points of both transports', () => {
    const http = excluded(httpEntryPoints(l.t.app)).map((entry) => entry.key);
    expect(http).toEqual(expect.arrayContaining(['POST /evaluate/v1/boolean', 'POST /ofrep/v1/evaluate/flags']));
    const grpc = excluded(grpcEntryPoints(l.t.app)).map((entry) => entry.key);
    expect(grpc).toEqual(
      expect.arrayContaining(['flipt.evaluation.EvaluationService/Boolean', 'flipt.ofrep.OFREPService/EvaluateFlag']),
    );
  });

  for (const [who, token] of [
    ['no token', () => undefined],
    ['a token with no role there', () => `Bearer ${elsewhere}`],
  ] as const) {
    it(`answers ${who} over HTTP, inside and outside`, async () => {
      const failures: string[] = [];
      for (const entry of excluded(httpEntryPoints(l.t.app))) {
        const sample = HTTP_SAMPLES[entry.key];
        if (sample === undefined) throw new Error(`no sample for ${entry.key}`);
        for (const ns of rowNamespaces(entry, sample, INSIDE, OUTSIDE)) {
          const request = await sample.request(world, ns ?? INSIDE);
          const answer = await httpAnswer(world, request, token(), sample.stream === true);
          if (answer.status >= 300)
            failures.push(`${entry.key} ${ns}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it(`answers ${who} over gRPC, inside and outside`, async () => {
      const failures: string[] = [];
      for (const entry of excluded(grpcEntryPoints(l.t.app))) {
        const sample = GRPC_SAMPLES[entry.key];
        if (sample === undefined) throw new Error(`no sample for ${entry.key}`);
        for (const ns of rowNamespaces(entry, sample, INSIDE, OUTSIDE)) {
          const error = await grpcAnswer(
            world,
            entry,
            await sample.request(world, ns ?? INSIDE),
            token(),
            sample.stream === true,
          );
          if (error !== undefined) failures.push(`${entry.key} ${ns}: ${error.code} ${error.details}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  describe('the management group stays closed', () => {
    it('management and legacy evaluation: 401 with no token, 403 without the role', async () => {
      const flags = `/api/v1/namespaces/${INSIDE}/flags`;
      expect((await call(l.t.app, 'GET', flags)).status).toBe(401);
      expect((await call(l.t.app, 'GET', flags, undefined, bearer(elsewhere))).status).toBe(403);
      const legacy = { namespaceKey: INSIDE, flagKey: 'f1', entityId: 'e1', context: {} };
      expect((await call(l.t.app, 'POST', '/api/v1/evaluate', legacy)).status).toBe(401);
      const refused = await call(l.t.app, 'POST', '/api/v1/evaluate', legacy, bearer(elsewhere));
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('role "client"');
      const err = await l.grpc.error('flipt.Flipt', 'Evaluate', legacy, { token: elsewhere });
      expect(err.code).toBe(7);
    });
  });
});
