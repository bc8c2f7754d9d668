// Audit events under roles (issue 41, ADR 48), per backend, with a webhook receiver and real clients:
// a change made over REST or gRPC by a token with roles arrives with Flipt's event shape plus one actor
// field, `role` — the highest role the token held on the change's namespace (a binding on `*`
// counting), or for a token change the highest it held anywhere; a person's role comes from
// `authorization.roles`; a caller without roles (the bootstrap token) sends exactly Flipt's fields.
// The history API shows the same role; a refused change records nothing.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type Received, Receiver, waitFor } from '../helpers/audit.js';
import { describeEachBackend } from '../helpers/backends.js';
import type { FliptGrpc } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';

const BOOT = 'audit-roles-bootstrap-token';
const FLIPT_ACTOR_KEYS = ['authentication', 'ip', 'email', 'name', 'picture'];

let signingKey: CryptoKey;
let keyFile: string;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = privateKey;
  keyFile = join(mkdtempSync(join(tmpdir(), 'vexil-audit-roles-')), 'jwt.pem');
  writeFileSync(keyFile, await exportSPKI(publicKey));
});

describeEachBackend('audit events under roles', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;
  const receiver = new Receiver();

  const call = async (method: string, path: string, authorization: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const boot = `Bearer ${BOOT}`;

  /** A token made with `roles` by the bootstrap token (which may grant anything). */
  const tokenWith = async (name: string, roles: { role: string; namespace: string }[]) => {
    const made = await call('POST', '/auth/v1/method/token', boot, { name, roles });
    expect(made.status).toBe(200);
    return made.body.clientToken as string;
  };

  /** The events received for `type` and `key` (a flag's key, a token's name). */
  const eventsFor = (type: string, key: string): Received[] =>
    receiver.received.filter(
      (r) =>
        r.json?.type === type && (r.json.payload?.key === key || r.json.payload?.['io.flipt.auth.token.name'] === key),
    );
  const oneEvent = async (type: string, key: string) => {
    await waitFor(`the ${type} ${key} event`, () => eventsFor(type, key).length >= 1);
    return eventsFor(type, key)[0]?.json;
  };

  beforeAll(async () => {
    await receiver.start();
    ({ t, base, grpc } = await startListeningApp(backend, {
      authentication: {
        required: true,
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          jwt: { enabled: true, public_key_file: keyFile },
        },
      },
      authorization: {
        roles: {
          default: 'none',
          rules: [
            { match: { metadata: 'io.flipt.auth.jwt.email', pattern: 'ada@*' }, role: 'editor', namespace: 'team-a' },
          ],
        },
      },
      audit: { sinks: { webhook: { enabled: true, url: receiver.url, max_backoff_duration: '200ms' } } },
    }));
    for (const key of ['team-a', 'team-b']) {
      expect((await call('POST', '/api/v1/namespaces', boot, { key, name: key })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });
  afterEach(() => {
    receiver.status = 200;
  });

  it.each(['REST', 'gRPC'] as const)(
    'a change over %s by a token with roles names the highest role held on its namespace',
    async (transport) => {
      // Editor on team-a, and viewer everywhere: the editor binding is the higher on team-a.
      const token = await tokenWith(`editor-${transport}`, [
        { role: 'viewer', namespace: '*' },
        { role: 'editor', namespace: 'team-a' },
      ]);
      const key = `by-editor-${transport.toLowerCase()}`;
      const flag = { key, name: key, type: 'BOOLEAN_FLAG_TYPE' };
      if (transport === 'REST') {
        expect((await call('POST', '/api/v1/namespaces/team-a/flags', `Bearer ${token}`, flag)).status).toBe(200);
      } else {
        await grpc.call(
          'flipt.Flipt',
          'CreateFlag',
          { ...flag, namespaceKey: 'team-a' },
          { metadata: { authorization: `Bearer ${token}` } },
        );
      }
      const event = await oneEvent('flag', key);
      expect(event).toMatchObject({
        version: '0.2',
        type: 'flag',
        action: 'created',
        metadata: { actor: { authentication: 'token', name: `editor-${transport}`, role: 'editor' } },
        payload: { key, namespace_key: 'team-a' },
      });
      expect(Object.keys(event.metadata.actor)).toEqual(['authentication', 'ip', 'name', 'role']);
      // The history shows the same role.
      const history = await call('GET', `/api/v1/namespaces/team-a/changes?type=flag&key=${key}`, boot);
      expect(history.body.changes[0].actor).toMatchObject({ name: `editor-${transport}`, role: 'editor' });

      // Refused outside its roles (viewer on team-b): 403 and nothing recorded or sent.
      const refused = { ...flag, key: `${key}-refused` };
      if (transport === 'REST') {
        expect((await call('POST', '/api/v1/namespaces/team-b/flags', `Bearer ${token}`, refused)).status).toBe(403);
      } else {
        const err = await grpc.error(
          'flipt.Flipt',
          'CreateFlag',
          { ...refused, namespaceKey: 'team-b' },
          { metadata: { authorization: `Bearer ${token}` } },
        );
        expect(err.code).toBe(7);
      }
      const none = await call('GET', `/api/v1/namespaces/team-b/changes?type=flag&key=${refused.key}`, boot);
      expect(none.body.changes).toEqual([]);
    },
  );

  it.each(['REST', 'gRPC'] as const)(
    'a token made over %s by an admin with roles names the highest role it held anywhere',
    async (transport) => {
      const admin = await tokenWith(`admin-${transport}`, [
        { role: 'client', namespace: '*' },
        { role: 'admin', namespace: 'team-a' },
      ]);
      const name = `made-by-admin-${transport}`;
      const roles = [{ role: 'client', namespace: 'team-a' }];
      if (transport === 'REST') {
        expect((await call('POST', '/auth/v1/method/token', `Bearer ${admin}`, { name, roles })).status).toBe(200);
      } else {
        await grpc.call(
          'flipt.auth.AuthenticationMethodTokenService',
          'CreateToken',
          { name, roles },
          { metadata: { authorization: `Bearer ${admin}` } },
        );
      }
      const event = await oneEvent('token', name);
      expect(event).toMatchObject({
        type: 'token',
        action: 'created',
        metadata: { actor: { authentication: 'token', name: `admin-${transport}`, role: 'admin' } },
      });
    },
  );

  it("a person's change names the role its rule gave; a caller without roles sends only Flipt's actor fields", async () => {
    const jwt = await new SignJWT({ user: { email: 'ada@corp.test', name: 'Ada' } })
      .setProtectedHeader({ alg: 'ES256' })
      .setExpirationTime('10m')
      .sign(signingKey);
    const flag = { key: 'by-ada', name: 'By Ada', type: 'BOOLEAN_FLAG_TYPE' };
    expect((await call('POST', '/api/v1/namespaces/team-a/flags', `JWT ${jwt}`, flag)).status).toBe(200);
    const byAda = await oneEvent('flag', 'by-ada');
    expect(byAda.metadata.actor).toMatchObject({ authentication: 'jwt', email: 'ada@corp.test', role: 'editor' });

    const plain = { key: 'by-boot', name: 'By boot', type: 'BOOLEAN_FLAG_TYPE' };
    expect((await call('POST', '/api/v1/namespaces/team-b/flags', boot, plain)).status).toBe(200);
    const byBoot = await oneEvent('flag', 'by-boot');
    expect(byBoot.metadata.actor.role).toBeUndefined();
    for (const field of Object.keys(byBoot.metadata.actor)) expect(FLIPT_ACTOR_KEYS).toContain(field);
    const history = await call('GET', '/api/v1/namespaces/team-b/changes?type=flag&key=by-boot', boot);
    expect(history.body.changes[0].actor.role).toBeUndefined();
  });
});
