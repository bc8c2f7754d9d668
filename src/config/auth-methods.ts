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
