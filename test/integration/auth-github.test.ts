// GitHub sign-in (`authentication.methods.github`, issue 40) on every backend, over HTTP and gRPC.
// github.com cannot be reached from here: a loopback stand-in of GitHub's OAuth endpoints and REST API
// (as GitHub Enterprise lays them out: `server_url`, `api_url` = server/api/v3) plays GitHub. It
// checks what GitHub checks (client secret, redirect URI, single-use codes, the PKCE verifier) and
// knows three people: one in the allowed organisation and team, one in the organisation but not the
// team, one in neither. The browser's part is followed by a small cookie-keeping client.

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type FliptGrpc, messageJson } from '../helpers/flipt-grpc.js';
import { startListeningApp } from '../helpers/listening-app.js';
import { Browserless } from '../helpers/oidc-provider.js';

const BOOT = 'github-test-bootstrap';
const SERVICE = 'flipt.auth.AuthenticationMethodGithubService';
const PEOPLE: Record<string, { user: object; orgs: string[]; teams: [string, string][] }> = {
  ada: {
    user: { login: 'ada', id: 101, name: 'Ada', email: 'ada@acme.test', avatar_url: 'https://avatars.test/ada' },
    orgs: ['acme', 'hobby'],
    teams: [
      ['acme', 'flags'],
      ['acme', 'web'],
      ['hobby', 'chess'],
    ],
  },
  bob: { user: { login: 'bob', id: 102, name: 'Bob' }, orgs: ['acme'], teams: [['acme', 'web']] },
  carol: { user: { login: 'carol', id: 103, name: 'Carol' }, orgs: ['other'], teams: [] },
};

/** The stand-in: which person approves the next authorize request is set by `approveAs`. */
let github: Server;
let server: string;
let approving = 'ada';
const codes = new Map<string, { person: string; challenge: string; redirectUri: string }>();
const accessTokens = new Map<string, string>();

function formBody(req: import('node:http').IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
  });
}

beforeAll(async () => {
  github = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', server);
    const json = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== 'gh-client' || q.get('code_challenge_method') !== 'S256') return json(400, {});
      const code = randomBytes(10).toString('hex');
      const redirectUri = q.get('redirect_uri') as string;
      codes.set(code, { person: approving, challenge: q.get('code_challenge') as string, redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') as string);
      res.statusCode = 302;
      res.setHeader('location', back.href);
      return res.end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = await formBody(req);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (form.get('client_secret') !== 'gh-secret') return json(401, { error: 'incorrect_client_credentials' });
      if (
        !grant ||
        grant.redirectUri !== form.get('redirect_uri') ||
        createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
      ) {
        return json(400, { error: 'bad_verification_code' });
      }
      const token = `gho_${randomBytes(12).toString('hex')}`;
      accessTokens.set(token, grant.person);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:org,user:email' });
    }
    const person = PEOPLE[accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, '')) ?? ''];
    if (!person) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/api/v3/user') return json(200, person.user);
    if (url.pathname === '/api/v3/user/orgs')
      return json(
        200,
        person.orgs.map((login) => ({ login })),
      );
    if (url.pathname === '/api/v3/user/teams') {
      return json(
        200,
        person.teams.map(([org, slug]) => ({ slug, organization: { login: org } })),
      );
    }
    json(404, {});
  });
  await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
  server = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
});
afterAll(() => github?.close());

describeEachBackend('GitHub sign-in', (backend) => {
  let t: TestApp;
  let base: string;
  let grpc: FliptGrpc;

  beforeAll(async () => {
    ({ t, base, grpc } = await startListeningApp(backend, {
      authentication: {
        required: true,
        session: { domain: 'localhost' },
        methods: {
          token: { enabled: true, bootstrap: { token: BOOT } },
          github: {
            enabled: true,
            client_id: 'gh-client',
            client_secret: 'gh-secret',
            redirect_address: 'http://127.0.0.1:1',
            scopes: ['read:org', 'user:email'],
            server_url: server,
            api_url: `${server}/api/v3`,
            allowed_organizations: ['acme'],
            allowed_teams: { acme: ['flags'] },
          },
        },
      },
    }));
  });
  afterAll(async () => {
    await t?.close();
  });

  const sessions = async () => (await t.app.services.auth.list({ method: 'METHOD_GITHUB', limit: 100 })).items.length;

  /** Authorize, then GitHub's redirect; the callback URL (on redirect_address) is re-aimed at this server. */
  async function untilCallback(person: string, browser = new Browserless(Buffer.from(''))) {
    approving = person;
    const authorize = await browser.get(`${base}/auth/v1/method/github/authorize`);
    expect(authorize.status).toBe(200);
    const { authorizeUrl } = JSON.parse(authorize.body);
    const { stoppedAt } = await browser.follow(authorizeUrl, (u) => u.pathname === '/auth/v1/method/github/callback');
    if (!stoppedAt) throw new Error('no redirect to the callback');
    // The browser's cookie jar is per host: the state cookie was set by `base`.
    const callbackUrl = new URL(`${base}${stoppedAt.pathname}${stoppedAt.search}`);
    return { browser, callbackUrl, authorize };
  }

  it('a member of the allowed team signs in (HTTP): cookies, redirect, Flipt’s metadata', async () => {
    const { browser, callbackUrl, authorize } = await untilCallback('ada');
    expect(String(authorize.headers['set-cookie'])).toMatch(
      /^flipt_client_state=[^;]{20,}; Path=\/auth\/v1\/method\/github\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
    const callback = await browser.get(callbackUrl.href);
    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe('/');
    const token = browser.cookie(new URL(base).host, 'flipt_client_token') as string;
    const self = await fetch(`${base}/auth/v1/self`, { headers: { cookie: `flipt_client_token=${token}` } }).then((r) =>
      r.json(),
    );
    expect(self.method).toBe('METHOD_GITHUB');
    expect(self.metadata).toEqual({
      'io.flipt.auth.github.name': 'Ada',
      'io.flipt.auth.github.email': 'ada@acme.test',
      'io.flipt.auth.github.picture': 'https://avatars.test/ada',
      'io.flipt.auth.github.sub': '101',
      'io.flipt.auth.github.preferred_username': 'ada',
      'io.flipt.auth.github.organizations': '["acme"]',
      'io.flipt.auth.github.teams': '{"acme":["flags"]}',
      'io.flipt.auth.email': 'ada@acme.test',
      'io.flipt.auth.name': 'Ada',
      'io.flipt.auth.picture': 'https://avatars.test/ada',
    });
  });

  it.each([
    ['bob (in the organisation, not the team)', 'bob'],
    ['carol (not in the organisation)', 'carol'],
  ])('%s is refused: 401, no session', async (_name, person) => {
    const before = await sessions();
    const { browser, callbackUrl } = await untilCallback(person);
    const answer = await browser.get(callbackUrl.href);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).message).toMatch(/not in an allowed organisation or team/);
    expect(await sessions()).toBe(before);
  });

  it('a replayed callback, a missing state and a reused code are refused; nothing stored', async () => {
    const first = await untilCallback('ada');
    const stateCookie = first.browser.cookie(new URL(base).host, 'flipt_client_state') as string;
    expect((await first.browser.get(first.callbackUrl.href)).status).toBe(302);
    const before = await sessions();
    const replay = await new Browserless(Buffer.from('')).get(first.callbackUrl.href, {
      cookie: `flipt_client_state=${stateCookie}`,
    });
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.body).message).toMatch(/unknown or was already used/);
    // A new sign-in's state with the first sign-in's (used) code: GitHub refuses the code.
    const second = await untilCallback('ada');
    const reused = new URL(second.callbackUrl);
    reused.searchParams.set('code', first.callbackUrl.searchParams.get('code') as string);
    const reusedAnswer = await second.browser.get(reused.href);
    expect(reusedAnswer.status).toBe(401);
    expect(JSON.parse(reusedAnswer.body).message).toMatch(/GitHub refused the code/);
    const noState = new URL(second.callbackUrl);
    noState.searchParams.delete('state');
    expect((await new Browserless(Buffer.from('')).get(noState.href)).status).toBe(401);
    expect(await sessions()).toBe(before);
  });

  it('over gRPC: AuthorizeURL and Callback answer the session; a replay is UNAUTHENTICATED', async () => {
    const authorize = messageJson((await grpc.call(SERVICE, 'AuthorizeURL', {})).response);
    approving = 'ada';
    const { stoppedAt } = await new Browserless(Buffer.from('')).follow(
      authorize.authorizeUrl,
      (u) => u.pathname === '/auth/v1/method/github/callback',
    );
    const code = stoppedAt?.searchParams.get('code') as string;
    const state = stoppedAt?.searchParams.get('state') as string;
    const created = messageJson((await grpc.call(SERVICE, 'Callback', { code, state })).response);
    expect(created.authentication.method).toBe('METHOD_GITHUB');
    expect(created.authentication.metadata['io.flipt.auth.github.preferred_username']).toBe('ada');
    const list = await grpc.call('flipt.Flipt', 'ListNamespaces', {}, { token: created.clientToken });
    expect(list.response).toBeDefined();
    expect((await grpc.error(SERVICE, 'Callback', { code, state })).code).toBe(16);
    expect((await grpc.error(SERVICE, 'Callback', { code })).code).toBe(16);
  });

  it('is listed with its paths', async () => {
    const methods = await fetch(`${base}/auth/v1/method`).then((r) => r.json());
    expect(methods.methods.find((m: { method: string }) => m.method === 'METHOD_GITHUB')).toEqual({
      method: 'METHOD_GITHUB',
      enabled: true,
      sessionCompatible: true,
      metadata: { authorize_url: '/auth/v1/method/github/authorize', callback_url: '/auth/v1/method/github/callback' },
    });
  });
});

describe('GitHub config', () => {
  const github = { enabled: true, client_id: 'a', client_secret: 'b', redirect_address: 'http://x.test' };
  it.each([
    [{ ...github, allowed_organizations: ['acme'] }, 'scopes: must contain read:org'],
    [
      { ...github, scopes: ['read:org'], allowed_organizations: ['acme'], allowed_teams: { other: ['t'] } },
      "allowed_teams: the organization 'other' is not in allowed_organizations",
    ],
    [{ ...github, client_secret: '' }, 'authentication.methods.github.client_secret: required'],
  ])('%j is refused', (settings, message) => {
    expect(() =>
      loadConfig({
        env: {},
        overrides: { authentication: { session: { domain: 'x.test' }, methods: { github: settings } } },
      }),
    ).toThrow(message);
  });

  it('session.domain is required', () => {
    expect(() => loadConfig({ env: {}, overrides: { authentication: { methods: { github } } } })).toThrow(
      'authentication.session.domain: required',
    );
  });
});
