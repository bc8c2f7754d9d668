// flipt.evaluation over gRPC (a client built from proto/) against the same app's REST API: for 1,000
// entities and every flag kind of the rich namespace, Boolean, Variant and Batch answer what
// /evaluate/v1 answers; DataService's snapshot is the client snapshot route's; the revision is in the
// response metadata; a missing flag is NOT_FOUND with Flipt's message; a batch over the limit is
// INVALID_ARGUMENT; an expired deadline does no work. Every row runs through both paths an evaluation
// call can take: the fast path that answers plain calls on the HTTP/2 stream, and grpc-js (compressed
// calls, which the fast path leaves to it).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg, messageJson } from '../helpers/flipt-grpc.js';
import {
  contextFor,
  fetchHttp,
  type Http,
  RICH_BOOLEAN_FLAGS,
  RICH_VARIANT_FLAGS,
  Seeder,
  seedRichNamespace,
} from './evaluation-seed.js';

const EVALUATION = 'flipt.evaluation.EvaluationService';
const DATA = 'flipt.evaluation.DataService';
const ENTITIES = 1_000;
const STAMP_KEYS = ['requestId', 'requestDurationMillis', 'timestamp'];

/** An answer without what differs per call (request id, duration, time). */
function unstamped(answer: Msg): Msg {
  const out = { ...answer };
  for (const key of STAMP_KEYS) delete out[key];
  return out;
}

/** The REST answer's fields that the proto message has (REST's boolean also lists segmentKeys). */
function inProto(rest: Msg, grpc: Msg): Msg {
  return Object.fromEntries(Object.keys(grpc).map((key) => [key, rest[key]]));
}

/**
 * Every fourth entity's id is not ASCII (and so its message is not): the fast path reads ASCII strings
 * from one Latin-1 decoding of the message and the rest as UTF-8 (evaluation-request-reader.ts); a wrong
 * byte moves the entity's bucket, which the percentage rollouts of the rich namespace show.
 */
function entityIdFor(i: number): string {
  return i % 4 === 0 ? `éntité-${i}-ü` : `entity-${i}`;
}

async function inBatches<T>(count: number, size: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += size) {
    const chunk = Array.from({ length: Math.min(size, count - start) }, (_, j) => fn(start + j));
    out.push(...(await Promise.all(chunk)));
  }
  return out;
}

/** The two paths an evaluation call can take. */
const PATHS = [
  { path: 'the fast path', compressed: false, fast: true, entities: ENTITIES },
  // Fewer entities: the rows are the same code past the edge.
  { path: 'grpc-js (compressed calls)', compressed: true, fast: false, entities: ENTITIES / 4 },
];

describeEachBackend('gRPC flipt.evaluation', (backend) => {
  let t: TestApp;
  let http: Http;
  let baseUrl: string;
  let grpcPort: number;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      evaluation: { batch_limit: 50 },
    });
    const ports = await t.app.listen();
    baseUrl = `http://127.0.0.1:${ports.httpPort}`;
    // REST through inject: the same app and routes, without 7,000 more sockets on a busy machine.
    http = (method, url, body) => call(t.app, method, url, body);
    grpcPort = ports.grpcPort;
    await seedRichNamespace(new Seeder(http));
  });
  afterAll(async () => {
    await t?.close();
  });

  describe.each(PATHS)('through $path', ({ compressed, fast, entities }) => {
    let grpc: FliptGrpc;
    let takenBefore = 0;
    beforeAll(() => {
      grpc = new FliptGrpc(grpcPort, { compressed });
      takenBefore = t.app.grpc.fastPath?.taken ?? 0;
    });
    afterAll(() => {
      grpc?.close();
    });

    it(`Boolean and Variant answer as /evaluate/v1 for ${entities} entities × every flag`, async () => {
      const flags = [
        ...RICH_BOOLEAN_FLAGS.map((key) => ({ key, method: 'Boolean', url: '/evaluate/v1/boolean' })),
        ...RICH_VARIANT_FLAGS.map((key) => ({ key, method: 'Variant', url: '/evaluate/v1/variant' })),
      ];
      let compared = 0;
      await inBatches(entities, 50, async (i) => {
        const context = contextFor(i);
        for (const flag of flags) {
          const request = { namespaceKey: 'default', flagKey: flag.key, entityId: entityIdFor(i), context };
          const [viaGrpc, viaRest] = await Promise.all([
            grpc.call(EVALUATION, flag.method, request),
            http('POST', flag.url, request),
          ]);
          expect(viaRest.status).toBe(200);
          const answer = viaGrpc.response;
          expect(unstamped(answer)).toEqual(unstamped(inProto(viaRest.body, answer)));
          expect(answer.requestId).not.toBe('');
          compared++;
        }
      });
      expect(compared).toBe(entities * flags.length);
    }, 120_000);

    it('Batch answers as /evaluate/v1/batch, item by item', async () => {
      const flagKeys = [...RICH_BOOLEAN_FLAGS, ...RICH_VARIANT_FLAGS, 'no-such-flag'];
      await inBatches(entities / 10, 20, async (n) => {
        const requests = [];
        for (let i = n * 10; i < n * 10 + 10; i++) {
          // Four flags per entity, in turn: 1,000 entities × every flag in 100 batches of 40.
          for (const flagKey of flagKeys)
            requests.push({ namespaceKey: 'default', flagKey, entityId: entityIdFor(i), context: contextFor(i) });
        }
        const chunks = [requests.slice(0, 40), requests.slice(40, 80)];
        for (const chunk of chunks) {
          const body = { requestId: `batch-${n}`, requests: chunk };
          const [viaGrpc, viaRest] = await Promise.all([
            grpc.call(EVALUATION, 'Batch', body),
            http('POST', '/evaluate/v1/batch', body),
          ]);
          expect(viaRest.status).toBe(200);
          expect(viaGrpc.response.requestId).toBe(`batch-${n}`);
          const items = viaGrpc.response.responses.map((item: Msg) => {
            const key =
              item.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE'
                ? 'booleanResponse'
                : item.type === 'VARIANT_EVALUATION_RESPONSE_TYPE'
                  ? 'variantResponse'
                  : 'errorResponse';
            return { type: item.type, [key]: unstamped(item[key]) };
          });
          const restItems = viaRest.body.responses.map((item: Msg, k: number) => {
            const key = Object.keys(item).find((name) => name !== 'type') as string;
            const grpcItem = viaGrpc.response.responses[k][key];
            return { type: item.type, [key]: unstamped(inProto(item[key], grpcItem)) };
          });
          expect(items).toEqual(restItems);
        }
      });
    }, 60_000);

    it('names the snapshot revision in x-vexil-revision, as REST does', async () => {
      const request = { namespaceKey: 'default', flagKey: 'color', entityId: 'e', context: {} };
      const viaGrpc = await grpc.call(EVALUATION, 'Variant', request);
      const viaRest = await fetch(
        `http://127.0.0.1:${(t.app.http.server.address() as { port: number }).port}/evaluate/v1/variant`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request),
        },
      );
      expect(viaGrpc.headers['x-vexil-revision']).toBeTruthy();
      expect(viaGrpc.headers['x-vexil-revision']).toBe(viaRest.headers.get('x-vexil-revision'));
    });

    // The fast path writes grpc-js's response headers itself, the date among them (Node adds one only
    // when it is missing, at a cost: docs/performance.md technique 31): both paths send the same, and the
    // date is the current second's, not one kept from an earlier answer.
    it("sends the date as grpc-js does, today's", async () => {
      const request = { namespaceKey: 'default', flagKey: 'color', entityId: 'e', context: {} };
      // An answer in this second, then the rest in the next: a date kept from the first would be stale.
      await grpc.call(EVALUATION, 'Variant', request);
      const missing = { ...request, flagKey: 'no-such-flag' };
      await grpc.error(EVALUATION, 'Boolean', missing);
      await new Promise((resolve) => setTimeout(resolve, 1_005 - (Date.now() % 1_000)));
      for (const method of ['Boolean', 'Variant', 'Batch'] as const) {
        const before = Math.floor(Date.now() / 1000) * 1000;
        const { headers } = await grpc.call(
          EVALUATION,
          method,
          method === 'Batch'
            ? { requests: [request] }
            : { ...request, flagKey: method === 'Boolean' ? 'dark-mode' : 'color' },
        );
        const after = Date.now();
        expect(headers.date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
        const date = Date.parse(headers.date as string);
        expect(date).toBeGreaterThanOrEqual(before);
        expect(date).toBeLessThanOrEqual(after);
      }
      // A refusal is answered trailers-only, its date given as well (call-screening.ts), today's too.
      const before = Math.floor(Date.now() / 1000) * 1000;
      const refused = await grpc.error(EVALUATION, 'Boolean', missing);
      const after = Date.now();
      expect(refused.code).toBe(5);
      const [date] = refused.metadata.get('date');
      expect(date).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(Date.parse(date as string)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(date as string)).toBeLessThanOrEqual(after);
    });

    // A call answers at once while the namespace's snapshot is held and waits for a load only when it is
    // not: the first call in a namespace nobody has evaluated yet is the cold row, the second the warm one.
    it.each(['Boolean', 'Variant', 'Batch'])('%s answers alike with the snapshot cold and warm', async (method) => {
      const namespaceKey = `cold-${method.toLowerCase()}-${compressed ? 'gz' : 'plain'}`;
      expect((await http('POST', '/api/v1/namespaces', { key: namespaceKey, name: namespaceKey })).status).toBe(200);
      const flagKey = method === 'Variant' ? 'shade' : 'switch';
      const flag = {
        key: flagKey,
        name: flagKey,
        type: method === 'Variant' ? 'VARIANT_FLAG_TYPE' : 'BOOLEAN_FLAG_TYPE',
        enabled: true,
      };
      expect((await http('POST', `/api/v1/namespaces/${namespaceKey}/flags`, flag)).status).toBe(200);
      const single = { namespaceKey, flagKey, entityId: 'e', context: { plan: 'pro' } };
      const request = method === 'Batch' ? { requestId: 'cold', requests: [single, single] } : single;
      const url = `/evaluate/v1/${method.toLowerCase()}`;
      const taken = t.app.grpc.fastPath?.taken ?? 0;
      const cold = await grpc.call(EVALUATION, method, request);
      const warm = await grpc.call(EVALUATION, method, request);
      const rest = await http('POST', url, request);
      expect(rest.status).toBe(200);
      expect((t.app.grpc.fastPath?.taken ?? 0) - taken).toBe(fast ? 2 : 0);
      const comparable = (answer: Msg) =>
        method === 'Batch' ? answer.responses.map((item: Msg) => unstamped(item.booleanResponse)) : unstamped(answer);
      const restAnswer =
        method === 'Batch'
          ? {
              responses: rest.body.responses.map((item: Msg) => ({
                booleanResponse: inProto(item.booleanResponse, cold.response.responses[0].booleanResponse),
              })),
            }
          : inProto(rest.body, cold.response);
      expect(comparable(cold.response)).toEqual(comparable(restAnswer));
      expect(comparable(warm.response)).toEqual(comparable(restAnswer));
      // A batch may span namespaces: it names no revision, over REST either.
      if (method !== 'Batch') expect(cold.headers['x-vexil-revision']).toBeTruthy();
      expect(warm.headers['x-vexil-revision']).toBe(cold.headers['x-vexil-revision']);
    });

    it('fails as REST does: missing flag NOT_FOUND, batch over the limit INVALID_ARGUMENT', async () => {
      const missing = await grpc.error(EVALUATION, 'Boolean', {
        namespaceKey: 'default',
        flagKey: 'nope',
        entityId: 'e',
      });
      const rest = await http('POST', '/evaluate/v1/boolean', {
        namespaceKey: 'default',
        flagKey: 'nope',
        entityId: 'e',
      });
      expect({ code: missing.code, message: missing.details }).toEqual({
        code: 5,
        message: 'flag "default/nope" not found',
      });
      expect(rest.body.message).toBe(missing.details);
      const requests = Array.from({ length: 51 }, () => ({ flagKey: 'color', entityId: 'e' }));
      const tooMany = await grpc.error(EVALUATION, 'Batch', { requests });
      const restTooMany = await http('POST', '/evaluate/v1/batch', { requests });
      expect(tooMany.code).toBe(3);
      expect(tooMany.details).toBe(restTooMany.body.message);
    });

    it("refuses a message over Flipt's 4 MiB limit", async () => {
      const context = { big: 'x'.repeat(4 * 1024 * 1024 + 1) };
      const err = await grpc.error(EVALUATION, 'Boolean', {
        namespaceKey: 'default',
        flagKey: 'new-ui',
        entityId: 'e',
        context,
      });
      expect(err.code).toBe(8);
      // Just under the limit is served.
      const fits = { big: 'x'.repeat(4 * 1024 * 1024 - 1024) };
      const ok = await grpc.call(EVALUATION, 'Boolean', {
        namespaceKey: 'default',
        flagKey: 'new-ui',
        entityId: 'e',
        context: fits,
      });
      expect(ok.response.flagKey).toBe('new-ui');
    });

    it('does no work for a call whose deadline has passed', async () => {
      const err = await grpc.error(
        EVALUATION,
        'Variant',
        { flagKey: 'color', entityId: 'e' },
        { deadline: new Date(Date.now() - 1_000) },
      );
      expect(err.code).toBe(4);
    });

    it('DataService.EvaluationSnapshotNamespace is the client snapshot route', async () => {
      const viaGrpc = await grpc.call(DATA, 'EvaluationSnapshotNamespace', { key: 'default' });
      // A gRPC client is current: compare with the snapshot a current client gets over HTTP.
      const current = fetchHttp(baseUrl, { 'x-flipt-accept-server-version': '1.61.0' });
      const viaRest = await current('GET', '/internal/v1/evaluation/snapshot/namespace/default');
      expect(viaRest.status).toBe(200);
      const normalized = messageJson(viaGrpc.response);
      expect(normalized).toEqual(viaRest.body);
      const missing = await grpc.call(DATA, 'EvaluationSnapshotNamespace', { key: 'nowhere' });
      expect(missing.response).toEqual({ namespace: { key: 'nowhere' }, flags: [] });
    });
    it('was answered by that path', () => {
      const taken = (t.app.grpc.fastPath?.taken ?? 0) - takenBefore;
      if (fast) expect(taken).toBeGreaterThan(100);
      else expect(taken).toBe(0);
    });
  });
});
