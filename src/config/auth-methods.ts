// Checks of `authentication.methods.*` that the schema cannot say, as Flipt checks them at start: the
// JWT method needs exactly one key source, and its JWKS URL must be an http(s) URL. Files named here
// are read when the method is built (app/auth-methods.ts), which names them when they are not usable.

import type { Config } from './schema.js';

/** `path: problem` of the first method setting that cannot work, or undefined. */
export function authMethodsProblem(methods: Config['authentication']['methods']): string | undefined {
  const jwt = methods.jwt;
  if (jwt.enabled) {
    const where = 'authentication.methods.jwt';
    if (jwt.jwks_url === '' && jwt.public_key_file === '')
      return `${where}: one of jwks_url or public_key_file is required`;
    if (jwt.jwks_url !== '' && jwt.public_key_file !== '')
      return `${where}: only one of jwks_url or public_key_file can be set`;
    if (jwt.jwks_url !== '' && !isHttpUrl(jwt.jwks_url))
      return `${where}.jwks_url: "${jwt.jwks_url}" is not an http(s) URL`;
  }
  const oidc = methods.oidc;
  if (oidc.enabled) {
    const where = 'authentication.methods.oidc';
    const names = Object.keys(oidc.providers);
    if (names.length === 0) return `${where}.providers: at least one provider is required`;
    for (const name of names) {
      if (!/^[A-Za-z0-9_-]+$/.test(name))
        return `${where}.providers.${name}: a provider's name may hold letters, digits, _ and - only`;
      const provider = oidc.providers[name] as (typeof oidc.providers)[string];
      for (const key of ['issuer_url', 'client_id', 'client_secret', 'redirect_address'] as const) {
        if (!provider[key]) return `${where}.providers.${name}.${key}: required`;
      }
      for (const key of ['issuer_url', 'redirect_address'] as const) {
        if (!isHttpUrl(provider[key] ?? ''))
          return `${where}.providers.${name}.${key}: "${provider[key]}" is not an http(s) URL`;
      }
    }
    for (const pattern of oidc.email_matches) {
      try {
        new RegExp(pattern);
      } catch {
        return `${where}.email_matches: "${pattern}" is not a regular expression`;
      }
    }
  }
  const github = methods.github;
  if (github.enabled) {
    const where = 'authentication.methods.github';
    for (const key of ['client_id', 'client_secret', 'redirect_address'] as const) {
      if (github[key] === '') return `${where}.${key}: required`;
    }
    for (const key of ['redirect_address', 'server_url', 'api_url'] as const) {
      if (github[key] !== '' && !isHttpUrl(github[key]))
        return `${where}.${key}: "${github[key]}" is not an http(s) URL`;
    }
    if (github.allowed_organizations.length > 0 && !github.scopes.includes('read:org')) {
      return `${where}.scopes: must contain read:org when allowed_organizations is not empty`;
    }
    for (const org of Object.keys(github.allowed_teams)) {
      if (!github.allowed_organizations.includes(org)) {
        return `${where}.allowed_teams: the organization '${org}' is not in allowed_organizations`;
      }
    }
  }
  return undefined;
}

/** `authentication.session.domain` as a cookie's Domain: the host of what is configured (no scheme, no port). */
export function sessionProblem(authentication: Config['authentication']): string | undefined {
  const { oidc, github } = authentication.methods;
  if (!oidc.enabled && !github.enabled) return undefined;
  if (authentication.session.domain === '') {
    return 'authentication.session.domain: required when a sign-in method (oidc, github) is enabled';
  }
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
