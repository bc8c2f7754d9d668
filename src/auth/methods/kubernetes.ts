// The Kubernetes method (`authentication.methods.kubernetes`): a pod presents its service-account token
// and gets a client token expiring with it. The token is verified with jose against the cluster's own
// OIDC discovery document and keys, fetched from `discovery_url` over TLS trusting only `ca_path`, with
// Vexil's own service-account token (`service_account_token_path`, read on every fetch: the kubelet
// rotates it) as the bearer. The issuer must be the one the discovery document names; the audience is
// not checked (as in Flipt). Nothing is fetched before the first token; a failed discovery is tried
// again on the next one.

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { UnauthenticatedError, UnavailableError } from '../../domain/errors.js';

export interface KubernetesSettings {
  discovery_url: string;
  ca_path: string;
  service_account_token_path: string;
}

/** Asymmetric algorithms only (Kubernetes signs with RS256 or ES256). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA'];

/** What a verified service-account token says. */
export interface ServiceAccount {
  expiresAt: Date;
  metadata: Record<string, string>;
}

/** A GET that trusts only `ca` and presents `bearer()`: the shape jose's and our fetches need. */
function clusterFetch(ca: Buffer, bearer: () => string) {
  return (url: string, options: { signal?: AbortSignal; headers?: HeadersInit } = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(options.headers).entries());
      const req = request(
        url,
        { method: 'GET', ca, headers: { ...headers, authorization: `Bearer ${bearer()}` }, signal: options.signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502 })));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
}

const refused = (reason: string) => new UnauthenticatedError(`service account token refused: ${reason}`);

function refusal(err: unknown): Error {
  if (err instanceof errors.JWTExpired) return refused('it has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    return refused(err.claim === 'iss' ? 'it was issued by another cluster' : `its ${err.claim} claim is not valid`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return refused('its algorithm is not accepted');
  if (err instanceof errors.JWKSNoMatchingKey) return refused('it was signed by a key this cluster does not have');
  if (err instanceof errors.JWSSignatureVerificationFailed) return refused('its signature is not valid');
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
    return new UnavailableError('the cluster signing keys could not be fetched');
  }
  if (err instanceof errors.JOSEError) return refused('it is malformed');
  return new UnavailableError('the cluster signing keys could not be fetched');
}

export class KubernetesVerifier {
  readonly #fetch: ReturnType<typeof clusterFetch>;
  #keys: Promise<{ issuer: string; keys: JWTVerifyGetKey }> | undefined;

  constructor(private readonly settings: KubernetesSettings) {
    // Read at start, so a missing CA file stops start-up naming it (app/auth-methods.ts).
    const ca = readFileSync(settings.ca_path);
    this.#fetch = clusterFetch(ca, () => readFileSync(settings.service_account_token_path, 'utf8').trim());
  }

  /** The discovery document's issuer and its keys, fetched once (again after a failure). */
  #discover(): Promise<{ issuer: string; keys: JWTVerifyGetKey }> {
    this.#keys ??= (async () => {
      const url = `${this.settings.discovery_url.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      const res = await this.#fetch(url);
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string') throw new Error('no issuer or jwks_uri');
      const keys = createRemoteJWKSet(new URL(doc.jwks_uri), { [customFetch]: this.#fetch });
      return { issuer: doc.issuer, keys };
    })();
    const pending = this.#keys;
    pending.catch(() => {
      if (this.#keys === pending) this.#keys = undefined;
    });
    return pending.catch(() => {
      throw new UnavailableError('the cluster discovery document could not be fetched');
    });
  }

  async verify(token: string): Promise<ServiceAccount> {
    if (token === '') throw refused('serviceAccountToken is empty');
    const { issuer, keys } = await this.#discover();
    let claims: JWTPayload;
    try {
      claims = (await jwtVerify(token, keys, { issuer, algorithms: ALGORITHMS, requiredClaims: ['exp'] })).payload;
    } catch (err) {
      throw refusal(err);
    }
    const identity = (claims['kubernetes.io'] ?? {}) as {
      namespace?: string;
      pod?: { name?: string; uid?: string };
      serviceaccount?: { name?: string; uid?: string };
    };
    return {
      expiresAt: new Date((claims.exp as number) * 1000),
      metadata: {
        'io.flipt.auth.k8s.namespace': identity.namespace ?? '',
        'io.flipt.auth.k8s.pod.name': identity.pod?.name ?? '',
        'io.flipt.auth.k8s.pod.uid': identity.pod?.uid ?? '',
        'io.flipt.auth.k8s.serviceaccount.name': identity.serviceaccount?.name ?? '',
        'io.flipt.auth.k8s.serviceaccount.uid': identity.serviceaccount?.uid ?? '',
      },
    };
  }
}
