// Cross-site request forgery (issue 27): a write authenticated by the `flipt_client_token` cookie alone
// must come from this server's own origin or a trusted one (csrf.ts); the same request with a Bearer
// header is never concerned. The table crosses the credential, what the request says about where it
// comes from (Sec-Fetch-Site, Origin, Referer) and the write methods.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CROSS_SITE_WRITE } from '../../src/api/http/authentication.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';

const BOOT = 'csrf-bootstrap-token';
const HOST = 'flags.example:8080';
const OWN = `http://${HOST}`;
const TRUSTED = 'https://admin.example';
const CORS_ONLY = 'https://cors.example';
const FOREIGN = 'https://evil.example';
const REFUSED = { code: 7, message: CROSS_SITE_WRITE, details: [] };

type Where = Record<string, string>;

/** What the request says about its origin, and whether a cookie-authenticated write may pass. */
const ORIGINS: [string, Where, boolean][] = [
  ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, true],
  ['Sec-Fetch-Site same-origin, foreign Origin', { 'sec-fetch-site': 'same-origin', origin: FOREIGN }, true],
  ['Sec-Fetch-Site cross-site, foreign Origin', { 'sec-fetch-site': 'cross-site', origin: FOREIGN }, false],
  ['Sec-Fetch-Site cross-site, trusted Origin', { 'sec-fetch-site': 'cross-site', origin: TRUSTED }, true],
  ['Sec-Fetch-Site cross-site, own Origin', { 'sec-fetch-site': 'cross-site', origin: OWN }, false],
  ['Sec-Fetch-Site same-site, foreign Origin', { 'sec-fetch-site': 'same-site', origin: FOREIGN }, false],
  ['Sec-Fetch-Site same-site, own Origin', { 'sec-fetch-site': 'same-site', origin: OWN }, false],
  ['Sec-Fetch-Site none, nothing else', { 'sec-fetch-site': 'none' }, false],
  ['Sec-Fetch-Site none, own Origin', { 'sec-fetch-site': 'none', origin: OWN }, true],
  ['own Origin', { origin: OWN }, true],
  ['own Origin in capitals', { origin: OWN.toUpperCase() }, true],
  ['trusted Origin', { origin: TRUSTED }, true],
  ['trusted Origin with its default port', { origin: `${TRUSTED}:443` }, true],
  ['foreign Origin', { origin: FOREIGN }, false],
  ['Origin listed in cors.allowed_origins only', { origin: CORS_ONLY }, false],
  ['Origin "null"', { origin: 'null' }, false],
  ['own host over https', { origin: `https://${HOST}` }, false],
  ['own host on another port', { origin: 'http://flags.example:9090' }, false],
  ['neither Origin nor Referer', {}, false],
  ['own Referer', { referer: `${OWN}/namespaces/default` }, true],
  ['trusted Referer', { referer: `${TRUSTED}/page` }, true],
  ['foreign Referer', { referer: `${FOREIGN}/page` }, false],
  ['foreign Origin, own Referer', { origin: FOREIGN, referer: `${OWN}/` }, false],
  ['Referer that is no URL', { referer: 'not a url' }, false],
];

describe('cross-site writes authenticated by cookie', () => {
  let t: TestApp;
  let token: string;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestApp(
      { name: 'sqlite' },
      {
        cors: { enabled: true, allowed_origins: [CORS_ONLY] },
        authentication: {
          required: true,
          // `*` never matches: trusting every site would be no check at all.
          session: { csrf: { key: 'k'.repeat(32), trusted_origins: [TRUSTED, '*'] } },
          methods: { token: { enabled: true, bootstrap: { token: BOOT } } },
        },
      },
    );
    // A second token, so that expiring or deleting nothing of the bootstrap one matters.
    token = (await call(t.app, 'POST', '/auth/v1/method/token', { name: 'browser' }, bearer(BOOT))).body.clientToken;
  });
  afterAll(async () => t?.close());

  /** A namespace that exists, for PUT and DELETE. */
  async function namespace(): Promise<string> {
    const key = `ns-${++serial}`;
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key, name: key }, bearer(BOOT))).status).toBe(200);
    return key;
  }

  const WRITES: [string, (credential: Where, where: Where) => Promise<{ status: number; body: unknown }>][] = [
    [
      'POST',
      async (c, w) => call(t.app, 'POST', '/api/v1/namespaces', { key: `new-${++serial}`, name: 'n' }, hdr(c, w)),
    ],
    [
      'PUT',
      async (c, w) => call(t.app, 'PUT', `/api/v1/namespaces/${await namespace()}`, { name: 'renamed' }, hdr(c, w)),
    ],
    ['DELETE', async (c, w) => call(t.app, 'DELETE', `/api/v1/namespaces/${await namespace()}`, undefined, hdr(c, w))],
  ];
  const hdr = (credential: Where, where: Where): Where => ({ host: HOST, ...credential, ...where });

  for (const [method, write] of WRITES) {
    it.each(ORIGINS)(`${method} with the cookie, %s`, async (_label, where, allowed) => {
      const res = await write({ cookie: `flipt_client_token=${token}` }, where);
      if (allowed) expect(res.status).toBe(200);
      else expect(res).toMatchObject({ status: 403, body: REFUSED });
    });

    it.each(ORIGINS)(`${method} with a Bearer header, %s: never refused`, async (_label, where) => {
      expect((await write(bearer(token), where)).status).toBe(200);
    });
  }

  it('refuses the reported forgery and creates nothing: text/plain body, cookie, foreign Origin', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/namespaces',
      headers: {
        host: HOST,
        cookie: `flipt_client_token=${token}`,
        'content-type': 'text/plain',
        origin: FOREIGN,
        'sec-fetch-site': 'cross-site',
      },
      payload: '{"key":"forged","name":"forged"}',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(REFUSED);
    expect((await call(t.app, 'GET', '/api/v1/namespaces/forged', undefined, bearer(BOOT))).status).toBe(404);
  });

  it('lets reads through from anywhere: only writes change state', async () => {
    const res = await call(t.app, 'GET', '/api/v1/namespaces', undefined, {
      host: HOST,
      cookie: `flipt_client_token=${token}`,
      origin: FOREIGN,
      'sec-fetch-site': 'cross-site',
    });
    expect(res.status).toBe(200);
  });

  // The origin is looked at before the token: a forged request costs no token lookup.
  it('refuses a cross-site cookie write whatever the cookie holds; a same-origin unknown one is 401', async () => {
    const write = (where: Where) =>
      call(
        t.app,
        'POST',
        '/api/v1/namespaces',
        { key: 'x', name: 'x' },
        {
          host: HOST,
          cookie: 'flipt_client_token=unknown',
          ...where,
        },
      );
    expect(await write({ origin: FOREIGN })).toMatchObject({ status: 403, body: REFUSED });
    expect((await write({ origin: OWN })).status).toBe(401);
  });
});
