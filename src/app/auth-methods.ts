// The login methods besides tokens, built from `authentication.methods.*` before anything listens:
// what cannot work (an unreadable key file) stops start-up with a line naming the key.

import type { Kysely } from 'kysely';
import { GithubMethod } from '../auth/methods/github.js';
import { JwtVerifier } from '../auth/methods/jwt.js';
import { KubernetesVerifier } from '../auth/methods/kubernetes.js';
import { OidcMethod } from '../auth/methods/oidc.js';
import { RoleResolver } from '../auth/roles/resolver.js';
import { ConfigError, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { SignInMethods } from '../services/auth.js';
import type { Database } from '../storage/schema.js';

/**
 * Throws the ConfigError naming the setting that cannot be used. Without `db` (`vexil config validate`)
 * only what needs no database is built.
 */
export function buildAuthMethods(config: Config, db?: Kysely<Database>): SignInMethods {
  const session = config.authentication.session;
  const methods: SignInMethods = { sessionLifetimeMs: ms(session.token_lifetime) };
  const roles = config.authorization.roles;
  methods.roles = new RoleResolver(roles === undefined ? undefined : { rules: roles.rules, default: roles.default });
  const oidc = config.authentication.methods.oidc;
  if (oidc.enabled && db !== undefined) methods.oidc = new OidcMethod(db, oidc, ms(session.state_lifetime));
  const github = config.authentication.methods.github;
  if (github.enabled && db !== undefined) methods.github = new GithubMethod(db, github, ms(session.state_lifetime));
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
  const kubernetes = config.authentication.methods.kubernetes;
  if (kubernetes.enabled) {
    try {
      methods.kubernetes = new KubernetesVerifier(kubernetes);
    } catch (err) {
      throw new ConfigError(
        `invalid config at authentication.methods.kubernetes.ca_path: cannot read ${kubernetes.ca_path} (${(err as Error).message})`,
      );
    }
  }
  return methods;
}
