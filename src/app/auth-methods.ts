// The login methods besides tokens, built from `authentication.methods.*` before anything listens:
// what cannot work (an unreadable key file) stops start-up with a line naming the key.

import { JwtVerifier } from '../auth/methods/jwt.js';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';

export interface AuthMethods {
  jwt?: JwtVerifier;
}

/** Throws the ConfigError naming the setting that cannot be used. */
export function buildAuthMethods(config: Config): AuthMethods {
  const methods: AuthMethods = {};
  const jwt = config.authentication.methods.jwt;
  if (jwt.enabled) {
    try {
      methods.jwt = JwtVerifier.fromSettings(jwt);
    } catch (err) {
      throw new ConfigError(
        `invalid config at authentication.methods.jwt.public_key_file: ${jwt.public_key_file} is not a readable PEM public key (${(err as Error).message})`,
      );
    }
  }
  return methods;
}
