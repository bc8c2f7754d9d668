// People signed in by JWT for role tests: a key pair made once per file, its public key written where
// `authentication.methods.jwt.public_key_file` reads it, and tokens signed with chosen claims.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export interface JwtPeople {
  /** The PEM file of the public key, for the config. */
  publicKeyFile: string;
  /** A JWT for a person with `claims` (valid for ten minutes). */
  sign(claims: JWTPayload): Promise<string>;
}

export async function jwtPeople(): Promise<JwtPeople> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const publicKeyFile = join(mkdtempSync(join(tmpdir(), 'vexil-people-')), 'key.pem');
  writeFileSync(publicKeyFile, await exportSPKI(pair.publicKey));
  const now = () => Math.floor(Date.now() / 1000);
  return {
    publicKeyFile,
    sign: (claims) =>
      new SignJWT({ sub: 'someone', iat: now(), exp: now() + 600, ...claims })
        .setProtectedHeader({ alg: 'ES256' })
        .sign(pair.privateKey),
  };
}
