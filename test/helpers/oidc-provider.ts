// A real OpenID provider (the `oidc-provider` package) on loopback over HTTPS, with a certificate from a
// CA made by the test, for the OIDC sign-in tests. Its login and consent pages are replaced by one
// step that signs in whichever account the test chose (`signInAs`), so a sign-in is a chain of
// redirects a small cookie-keeping client (`Browserless`) or Chromium can follow.

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
  profile?: string;
  /** A list claim, as identity providers send group membership (roles by claim, issue 41). */
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  /** The account the next sign-in signs in as. */
  signInAs(accountId: string): void;
  close(): Promise<void>;
}

export async function startOidcProvider(options: {
  tls: { keyFile: string; certFile: string };
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
}): Promise<TestProvider> {
  let next = Object.keys(options.accounts)[0] as string;
  const server = createServer({ key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    // `groups` travels with `profile` here, so a test's accounts carry it without asking for another scope.
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture', 'profile', 'groups'] },
    // The claims in the ID token itself, which is what Flipt (and Vexil) read.
    conformIdTokenClaims: false,
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, ...options.accounts[id] }),
    }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    // Cookies are per host, not per port: each provider's own names, so two on 127.0.0.1 never mix.
    cookies: {
      keys: ['vexil-test-provider-cookie-key'],
      names: {
        session: `_session_${options.clientId}`,
        interaction: `_interaction_${options.clientId}`,
        resume: `_interaction_resume_${options.clientId}`,
      },
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = next;
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  return {
    issuer,
    signInAs(accountId) {
      next = accountId;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  url: string;
}

/**
 * What a browser does with redirects and cookies, and no more: GETs that keep each host's cookies
 * (by name; path and expiry as far as the tests need: a cookie set with Max-Age=0 is dropped) and
 * trust the test's CA.
 */
export class Browserless {
  readonly cookies = new Map<string, Map<string, string>>();

  constructor(private readonly ca: Buffer) {}

  cookie(host: string, name: string): string | undefined {
    return this.cookies.get(host)?.get(name);
  }

  get(url: string, extraHeaders: Record<string, string> = {}): Promise<Answer> {
    const target = new URL(url);
    const jar = this.cookies.get(target.host) ?? new Map<string, string>();
    this.cookies.set(target.host, jar);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        target,
        { method: 'GET', headers: { ...(cookie ? { cookie } : {}), ...extraHeaders }, ca: this.ca },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => {
            const set = res.headers['set-cookie'] ?? [];
            for (const line of set) {
              const [pair = '', ...attributes] = line.split(';');
              const eq = pair.indexOf('=');
              const name = pair.slice(0, eq).trim();
              const value = pair.slice(eq + 1).trim();
              if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') jar.delete(name);
              else jar.set(name, value);
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, url });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** Follows redirects from `url` until one leads to a URL that `stop` accepts (not requested), or an answer. */
  async follow(url: string, stop: (next: URL) => boolean): Promise<{ stoppedAt?: URL; last: Answer }> {
    let current = url;
    for (let hops = 0; hops < 20; hops++) {
      const answer = await this.get(current);
      const location = answer.headers.location;
      if (answer.status < 300 || answer.status >= 400 || typeof location !== 'string') return { last: answer };
      const next = new URL(location, current);
      if (stop(next)) return { stoppedAt: next, last: answer };
      current = next.href;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}
