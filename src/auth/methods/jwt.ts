// The JWT method (`authentication.methods.jwt`): a request presenting `Authorization: JWT <token>` is
// authenticated by the token itself, verified with jose against a JWKS URL or a public key file. Only
// Flipt's asymmetric algorithms are accepted (so `none` and an HMAC token "signed" with the public key
// never verify); signature, exp, nbf and the configured iss/sub/aud are checked. Nothing is stored: the
// authentication lives as long as the request. Keys come from jose's remote key set, which fetches
// again when a token names an unknown `kid`, at most once per cooldown.

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Authentication } from '../../domain/authentication.js';
import { UnauthenticatedError, UnavailableError } from '../../domain/errors.js';

/** Flipt's list (hashicorp/cap Expected.SigningAlgorithms in its auth set-up). */
export const JWT_ALGORITHMS = ['RS256', 'RS512', 'ES256', 'ES512', 'EdDSA'] as const;

/** A key set is fetched again for an unknown `kid` at most this often. */
const JWKS_COOLDOWN_MS = 30_000;
/** Without an unknown `kid`, keys are fetched again after this long. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_TIMEOUT_MS = 5_000;

export interface JwtSettings {
  jwks_url: string;
  public_key_file: string;
  validate_claims: { issuer: string; subject: string; audiences: string[] };
}

const PREFIX = 'io.flipt.auth.';
/** `user.<claim>` → `io.flipt.auth.jwt.<key>`, as Flipt maps them. */
const USER_CLAIMS: readonly (readonly [string, string])[] = [
  ['email', 'email'],
  ['sub', 'sub'],
  ['image', 'picture'],
  ['name', 'name'],
  ['role', 'role'],
];

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The authentication's metadata from the verified claims, with Flipt's keys. */
export function jwtMetadata(claims: JWTPayload): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(claims)) {
    if (key.startsWith(PREFIX)) metadata[key] = text(value);
    else if (key === 'iss' && typeof value === 'string') metadata['io.flipt.auth.jwt.issuer'] = value;
    else if (key === 'user' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const user = value as Record<string, unknown>;
      for (const [from, to] of USER_CLAIMS) {
        if (user[from] !== undefined) metadata[`io.flipt.auth.jwt.${to}`] = text(user[from]);
      }
    }
  }
  return metadata;
}

/** Why a token was refused, in words that name no secret (the token is never repeated). */
function refusal(err: unknown): Error {
  const because = (reason: string) => new UnauthenticatedError(`request was not authenticated: ${reason}`);
  if (err instanceof errors.JWTExpired) return because('the JWT has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'nbf':
        return because('the JWT is not valid yet');
      case 'iss':
        return because('the JWT issuer is not the one expected');
      case 'aud':
        return because('the JWT audience is not one expected');
      case 'sub':
        return because('the JWT subject is not the one expected');
      default:
        return because(`the JWT claim ${err.claim} is not valid`);
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return because(`the JWT algorithm is not accepted (only ${JWT_ALGORITHMS.join(', ')})`);
  }
  if (err instanceof errors.JWKSNoMatchingKey) return because('the JWT signing key is not known');
  if (err instanceof errors.JWKSMultipleMatchingKeys) return because('the JWT names no key and several match');
  if (err instanceof errors.JWSSignatureVerificationFailed) return because('the JWT signature is not valid');
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
    return new UnavailableError('the JWT signing keys could not be fetched');
  }
  if (err instanceof errors.JOSEError) return because('the JWT is malformed or its key does not fit its algorithm');
  // fetch failures (the JWKS URL unreachable) are not the caller's fault.
  if (err instanceof TypeError) return new UnavailableError('the JWT signing keys could not be fetched');
  return because('the JWT could not be verified');
}

export class JwtVerifier {
  readonly #key: KeyObject | JWTVerifyGetKey;
  readonly #options: Parameters<typeof jwtVerify>[2];

  private constructor(key: KeyObject | JWTVerifyGetKey, settings: JwtSettings) {
    this.#key = key;
    const claims = settings.validate_claims;
    this.#options = {
      algorithms: [...JWT_ALGORITHMS],
      ...(claims.issuer ? { issuer: claims.issuer } : {}),
      ...(claims.subject ? { subject: claims.subject } : {}),
      ...(claims.audiences.length > 0 ? { audience: claims.audiences } : {}),
    };
  }

  /** The verifier of the settings (config/auth-methods.ts has checked that exactly one key source is set). */
  static fromSettings(settings: JwtSettings): JwtVerifier {
    if (settings.jwks_url !== '') {
      const keys = createRemoteJWKSet(new URL(settings.jwks_url), {
        cooldownDuration: JWKS_COOLDOWN_MS,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        timeoutDuration: JWKS_TIMEOUT_MS,
      });
      return new JwtVerifier(keys, settings);
    }
    return new JwtVerifier(createPublicKey(readFileSync(settings.public_key_file)), settings);
  }

  /** The request's authentication, or an UnauthenticatedError saying why not (Unavailable: keys unreachable). */
  async verify(token: string): Promise<Authentication> {
    let claims: JWTPayload;
    try {
      // Two overloads (a key or a key getter): both are the same call.
      claims =
        typeof this.#key === 'function'
          ? (await jwtVerify(token, this.#key, this.#options)).payload
          : (await jwtVerify(token, this.#key, this.#options)).payload;
    } catch (err) {
      throw refusal(err);
    }
    // Issued when it says (else now); never updated, since it is never stored.
    const issuedAt = claims.iat !== undefined ? new Date(claims.iat * 1000) : new Date();
    return {
      id: '',
      method: 'METHOD_JWT',
      ...(claims.exp !== undefined ? { expiresAt: new Date(claims.exp * 1000) } : {}),
      createdAt: issuedAt,
      updatedAt: issuedAt,
      metadata: jwtMetadata(claims),
    };
  }
}
