// OIDC sessions once made (issue 40), on every backend, over HTTP and gRPC: `email_matches` is applied
// to every request of a session, not only at sign-in (a session whose email it does not match is
// refused, as in Flipt's interceptor); expired sessions and abandoned sign-ins are cleaned up; the
// config is checked at load (session.domain, providers) and the providers' secrets never show in
// /meta/config. The sign-in itself, against real providers: auth-oidc.test.ts.

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCleanupJob } from '../../src/auth/cleanup.js';
import { hashState } from '../../src/auth/methods/oidc.js';
import { loadConfig } from '../../src/config/load.js';
import { insertLoginState } from '../../src/storage/login-states.js';
import type { TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import type { FliptGrpc } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';

const BOOT = 'oidc-sessions-bootstrap';
const OIDC = {
  enabled: true,
  email_matches: ['^[a-z]+@allowed\\.test$'],
  providers: {
    corp: {
      issuer_url: 'https://127.0.0.1:9/never-contacted',
      client_id: 'vexil',
      client_secret: 'very-secret-client-secret',
      redirect_address: 'http://127.0.0.1:8080',
    },
  },
};

const person = (email: string) => ({
  'io.flipt.auth.oidc.provider': 'corp',
  'io.flipt.auth.oidc.email': email,
  'io.flipt.auth.email': email,
});

describeEachBackend('OIDC sessions', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    ({ t, base, grpc } = await startListeningApp(backend, {
      authentication: {
        required: true,
        session: { domain: 'flags.example.test' },
        methods: { token: { enabled: true, bootstrap: { token: BOOT } }, oidc: OIDC },
      },
    }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['ada@allowed.test', 200, 0],
    ['mallory@elsewhere.test', 401, 16],
    ['ADA@allowed.test', 401, 16],
  ])('a session of %s → %i (gRPC %i): email_matches holds on every request', async (email, status, code) => {
    const session = await t.app.services.auth.createSession('METHOD_OIDC', person(email));
    const res = await fetch(`${base}/api/v1/namespaces`, {
      headers: { authorization: `Bearer ${session.clientToken}` },
    });
    expect(res.status).toBe(status);
    const cookie = await fetch(`${base}/auth/v1/self`, {
      headers: { cookie: `flipt_client_token=${session.clientToken}` },
    });
    expect(cookie.status).toBe(status);
    const call = grpc.call('flipt.Flipt', 'ListNamespaces', {}, { token: session.clientToken });
    if (code === 0) await expect(call).resolves.toBeDefined();
    else await expect(call).rejects.toMatchObject({ code });
  });

  it('expired sessions and abandoned sign-ins are cleaned up; live ones stay', async () => {
    const { auth } = t.app.services;
    const live = await auth.createSession('METHOD_OIDC', person('grace@allowed.test'));
    const old = await auth.createSession('METHOD_OIDC', person('old@allowed.test'));
    const now = Date.now();
    await auth.expire(old.authentication.id, new Date(now - 3_600_000));
    const db = t.app.db.kysely;
    for (const [state, expiresAt] of [
      ['abandoned-sign-in-state', now - 1000],
      ['sign-in-under-way-state', now + 3 * 3_600_000],
    ] as const) {
      await insertLoginState(db, {
        stateHash: hashState(state),
        method: 'METHOD_OIDC',
        provider: 'corp',
        nonce: 'n',
        codeVerifier: 'v',
        createdAt: new Date(now - 700_000),
        expiresAt: new Date(expiresAt),
      });
    }
    const job = new TokenCleanupJob({
      db,
      intervalMs: 3_600_000,
      gracePeriodMs: 1_800_000,
      logger: pino({ level: 'silent' }),
      method: 'METHOD_OIDC',
      loginStates: true,
    });
    // Two hours on: past the lease the app's own job took at start (same operation row).
    const attempt = await job.runOnce(new Date(now + 2 * 3_600_000));
    expect(attempt.acquired && attempt.run.deleted).toBe(1);
    const states = await db.selectFrom('login_states').select('state_hash').execute();
    expect(states.map((s) => s.state_hash)).toEqual([hashState('sign-in-under-way-state')]);
    await expect(auth.get(old.authentication.id)).rejects.toThrow();
    expect((await auth.get(live.authentication.id)).id).toBe(live.authentication.id);
    // The bootstrap token is not a session: untouched.
    const tokens = await auth.list({ method: 'METHOD_TOKEN' });
    expect(tokens.items).toHaveLength(1);
  });

  it('no secret of a provider in /meta/config', async () => {
    const res = await fetch(`${base}/meta/config`, { headers: { authorization: `Bearer ${BOOT}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('very-secret-client-secret');
  });
});

describe('OIDC config', () => {
  const load = (authentication: Record<string, unknown>) => () =>
    loadConfig({ env: {}, overrides: { authentication } });

  it.each([
    [{ methods: { oidc: OIDC } }, 'invalid config at authentication.session.domain: required'],
    [{ session: { domain: 'x.test' }, methods: { oidc: { enabled: true } } }, 'at least one provider is required'],
    [
      {
        session: { domain: 'x.test' },
        methods: { oidc: { enabled: true, providers: { a: { issuer_url: 'https://i.test' } } } },
      },
      'authentication.methods.oidc.providers.a.client_id: required',
    ],
    [
      {
        session: { domain: 'x.test' },
        methods: { oidc: { ...OIDC, providers: { 'a/b': OIDC.providers.corp } } },
      },
      'letters, digits, _ and - only',
    ],
    [
      { session: { domain: 'x.test' }, methods: { oidc: { ...OIDC, email_matches: ['(unclosed'] } } },
      'email_matches: "(unclosed" is not a regular expression',
    ],
    [{ methods: { cloud: { enabled: true } } }, 'authentication.methods.cloud.enabled'],
  ])('%j is refused', (authentication, message) => {
    expect(load(authentication)).toThrow(message);
  });

  it('session.domain loses its scheme and port, as in Flipt', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        authentication: { session: { domain: 'https://flags.example.test:8443' }, methods: { oidc: OIDC } },
      },
    });
    expect(config.authentication.session.domain).toBe('flags.example.test');
  });
});
