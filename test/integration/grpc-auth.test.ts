// Authentication over gRPC with `authentication.required: true`, on every backend: the flipt.auth
// services against /auth/v1 (whole objects), and the bearer policy on every service: no token, a bad
// token, a deleted token and an expired one are UNAUTHENTICATED; a namespace-scoped token may address
// its namespace only (PERMISSION_DENIED elsewhere, and on the token API); health, reflection's
// neighbour the public method list, stay open.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc, type Msg, messageJson } from '../helpers/flipt-grpc.js';
import { grpcHealthCheck } from '../helpers/grpc.js';
import { fetchHttp, type Http, Seeder } from './evaluation-seed.js';

const BOOT = 'grpc-bootstrap-token';
const AUTH = 'flipt.auth.AuthenticationService';
const TOKENS = 'flipt.auth.AuthenticationMethodTokenService';
const PUBLIC = 'flipt.auth.PublicAuthenticationService';

/** One call of each protected service; `namespace` is the one it addresses. */
const PROTECTED: {
  service: string;
  method: string;
  request: (ns: string) => object;
  metadata?: (ns: string) => Record<string, string>;
  /** `self`: allowed, and addressing no namespace there is no other one to be refused. */
  scoped: 'allowed' | 'denied' | 'self';
}[] = [
  {
    service: 'flipt.evaluation.EvaluationService',
    method: 'Boolean',
    request: (ns) => ({ namespaceKey: ns, flagKey: 'on', entityId: 'e' }),
    scoped: 'allowed',
  },
  {
    service: 'flipt.evaluation.EvaluationService',
    method: 'Batch',
    request: (ns) => ({ requests: [{ namespaceKey: ns, flagKey: 'on', entityId: 'e' }] }),
    scoped: 'allowed',
  },
  {
    service: 'flipt.evaluation.DataService',
    method: 'EvaluationSnapshotNamespace',
    request: (ns) => ({ key: ns }),
    scoped: 'allowed',
  },
  { service: 'flipt.Flipt', method: 'GetFlag', request: (ns) => ({ namespaceKey: ns, key: 'on' }), scoped: 'allowed' },
  {
    service: 'flipt.Flipt',
    method: 'Evaluate',
    request: (ns) => ({ namespaceKey: ns, flagKey: 'v', entityId: 'e' }),
    scoped: 'allowed',
  },
  {
    service: 'flipt.ofrep.OFREPService',
    method: 'EvaluateFlag',
    request: () => ({ key: 'on', context: { targetingKey: 'e' } }),
    metadata: (ns) => ({ 'x-flipt-namespace': ns }),
    scoped: 'denied',
  },
  // Reading oneself: allowed to a scoped token over both transports (auth/access.ts `self`).
  { service: AUTH, method: 'GetAuthenticationSelf', request: () => ({}), scoped: 'self' },
  { service: TOKENS, method: 'CreateToken', request: () => ({ name: 'x' }), scoped: 'denied' },
];

describeEachBackend('gRPC authentication', (backend) => {
  let t: TestApp;
  let http: Http;
  let grpc: FliptGrpc;
  let grpcPort: number;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
    });
    const ports = await t.app.listen();
    grpcPort = ports.grpcPort;
    http = fetchHttp(`http://127.0.0.1:${ports.httpPort}`, { authorization: `Bearer ${BOOT}` });
    grpc = new FliptGrpc(grpcPort);
    for (const ns of ['default', 'team']) {
      const seeder = new Seeder(http, ns);
      await seeder.namespaceExists();
      await seeder.booleanFlag({ key: 'on', enabled: true });
      await seeder.variantFlag({ key: 'v', variants: [{ key: 'a' }] });
    }
  });
  afterAll(async () => {
    grpc?.close();
    await t?.close();
  });

  const create = async (request: object, token = BOOT): Promise<Msg> =>
    messageJson((await grpc.call(TOKENS, 'CreateToken', request, { token })).response);

  it('token API: created over gRPC reads back over REST, and the other way round', async () => {
    const created = await create({ name: 'ci', description: 'from gRPC', metadata: { team: 'web', ownerId: 'A_b' } });
    expect(created.clientToken).toMatch(/.{20,}/);
    const viaRest = await http('GET', `/auth/v1/tokens/${created.authentication.id}`);
    expect(created.authentication).toEqual(viaRest.body);
    const restCreated = await http('POST', '/auth/v1/method/token', {
      name: 'rest',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    const viaGrpc = await grpc.call(
      AUTH,
      'GetAuthentication',
      { id: restCreated.body.authentication.id },
      { token: BOOT },
    );
    expect(messageJson(viaGrpc.response)).toEqual(restCreated.body.authentication);
    const list = await grpc.call(AUTH, 'ListAuthentications', { method: 'METHOD_TOKEN' }, { token: BOOT });
    expect(messageJson(list.response)).toEqual((await http('GET', '/auth/v1/tokens?method=METHOD_TOKEN')).body);
    const page = messageJson((await grpc.call(AUTH, 'ListAuthentications', { limit: 1 }, { token: BOOT })).response);
    expect(page.authentications).toHaveLength(1);
    expect(page).toEqual((await http('GET', '/auth/v1/tokens?limit=1')).body);

    const self = await grpc.call(AUTH, 'GetAuthenticationSelf', {}, { token: created.clientToken });
    const selfRest = await fetchHttp(baseOf(t), { authorization: `Bearer ${created.clientToken}` })(
      'GET',
      '/auth/v1/self',
    );
    expect(messageJson(self.response)).toEqual(selfRest.body);
    const methods = await grpc.call(PUBLIC, 'ListAuthenticationMethods', {});
    expect(messageJson(methods.response)).toEqual(await fetch(`${baseOf(t)}/auth/v1/method`).then((r) => r.json()));

    expect(
      messageJson(
        (await grpc.call(AUTH, 'DeleteAuthentication', { id: restCreated.body.authentication.id }, { token: BOOT }))
          .response,
      ),
    ).toEqual({});
    expect((await http('GET', `/auth/v1/tokens/${restCreated.body.authentication.id}`)).status).toBe(404);
    const missing = await grpc.error(
      AUTH,
      'GetAuthentication',
      { id: restCreated.body.authentication.id },
      { token: BOOT },
    );
    expect(missing.code).toBe(5);
    expect(missing.details).toBe(
      (await http('GET', `/auth/v1/tokens/${restCreated.body.authentication.id}`)).body.message,
    );

    // Expiring oneself: the token stops working at once, over both transports.
    await grpc.call(AUTH, 'ExpireAuthenticationSelf', {}, { token: created.clientToken });
    expect((await grpc.error(AUTH, 'GetAuthenticationSelf', {}, { token: created.clientToken })).code).toBe(16);
  });

  it('refuses every protected service without a valid token, and serves the open ones', async () => {
    const deleted = await create({ name: 'to-delete' });
    await grpc.call(AUTH, 'DeleteAuthentication', { id: deleted.authentication.id }, { token: BOOT });
    const expired = await create({
      name: 'expired',
      expiresAt: { seconds: Math.floor(Date.now() / 1000) - 60, nanos: 0 },
    });
    const credentials: { name: string; token?: string; raw?: string }[] = [
      { name: 'none' },
      { name: 'bad', token: 'not-a-token' },
      { name: 'deleted', token: deleted.clientToken },
      { name: 'expired', token: expired.clientToken },
      { name: 'not bearer', raw: `Basic ${BOOT}` },
    ];
    for (const c of PROTECTED) {
      for (const credential of credentials) {
        const err = await grpc.error(c.service, c.method, c.request('default'), {
          ...(credential.token !== undefined ? { token: credential.token } : {}),
          metadata: {
            ...c.metadata?.('default'),
            ...(credential.raw !== undefined ? { authorization: credential.raw } : {}),
          },
        });
        expect({ rpc: `${c.method}/${credential.name}`, code: err.code, message: err.details }).toEqual({
          rpc: `${c.method}/${credential.name}`,
          code: 16,
          message: 'request was not authenticated',
        });
      }
      await grpc.call(c.service, c.method, c.request('default'), {
        token: BOOT,
        metadata: c.metadata?.('default') ?? {},
      });
    }
    expect(messageJson((await grpc.call(PUBLIC, 'ListAuthenticationMethods', {})).response).methods[0]).toEqual({
      method: 'METHOD_TOKEN',
      enabled: true,
      sessionCompatible: false,
    });
    expect((await grpcHealthCheck(grpcPort)).status).toBe('SERVING');
  });

  it.each([
    { path: 'the fast path', compressed: false },
    { path: 'grpc-js (compressed calls)', compressed: true },
  ])(
    'checks every call on one connection, through $path: tokens taken in turns, one deleted and one expired after use refused at once',
    async ({ compressed }) => {
      // Evaluations through the path of the row (api/grpc/evaluation-fast-path.ts), on one connection.
      const evaluations = new FliptGrpc(grpcPort, { compressed });
      const takenBefore = t.app.grpc.fastPath?.taken ?? 0;
      const [live, doomed, expiring] = [
        await create({ name: 'live' }),
        await create({ name: 'doomed' }),
        await create({ name: 'expiring' }),
      ];
      const request = { namespaceKey: 'default', flagKey: 'on', entityId: 'e' };
      const evaluate = (token: string) =>
        evaluations.call('flipt.evaluation.EvaluationService', 'Boolean', request, { token });
      const refusal = async (token: string) =>
        (await evaluations.error('flipt.evaluation.EvaluationService', 'Boolean', request, { token })).code;
      // Each token answered (and so remembered, its hash kept) before it is deleted or expired.
      for (const token of [live, doomed, expiring, live]) await evaluate(token.clientToken as string);
      await grpc.call(AUTH, 'DeleteAuthentication', { id: (doomed.authentication as Msg).id }, { token: BOOT });
      await grpc.call(AUTH, 'ExpireAuthenticationSelf', {}, { token: expiring.clientToken as string });
      expect(await refusal(doomed.clientToken as string)).toBe(16);
      expect(await refusal(expiring.clientToken as string)).toBe(16);
      await evaluate(live.clientToken as string);
      expect(await refusal('not-a-token')).toBe(16);
      expect(await refusal(doomed.clientToken as string)).toBe(16);
      await evaluate(BOOT);
      evaluations.close();
      expect((t.app.grpc.fastPath?.taken ?? 0) - takenBefore).toBe(compressed ? 0 : 10);
    },
  );

  it('lets a namespace-scoped token address its namespace only', async () => {
    const scoped = await create({ name: 'team only', namespaceKey: 'team' });
    for (const c of PROTECTED) {
      const own = c.request('team');
      const other = c.request('default');
      const token = scoped.clientToken;
      if (c.scoped === 'self') {
        const self = await grpc.call(c.service, c.method, own, { token });
        expect(messageJson(self.response).metadata['io.flipt.auth.token.namespace']).toBe('team');
      } else if (c.scoped === 'allowed') {
        await grpc.call(c.service, c.method, own, { token, metadata: c.metadata?.('team') ?? {} });
        const err = await grpc.error(c.service, c.method, other, { token, metadata: c.metadata?.('default') ?? {} });
        expect({ rpc: c.method, code: err.code, message: err.details }).toEqual({
          rpc: c.method,
          code: 7,
          message: 'permission denied',
        });
      } else {
        const err = await grpc.error(c.service, c.method, own, { token, metadata: c.metadata?.('team') ?? {} });
        expect({ rpc: c.method, code: err.code }).toEqual({ rpc: c.method, code: 7 });
      }
    }
    // The namespace list is filtered, never refused (issue 41): the token's own only (as over REST).
    const listed = await grpc.call('flipt.Flipt', 'ListNamespaces', {}, { token: scoped.clientToken });
    expect((listed.response.namespaces as { key: string }[]).map((n) => n.key)).toEqual(['team']);
    expect(
      (await grpc.call('flipt.Flipt', 'GetNamespace', { key: 'team' }, { token: scoped.clientToken })).response.key,
    ).toBe('team');
  });
});

function baseOf(t: TestApp): string {
  return `http://127.0.0.1:${(t.app.http.server.address() as { port: number }).port}`;
}

describeEachBackend('gRPC authentication.exclude', (backend) => {
  let t: TestApp;
  let grpc: FliptGrpc;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      authentication: {
        required: true,
        exclude: { evaluation: true, ofrep: true },
        methods: { token: { enabled: true, bootstrap: { token: BOOT } } },
      },
    });
    grpc = new FliptGrpc((await t.app.listen()).grpcPort);
  });
  afterAll(async () => {
    grpc?.close();
    await t?.close();
  });

  it('opens the excluded groups only, as over HTTP', async () => {
    const evaluation = await grpc.error('flipt.evaluation.EvaluationService', 'Boolean', {
      flagKey: 'f',
      entityId: 'e',
    });
    expect(evaluation.code).toBe(5);
    const ofrep = await grpc.error('flipt.ofrep.OFREPService', 'EvaluateFlag', { key: 'f', context: {} });
    expect(ofrep.code).toBe(5);
    expect(
      (await grpc.call('flipt.evaluation.DataService', 'EvaluationSnapshotNamespace', { key: 'default' })).response
        .flags,
    ).toEqual([]);
    for (const [service, method] of [
      ['flipt.Flipt', 'ListFlags'],
      ['flipt.Flipt', 'Evaluate'],
      [AUTH, 'ListAuthentications'],
    ] as const) {
      expect({ method, code: (await grpc.error(service, method, {})).code }).toEqual({ method, code: 16 });
    }
  });
});
