// The behaviours Flipt's own integration suites assert (its API suite and its read-only suite), as our
// own tables, over both transports: REST (Flipt's @flipt-io/flipt client where it has the call, fetch
// elsewhere) and gRPC (a grpc-js client from proto/), with and without authentication, on every
// backend. Namespaces are addressed as "", `default` and `staging` (Flipt runs its suite for each; ""
// must be `default`).
//
// - Management errors: which call fails, with which code and message, identically on both transports.
// - Read-only storage after an import: a generated document (ours) is imported, then another instance
//   on the same database with `storage.read_only: true` serves every read (paging included) and every
//   kind of evaluation, and refuses writes.

import { ClientTokenAuthentication, FliptClient } from '@flipt-io/flipt';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY_MESSAGE } from '../../src/api/kinds.js';
import type { App } from '../../src/app/build-app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg } from '../helpers/flipt-grpc.js';
import { buildAppOn } from './cache-support.js';

const BOOT = 'flipt-behaviours-bootstrap';
const F = 'flipt.Flipt';
const E = 'flipt.evaluation.EvaluationService';

const AUTH = [
  { auth: 'without authentication', required: false },
  { auth: 'with a token', required: true },
] as const;

function authConfig(required: boolean) {
  return required
    ? { authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } } }
    : {};
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Both transports of one server, with the token when authentication is required. */
class Transports {
  readonly grpc: FliptGrpc;
  readonly client: FliptClient;
  constructor(
    readonly base: string,
    grpcPort: number,
    readonly token: string | undefined,
  ) {
    this.grpc = new FliptGrpc(grpcPort);
    this.client = new FliptClient({
      url: base,
      timeout: 10,
      ...(token === undefined ? {} : { authenticationStrategy: new ClientTokenAuthentication(token) }),
    });
  }

  async rest(method: Method, path: string, body?: unknown): Promise<{ status: number; body: Msg }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  async rpc(service: string, method: string, request: unknown): Promise<Msg> {
    return (await this.grpc.call(service, method, request, { token: this.token })).response;
  }

  /** The gRPC failure of a call as `{ code, message }`. */
  async rpcError(service: string, method: string, request: unknown): Promise<{ code: number; message: string }> {
    const err = await this.grpc.error(service, method, request, { token: this.token });
    return { code: err.code, message: err.details };
  }
}

/** Flipt's HTTP status for a gRPC code (grpc-gateway's mapping, for the codes these tables use). */
const HTTP_STATUS: Record<number, number> = {
  [status.INVALID_ARGUMENT]: 400,
  [status.NOT_FOUND]: 404,
  [status.UNIMPLEMENTED]: 405,
};

// ---- Management errors (Flipt's API suite) -------------------------------------------------------

interface Ids {
  stagingVariant: string;
  defaultRule: string;
  rollout: string;
}

interface ErrorRow {
  name: string;
  rest(ids: Ids): { method: Method; path: string; body?: unknown };
  grpc(ids: Ids): { method: string; request: unknown };
  code: number;
  message(ids: Ids): string;
}

const BAD_TOKEN = 'Hello World';

const ERROR_ROWS: ErrorRow[] = [
  {
    name: 'creating the default namespace',
    rest: () => ({ method: 'POST', path: '/api/v1/namespaces', body: { key: 'default', name: 'Default' } }),
    grpc: () => ({ method: 'CreateNamespace', request: { key: 'default', name: 'Default' } }),
    code: status.INVALID_ARGUMENT,
    message: () => 'namespace "default" is not unique',
  },
  {
    name: 'deleting the default namespace',
    rest: () => ({ method: 'DELETE', path: '/api/v1/namespaces/default' }),
    grpc: () => ({ method: 'DeleteNamespace', request: { key: 'default' } }),
    code: status.INVALID_ARGUMENT,
    message: () => 'namespace "default" is protected',
  },
  {
    name: 'deleting a namespace that still has flags',
    rest: () => ({ method: 'DELETE', path: '/api/v1/namespaces/staging' }),
    grpc: () => ({ method: 'DeleteNamespace', request: { key: 'staging' } }),
    code: status.INVALID_ARGUMENT,
    message: () => 'namespace "staging" cannot be deleted; flags must be deleted first',
  },
  {
    name: 'listing namespaces with a page token that is not one',
    rest: () => ({ method: 'GET', path: `/api/v1/namespaces?pageToken=${encodeURIComponent(BAD_TOKEN)}` }),
    grpc: () => ({ method: 'ListNamespaces', request: { pageToken: BAD_TOKEN } }),
    code: status.INVALID_ARGUMENT,
    message: () => `pageToken is not valid: "${BAD_TOKEN}"`,
  },
  {
    name: 'listing flags with a page token that is not one',
    rest: () => ({
      method: 'GET',
      path: `/api/v1/namespaces/staging/flags?limit=10&pageToken=${encodeURIComponent(BAD_TOKEN)}`,
    }),
    grpc: () => ({ method: 'ListFlags', request: { namespaceKey: 'staging', limit: 10, pageToken: BAD_TOKEN } }),
    code: status.INVALID_ARGUMENT,
    message: () => `pageToken is not valid: "${BAD_TOKEN}"`,
  },
  {
    name: 'listing rules with a page token that is not one',
    rest: () => ({
      method: 'GET',
      path: `/api/v1/namespaces/staging/flags/checkout/rules?limit=10&pageToken=${encodeURIComponent(BAD_TOKEN)}`,
    }),
    grpc: () => ({
      method: 'ListRules',
      request: { namespaceKey: 'staging', flagKey: 'checkout', limit: 10, pageToken: BAD_TOKEN },
    }),
    code: status.INVALID_ARGUMENT,
    message: () => `pageToken is not valid: "${BAD_TOKEN}"`,
  },
  {
    name: 'a rule linking a segment of another namespace ("" is default)',
    rest: () => ({
      method: 'POST',
      path: '/api/v1/namespaces//flags/banner/rules',
      body: { segmentKey: 'testers', rank: 2 },
    }),
    grpc: () => ({
      method: 'CreateRule',
      request: { namespaceKey: '', flagKey: 'banner', segmentKey: 'testers', rank: 2 },
    }),
    code: status.NOT_FOUND,
    message: () => 'flag "default/banner" or segment "default/testers" not found',
  },
  {
    name: 'a distribution of a variant of another namespace',
    rest: (ids) => ({
      method: 'POST',
      path: `/api/v1/namespaces/default/flags/banner/rules/${ids.defaultRule}/distributions`,
      body: { variantId: ids.stagingVariant, rollout: 100 },
    }),
    grpc: (ids) => ({
      method: 'CreateDistribution',
      request: { flagKey: 'banner', ruleId: ids.defaultRule, variantId: ids.stagingVariant, rollout: 100 },
    }),
    code: status.NOT_FOUND,
    message: (ids) =>
      `variant "${ids.stagingVariant}", rule "${ids.defaultRule}", flag "banner" in namespace "default" not found`,
  },
  {
    name: 'a rollout over 100 percent',
    rest: () => ({
      method: 'POST',
      path: '/api/v1/namespaces/staging/flags/dark-mode/rollouts',
      body: { rank: 5, threshold: { percentage: 101, value: true } },
    }),
    grpc: () => ({
      method: 'CreateRollout',
      request: { namespaceKey: 'staging', flagKey: 'dark-mode', rank: 5, threshold: { percentage: 101, value: true } },
    }),
    code: status.INVALID_ARGUMENT,
    message: () => 'invalid field threshold.percentage: must be within range [0, 100]',
  },
  {
    name: 'a second rollout at a rank already taken',
    rest: () => ({
      method: 'POST',
      path: '/api/v1/namespaces/staging/flags/dark-mode/rollouts',
      body: { rank: 1, threshold: { percentage: 10, value: true } },
    }),
    grpc: () => ({
      method: 'CreateRollout',
      request: { namespaceKey: 'staging', flagKey: 'dark-mode', rank: 1, threshold: { percentage: 10, value: true } },
    }),
    code: status.INVALID_ARGUMENT,
    message: () => 'rank number: 1 already exists',
  },
  {
    name: 'a rollout on a segment that does not exist',
    rest: () => ({
      method: 'POST',
      path: '/api/v1/namespaces/staging/flags/dark-mode/rollouts',
      body: { rank: 5, segment: { segmentKey: 'nobody', value: true } },
    }),
    grpc: () => ({
      method: 'CreateRollout',
      request: {
        namespaceKey: 'staging',
        flagKey: 'dark-mode',
        rank: 5,
        segment: { segmentKey: 'nobody', value: true },
      },
    }),
    code: status.NOT_FOUND,
    message: () => 'flag "staging/dark-mode or segment nobody" not found',
  },
  {
    name: 'changing the type of a rollout',
    rest: (ids) => ({
      method: 'PUT',
      path: `/api/v1/namespaces/staging/flags/dark-mode/rollouts/${ids.rollout}`,
      body: { segment: { segmentKey: 'testers', value: true } },
    }),
    grpc: (ids) => ({
      method: 'UpdateRollout',
      request: {
        namespaceKey: 'staging',
        flagKey: 'dark-mode',
        id: ids.rollout,
        segment: { segmentKey: 'testers', value: true },
      },
    }),
    code: status.INVALID_ARGUMENT,
    message: () => 'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
  },
];

describeEachBackend("Flipt's API behaviours", (backend) => {
  describe.each(AUTH)('$auth', ({ required }) => {
    let t: TestApp;
    let io: Transports;
    const ids = {} as Ids;

    beforeAll(async () => {
      t = await startTestApp(backend, {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        ...authConfig(required),
      });
      const ports = await t.app.listen();
      io = new Transports(`http://127.0.0.1:${ports.httpPort}`, ports.grpcPort, required ? BOOT : undefined);
      // Our own small setup: `staging` with a variant flag, a boolean flag with a threshold rollout and
      // a segment; `default` with a flag and a rule on a segment of its own.
      const ok = async (method: Method, path: string, body?: unknown) => {
        const res = await io.rest(method, path, body);
        if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body;
      };
      await ok('POST', '/api/v1/namespaces', { key: 'staging', name: 'Staging' });
      await ok('POST', '/api/v1/namespaces/staging/flags', { key: 'checkout', name: 'Checkout', enabled: true });
      ids.stagingVariant = (await ok('POST', '/api/v1/namespaces/staging/flags/checkout/variants', { key: 'blue' })).id;
      await ok('POST', '/api/v1/namespaces/staging/segments', { key: 'testers', name: 'Testers' });
      await ok('POST', '/api/v1/namespaces/staging/flags', {
        key: 'dark-mode',
        name: 'Dark',
        type: 'BOOLEAN_FLAG_TYPE',
      });
      ids.rollout = (
        await ok('POST', '/api/v1/namespaces/staging/flags/dark-mode/rollouts', {
          rank: 1,
          threshold: { percentage: 50, value: true },
        })
      ).id;
      await ok('POST', '/api/v1/namespaces/default/flags', { key: 'banner', name: 'Banner', enabled: true });
      await ok('POST', '/api/v1/namespaces/default/segments', { key: 'everyone', name: 'Everyone' });
      ids.defaultRule = (
        await ok('POST', '/api/v1/namespaces/default/flags/banner/rules', { segmentKey: 'everyone', rank: 1 })
      ).id;
    });
    afterAll(async () => {
      io?.grpc.close();
      await t?.close();
    });

    it.each(ERROR_ROWS)('$name: the same code and message over REST and gRPC', async (row) => {
      const call = row.rest(ids);
      const res = await io.rest(call.method, call.path, call.body);
      expect({ status: res.status, body: res.body }).toEqual({
        status: HTTP_STATUS[row.code],
        body: { code: row.code, message: row.message(ids), details: [] },
      });
      const rpc = row.grpc(ids);
      expect(await io.rpcError(F, rpc.method, rpc.request)).toEqual({ code: row.code, message: row.message(ids) });
    });

    it('updates the default namespace, which it may not create or delete', async () => {
      const body = { name: 'Default', description: 'the first namespace' };
      expect((await io.rest('PUT', '/api/v1/namespaces/default', body)).body).toMatchObject(body);
      expect(await io.rpc(F, 'UpdateNamespace', { key: 'default', ...body })).toMatchObject(body);
    });
  });
});

// ---- Read-only storage after an import (Flipt's read-only suite) ----------------------------------

const FLAG_COUNT = 23;
const SEGMENT_COUNT = 13;
const RULE_COUNT = 12;
const pad = (n: number) => String(n).padStart(2, '0');

/** Our generated document for one namespace: many flags and segments, one flag with many rules. */
function generatedDocument(namespace: string) {
  const segments = Array.from({ length: SEGMENT_COUNT }, (_, i) => ({
    key: `group-${pad(i + 1)}`,
    name: `Group ${i + 1}`,
    description: 'generated',
    match_type: 'ALL_MATCH_TYPE',
    constraints: [
      { type: 'STRING_COMPARISON_TYPE', property: 'group', operator: 'eq', value: `group-${pad(i + 1)}` },
      { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'neq', value: 'nowhere' },
    ],
  }));
  const variantFlags = Array.from({ length: FLAG_COUNT - 3 }, (_, i) => ({
    key: `item-${pad(i + 1)}`,
    name: `Item ${i + 1}`,
    description: 'generated',
    type: 'VARIANT_FLAG_TYPE',
    enabled: true,
    variants: [{ key: 'left' }, { key: 'right' }],
    // The first flag: one rule per segment but the last, each serving `right`.
    rules:
      i === 0
        ? segments
            .slice(0, RULE_COUNT)
            .map((s) => ({ segment: s.key, distributions: [{ variant: 'right', rollout: 100 }] }))
        : [],
  }));
  return {
    version: '1.4',
    namespace,
    flags: [
      ...variantFlags,
      { key: 'paused', name: 'Paused', type: 'VARIANT_FLAG_TYPE', enabled: false, variants: [{ key: 'left' }] },
      {
        key: 'both-groups',
        name: 'Both groups',
        type: 'VARIANT_FLAG_TYPE',
        enabled: true,
        variants: [{ key: 'left' }, { key: 'right' }],
        rules: [
          {
            segment: { keys: ['group-01', 'group-02'], operator: 'AND_SEGMENT_OPERATOR' },
            distributions: [{ variant: 'left', rollout: 100 }],
          },
        ],
      },
      {
        key: 'switch',
        name: 'Switch',
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: false,
        rollouts: [
          { segment: { key: 'group-01', value: true } },
          { segment: { key: 'group-02', value: true } },
          { threshold: { percentage: 0, value: true } },
        ],
      },
    ],
    segments,
  };
}

/** Every page of a list, `limit` at a time, through `page(token)`. */
async function pages(limit: number, page: (token: string) => Promise<{ items: unknown[]; next: string }>) {
  const sizes: number[] = [];
  let token = '';
  do {
    const { items, next } = await page(token);
    sizes.push(items.length);
    expect(items.length).toBeLessThanOrEqual(limit);
    token = next;
  } while (token !== '');
  return sizes;
}

/** Page sizes of `total` items `limit` at a time. */
const expectedPages = (total: number, limit: number) =>
  Array.from({ length: Math.ceil(total / limit) }, (_, i) => Math.min(limit, total - i * limit));

const NAMESPACES = [
  { asked: '', served: 'default' },
  { asked: 'default', served: 'default' },
  { asked: 'staging', served: 'staging' },
];

describeEachBackend("Flipt's read-only behaviours after an import", (backend) => {
  describe.each(AUTH)('$auth', ({ required }) => {
    let writer: TestApp;
    let reader: App;
    let io: Transports;

    beforeAll(async () => {
      writer = await startTestApp(backend, authConfig(required));
      for (const namespace of ['default', 'staging']) {
        const res = await writer.app.http.inject({
          method: 'POST',
          url: '/api/v1/import',
          headers: { 'content-type': 'application/json', ...(required ? { authorization: `Bearer ${BOOT}` } : {}) },
          payload: JSON.stringify(generatedDocument(namespace)),
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      reader = await buildAppOn(writer.database.url, {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        storage: { read_only: true },
        ...authConfig(required),
      });
      const ports = await reader.listen();
      io = new Transports(`http://127.0.0.1:${ports.httpPort}`, ports.grpcPort, required ? BOOT : undefined);
    });
    afterAll(async () => {
      io?.grpc.close();
      await reader?.close();
      await writer?.close();
    });

    it('lists both namespaces, and refuses a page token that is not one', async () => {
      const keys = ['default', 'staging'];
      expect((await io.rest('GET', '/api/v1/namespaces')).body.namespaces.map((n: Msg) => n.key)).toEqual(keys);
      expect((await io.rpc(F, 'ListNamespaces', {})).namespaces.map((n: Msg) => n.key)).toEqual(keys);
      expect((await io.rest('GET', `/api/v1/namespaces?pageToken=${BAD_TOKEN}`)).status).toBe(400);
      expect((await io.rpcError(F, 'ListNamespaces', { pageToken: BAD_TOKEN })).code).toBe(status.INVALID_ARGUMENT);
    });

    describe.each(NAMESPACES)('namespace "$asked"', ({ asked, served }) => {
      it('gets a flag with its variants and a segment with its constraints', async () => {
        const flag = await io.rpc(F, 'GetFlag', { namespaceKey: asked, key: 'item-13' });
        expect(flag).toMatchObject({ key: 'item-13', name: 'Item 13', namespaceKey: served });
        expect(flag.variants.map((v: Msg) => v.key)).toEqual(['left', 'right']);
        const rest = (await io.rest('GET', `/api/v1/namespaces/${asked}/flags/item-13`)).body;
        expect(rest.variants.map((v: Msg) => v.key)).toEqual(['left', 'right']);
        const segment = await io.rpc(F, 'GetSegment', { namespaceKey: asked, key: 'group-13' });
        expect(segment.constraints.map((c: Msg) => [c.property, c.operator, c.value])).toEqual([
          ['group', 'eq', 'group-13'],
          ['region', 'neq', 'nowhere'],
        ]);
      });

      it('pages through flags (Flipt client and gRPC), segments, rules and rollouts', async () => {
        expect(
          await pages(10, async (pageToken) => {
            const list = await io.client.flags.listFlags(asked, { limit: 10, pageToken });
            return { items: list.flags, next: list.nextPageToken };
          }),
        ).toEqual(expectedPages(FLAG_COUNT, 10));
        expect(
          await pages(10, async (pageToken) => {
            const list = await io.rpc(F, 'ListFlags', { namespaceKey: asked, limit: 10, pageToken });
            return { items: list.flags, next: list.nextPageToken };
          }),
        ).toEqual(expectedPages(FLAG_COUNT, 10));
        expect(
          await pages(10, async (pageToken) => {
            const list = (
              await io.rest(
                'GET',
                `/api/v1/namespaces/${asked}/segments?limit=10&pageToken=${encodeURIComponent(pageToken)}`,
              )
            ).body;
            return { items: list.segments, next: list.nextPageToken };
          }),
        ).toEqual(expectedPages(SEGMENT_COUNT, 10));
        expect(
          await pages(10, async (pageToken) => {
            const list = await io.rpc(F, 'ListRules', {
              namespaceKey: asked,
              flagKey: 'item-01',
              limit: 10,
              pageToken,
            });
            return { items: list.rules, next: list.nextPageToken };
          }),
        ).toEqual(expectedPages(RULE_COUNT, 10));
        expect(
          await pages(2, async (pageToken) => {
            const list = (
              await io.rest(
                'GET',
                `/api/v1/namespaces/${asked}/flags/switch/rollouts?limit=2&pageToken=${encodeURIComponent(pageToken)}`,
              )
            ).body;
            return { items: list.rules, next: list.nextPageToken };
          }),
        ).toEqual([2, 1]);
      });

      it('evaluates every case: match, AND-ed segments, no match, disabled, not found, boolean rollouts', async () => {
        const ctx = (group: string) => ({
          namespaceKey: asked,
          entityId: 'entity-1',
          context: { group, region: 'north' },
        });
        const variant = await io.client.evaluation.variant({ flagKey: 'item-01', ...ctx('group-05') });
        expect(variant).toMatchObject({ match: true, variantKey: 'right', segmentKeys: ['group-05'] });
        expect(await io.rpc(E, 'Variant', { flagKey: 'item-01', ...ctx('group-05') })).toMatchObject({
          match: true,
          variantKey: 'right',
        });
        // Both segments of an AND rule cannot match one `group`: no match; group-01 alone neither.
        expect(await io.rpc(E, 'Variant', { flagKey: 'both-groups', ...ctx('group-01') })).toMatchObject({
          match: false,
          reason: 'UNKNOWN_EVALUATION_REASON',
        });
        expect(await io.client.evaluation.variant({ flagKey: 'item-01', ...ctx('group-13') })).toMatchObject({
          match: false,
        });
        expect(await io.client.evaluation.variant({ flagKey: 'paused', ...ctx('group-01') })).toMatchObject({
          match: false,
          reason: 'FLAG_DISABLED_EVALUATION_REASON',
        });
        const missing = `flag "${served}/no-such-flag" not found`;
        expect(await io.rest('POST', '/evaluate/v1/variant', { flagKey: 'no-such-flag', ...ctx('x') })).toEqual({
          status: 404,
          body: { code: status.NOT_FOUND, message: missing, details: [] },
        });
        expect(await io.rpcError(E, 'Variant', { flagKey: 'no-such-flag', ...ctx('x') })).toEqual({
          code: status.NOT_FOUND,
          message: missing,
        });
        // Boolean: the first matching segment rollout, else the threshold (0%), else the flag's value.
        expect(await io.client.evaluation.boolean({ flagKey: 'switch', ...ctx('group-02') })).toMatchObject({
          enabled: true,
          reason: 'MATCH_EVALUATION_REASON',
        });
        expect(await io.rpc(E, 'Boolean', { flagKey: 'switch', ...ctx('group-09') })).toMatchObject({
          enabled: false,
          reason: 'DEFAULT_EVALUATION_REASON',
        });
        const batch = await io.client.evaluation.batch({
          requests: [
            { flagKey: 'item-01', ...ctx('group-05') },
            { flagKey: 'switch', ...ctx('group-01') },
            { flagKey: 'no-such-flag', ...ctx('x') },
          ],
        });
        expect(batch.responses.map((r: Msg) => r.type)).toEqual([
          'VARIANT_EVALUATION_RESPONSE_TYPE',
          'BOOLEAN_EVALUATION_RESPONSE_TYPE',
          'ERROR_EVALUATION_RESPONSE_TYPE',
        ]);
        const legacy = await io.rpc(F, 'Evaluate', { flagKey: 'item-01', ...ctx('group-05') });
        expect(legacy).toMatchObject({ match: true, value: 'right' });
      });

      it('refuses writes on both transports', async () => {
        expect(await io.rest('POST', `/api/v1/namespaces/${asked}/flags`, { key: 'new', name: 'New' })).toEqual({
          status: 405,
          body: { code: status.UNIMPLEMENTED, message: READ_ONLY_MESSAGE, details: [] },
        });
        expect(await io.rpcError(F, 'CreateFlag', { namespaceKey: asked, key: 'new', name: 'New' })).toEqual({
          code: status.UNIMPLEMENTED,
          message: READ_ONLY_MESSAGE,
        });
      });
    });
  });
});
