// Change streams under roles (issue 41, ADR 48), per backend, on a listening server with real clients:
// the native SSE stream, OFREP's event stream (bearer and ticket) and gRPC WatchNamespace. A person's
// role comes from stored bindings — here a small StoredRoleRules source of the test's own, plugged into
// the app's real RoleResolver, whose generation the test bumps as the API's bindings would. A stream is
// refused (403 naming the role; PERMISSION_DENIED) where its identity lacks `client`; an open one ends
// at the next check once the role is taken away, and lives on through checks while it holds; a ticket
// is refused once its person lacks the role. A token made with roles keeps its stream through its
// namespace's deletion (its roles name the key) and loses it with the token.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { hashClientToken } from '../../src/auth/client-token.js';
import type { RoleRule } from '../../src/auth/roles/identity-rules.js';
import type { StoredRoleRules } from '../../src/auth/roles/resolver.js';
import type { TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type ChangeClient, changeClient, watch } from '../helpers/change-watch.js';
import { startListeningApp } from '../helpers/listening-app.js';
import { openSse } from '../helpers/sse.js';

const BOOT = 'stream-roles-bootstrap-token';
const ISSUER = 'https://issuer.stream-roles.test';
const AUDIENCE = 'vexil';
/** cache.poll_interval, which is also how often held streams are checked. */
const CHECK_MS = 200;

/** Stored bindings as the resolver reads them: a list of rules and a generation bumped on every change. */
class TestBindings implements StoredRoleRules {
  #rules: RoleRule[] = [];
  generation = 0;
  rules(): readonly RoleRule[] {
    return this.#rules;
  }
  set(rules: RoleRule[]): void {
    this.#rules = rules;
    this.generation++;
  }
}

const ADA_CLIENT_A: RoleRule = {
  match: { metadata: 'io.flipt.auth.jwt.email', pattern: 'ada@example.test' },
  role: 'client',
  namespace: 'team-a',
};
const BOB_CLIENT_A: RoleRule = {
  match: { metadata: 'io.flipt.auth.email', pattern: 'bob@example.test' },
  role: 'client',
  namespace: 'team-a',
};
const UNRELATED: RoleRule = {
  match: { metadata: 'io.flipt.auth.email', pattern: 'carol@example.test' },
  role: 'admin',
  namespace: '*',
};

const ROLE_REFUSAL = (namespace: string) =>
  `request was not authorized: role "client" on namespace "${namespace}" is required`;

/** Whether `promise` settles within `ms` (a stream that should stay open must not). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

let signingKey: CryptoKey;
let keyFile: string;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = privateKey;
  keyFile = join(mkdtempSync(join(tmpdir(), 'vexil-stream-roles-')), 'jwt.pem');
  writeFileSync(keyFile, await exportSPKI(publicKey));
});

/** Ada's JWT (the JWT method: never stored, so its stream is held on its expiry and its roles). */
function adaJwt(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 600, user: { email: 'ada@example.test' } })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(signingKey);
}

describeEachBackend('change streams under roles', (backend) => {
  let t: TestApp;
  let base: string;
  let client: ChangeClient;
  let bindings: TestBindings;
  /** Bob's session (an OIDC sign-in's, stored as a token is), for stream tickets. */
  let bob: string;

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const boot = { authorization: `Bearer ${BOOT}` };
  const nativePath = (ns: string) => `/internal/v1/evaluation/snapshot/namespace/${ns}/events`;

  beforeAll(async () => {
    let grpcPort: number;
    ({ t, base, grpcPort } = await startListeningApp(backend, {
      authentication: {
        required: true,
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          jwt: {
            enabled: true,
            public_key_file: keyFile,
            validate_claims: { issuer: ISSUER, audiences: [AUDIENCE] },
          },
        },
      },
      authorization: { roles: { default: 'none', rules: [] } },
      cache: { poll_interval: `${CHECK_MS}ms` },
      ofrep: { event_streams: { enabled: true, heartbeat_interval: '100ms' } },
    }));
    const resolver = t.app.services.auth.roles;
    if (resolver === undefined) throw new Error('authorization.roles should turn the resolver on');
    bindings = new TestBindings();
    resolver.useStored(bindings);
    for (const key of ['team-a', 'team-b', 'team-c']) {
      expect((await call('POST', '/api/v1/namespaces', boot, { key, name: key })).status).toBe(200);
    }
    const session = await t.app.services.auth.createSession('METHOD_OIDC', {
      'io.flipt.auth.email': 'bob@example.test',
    });
    bob = session.clientToken;
    client = changeClient(grpcPort);
  });
  afterAll(async () => {
    client?.close();
    await t?.close();
  });
  beforeEach(() => bindings.set([ADA_CLIENT_A, BOB_CLIENT_A]));

  it('a person opens the streams of a namespace it holds client on; elsewhere 403 naming the role, PERMISSION_DENIED', async () => {
    const jwt = await adaJwt();
    const open = await openSse(`${base}${nativePath('team-a')}`, { authorization: `JWT ${jwt}` });
    expect(open.status).toBe(200);
    open.close();
    const refused = await call('GET', nativePath('team-b'), { authorization: `JWT ${jwt}` });
    expect(refused).toEqual({ status: 403, body: { code: 7, message: ROLE_REFUSAL('team-b'), details: [] } });
    const ofrep = await call('GET', '/ofrep/v1/namespaces/team-b/events', { authorization: `Bearer ${bob}` });
    expect(ofrep.status).toBe(403);
    expect(ofrep.body.errorDetails).toContain(ROLE_REFUSAL('team-b'));
    const denied = await watch(client, { namespace_key: 'team-b' }, jwt, 'JWT').ended;
    expect(denied).toEqual({ code: status.PERMISSION_DENIED, details: ROLE_REFUSAL('team-b') });
  });

  it('SSE: the stream lives through checks while the role holds and ends once stored bindings take it away', async () => {
    const jwt = await adaJwt();
    const stream = await openSse(`${base}${nativePath('team-a')}`, { authorization: `JWT ${jwt}` });
    expect(stream.status).toBe(200);
    await stream.until((s) => s.events.length === 1);
    // A JWT is not stored: the check must not take it for a deleted token.
    expect(await settlesWithin(stream.ended, CHECK_MS * 4)).toBe(false);
    // A change of the bindings that leaves Ada her role ends nothing.
    bindings.set([ADA_CLIENT_A, BOB_CLIENT_A, UNRELATED]);
    expect(await settlesWithin(stream.ended, CHECK_MS * 4)).toBe(false);
    bindings.set([BOB_CLIENT_A, UNRELATED]);
    expect(await settlesWithin(stream.ended, CHECK_MS * 20)).toBe(true);
    expect(stream.comments.at(-1)).toBe('closing');
    const again = await call('GET', nativePath('team-a'), { authorization: `JWT ${jwt}` });
    expect(again.status).toBe(403);
    expect(again.body.message).toBe(ROLE_REFUSAL('team-a'));
  });

  it('gRPC: WatchNamespace lives through checks while the role holds and ends once it is taken away', async () => {
    const jwt = await adaJwt();
    const w = watch(client, { namespace_key: 'team-a' }, jwt, 'JWT');
    await w.until(1);
    expect(await settlesWithin(w.ended, CHECK_MS * 4)).toBe(false);
    bindings.set([ADA_CLIENT_A, UNRELATED]);
    expect(await settlesWithin(w.ended, CHECK_MS * 4)).toBe(false);
    bindings.set([UNRELATED]);
    expect(await settlesWithin(w.ended, CHECK_MS * 20)).toBe(true);
    expect((await w.ended).code).toBe(status.OK);
    const again = await watch(client, { namespace_key: 'team-a' }, jwt, 'JWT').ended;
    expect(again).toEqual({ code: status.PERMISSION_DENIED, details: ROLE_REFUSAL('team-a') });
  });

  it("a ticket's stream ends when its person loses the role, and the ticket is refused from then on", async () => {
    const bulk = await call(
      'POST',
      '/ofrep/v1/evaluate/flags',
      { authorization: `Bearer ${bob}`, 'x-service-namespace': 'team-a' },
      { context: { targetingKey: 'u' } },
    );
    expect(bulk.status).toBe(200);
    const uri = bulk.body.eventStreams[0].endpoint.requestUri as string;
    const stream = await openSse(`${base}${uri}`);
    expect(stream.status).toBe(200);
    await stream.until((s) => s.events.length === 1);
    expect(await settlesWithin(stream.ended, CHECK_MS * 4)).toBe(false);
    bindings.set([ADA_CLIENT_A]);
    expect(await settlesWithin(stream.ended, CHECK_MS * 20)).toBe(true);
    const refused = await call('GET', uri, {});
    expect(refused.status).toBe(403);
    expect(refused.body.errorDetails).toContain(ROLE_REFUSAL('team-a'));
  });

  it("a JWT caller's bulk answer advertises no stream (no ticket can name it): it keeps polling, and its header opens the stream", async () => {
    const jwt = await adaJwt();
    const bulk = (authorization: string) =>
      call(
        'POST',
        '/ofrep/v1/evaluate/flags',
        { authorization, 'x-service-namespace': 'team-a' },
        { context: { targetingKey: 'u' } },
      );
    const ada = await bulk(`JWT ${jwt}`);
    expect(ada.status).toBe(200);
    expect(ada.body).not.toHaveProperty('eventStreams');
    // A stored caller's answer for the same namespace, after hers, still carries its own ticket.
    const bobs = await bulk(`Bearer ${bob}`);
    expect(bobs.body.eventStreams[0].endpoint.requestUri).toMatch(
      /^\/ofrep\/v1\/namespaces\/team-a\/events\?ticket=v1\.[^.]+\./,
    );
    const stream = await openSse(`${base}/ofrep/v1/namespaces/team-a/events`, { authorization: `JWT ${jwt}` });
    expect(stream.status).toBe(200);
    stream.close();
  });

  it('a ticket for a namespace its person holds no role on is refused, though validly signed', async () => {
    const tickets = t.app.eventStreams?.tickets;
    if (tickets === undefined) throw new Error('tickets expected');
    const session = await t.app.services.auth.createSession('METHOD_OIDC', {
      'io.flipt.auth.email': 'bob@example.test',
    });
    const window = tickets.currentWindow();
    const forB = tickets.issue(session.authentication.id, hashClientToken(session.clientToken), 'team-b', window);
    const refused = await call('GET', `/ofrep/v1/namespaces/team-b/events?ticket=${encodeURIComponent(forB)}`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.errorDetails).toContain(ROLE_REFUSAL('team-b'));
    const forA = tickets.issue(session.authentication.id, hashClientToken(session.clientToken), 'team-a', window);
    const stream = await openSse(`${base}/ofrep/v1/namespaces/team-a/events?ticket=${encodeURIComponent(forA)}`);
    expect(stream.status).toBe(200);
    stream.close();
  });

  it("a token made with roles keeps its streams through its namespace's deletion and loses them with the token", async () => {
    const made = await call('POST', '/auth/v1/method/token', boot, {
      name: 'team-c client',
      roles: [{ role: 'client', namespace: 'team-c' }],
    });
    expect(made.status).toBe(200);
    const token = made.body.clientToken as string;
    const sse = await openSse(`${base}${nativePath('team-c')}`, { authorization: `Bearer ${token}` });
    expect(sse.status).toBe(200);
    const w = watch(client, { namespace_key: 'team-c' }, token);
    await sse.until((s) => s.events.length === 1);
    await w.until(1);
    expect((await call('DELETE', '/api/v1/namespaces/team-c', boot)).status).toBe(200);
    // Told the namespace is gone (an empty revision); the role names the key, so the stream stays.
    await sse.until((s) => s.events.length === 2);
    await w.until(2);
    expect(sse.events[1]?.id).toBe('');
    expect(w.changes[1]?.etag).toBe('');
    expect(await settlesWithin(Promise.race([sse.ended, w.ended]), CHECK_MS * 4)).toBe(false);
    // Outside its roles it is refused as before.
    expect((await call('GET', nativePath('team-a'), { authorization: `Bearer ${token}` })).status).toBe(403);
    expect((await call('DELETE', `/auth/v1/tokens/${made.body.authentication.id}`, boot)).status).toBe(200);
    await Promise.all([sse.ended, w.ended]);
    expect(sse.comments.at(-1)).toBe('closing');
    expect((await w.ended).code).toBe(status.OK);
  });
});
