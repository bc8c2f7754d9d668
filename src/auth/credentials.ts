// Where a request carries its client token: `Authorization: Bearer <token>`, or the dashboard's
// `flipt_client_token` cookie. The scheme is read in any case, with one or more spaces after it, as
// RFC 9110 §11.1 defines it (Flipt accepts `Bearer` and one space only, so no Flipt client is refused).

export const TOKEN_COOKIE = 'flipt_client_token';
export const STATE_COOKIE = 'flipt_client_state';

const BEARER = 'Bearer ';

/** A cookie's value from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return undefined;
}

/**
 * The presented token: from the Authorization header when there is one (a header that is not a
 * well-formed Bearer credential yields '' so the request fails), else from the cookie; undefined when
 * the request carries neither.
 */
export function presentedToken(headers: { authorization?: string; cookie?: string }): string | undefined {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    // Every client sends `Bearer ` as written: that case costs one comparison.
    if (authorization.startsWith(BEARER) && authorization.charCodeAt(BEARER.length) !== 32) {
      return authorization.slice(BEARER.length);
    }
    return otherBearerSpelling(authorization);
  }
  return cookieValue(headers.cookie, TOKEN_COOKIE);
}

/** The token of a Bearer credential spelled in another case or with more spaces; '' when it is none. */
function otherBearerSpelling(authorization: string): string {
  if (authorization.length <= BEARER.length || authorization.slice(0, BEARER.length).toLowerCase() !== 'bearer ') {
    return '';
  }
  return authorization.slice(BEARER.length).replace(/^ +/, '');
}

/**
 * The token of Flipt's `Authorization: JWT <token>` (the JWT method), in any case and with one or more
 * spaces; undefined for any other scheme. Asked only once the header is known not to be Bearer.
 */
export function presentedJwt(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length <= 4 || authorization.slice(0, 4).toLowerCase() !== 'jwt ') {
    return undefined;
  }
  const token = authorization.slice(4).replace(/^ +/, '');
  return token === '' ? undefined : token;
}

/** The refusal of a request or call with more than one credential (both transports answer it). */
export const REPEATED_AUTHORIZATION = 'request has more than one Authorization header';

/**
 * Whether the raw header list (name, value, name, value…) names Authorization more than once. Node keeps
 * only the first in `headers`, so a proxy and Vexil could each read a different credential.
 */
export function repeatsAuthorization(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

/** Set-Cookie values that remove the dashboard's session cookies (Flipt does this on logout and on 401). */
export function clearedSessionCookies(domain: string): string[] {
  // The Domain the session cookie was set with (none for localhost), or the browser keeps it.
  const scope = `Path=/; ${domain && domain !== 'localhost' ? `Domain=${domain}; ` : ''}Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
  return [`${STATE_COOKIE}=; ${scope}`, `${TOKEN_COOKIE}=; ${scope}; HttpOnly`];
}

/** The session settings the sign-in cookies follow (`authentication.session`). */
export interface CookieSettings {
  domain: string;
  secure: boolean;
}

function cookieScope(path: string, maxAgeSeconds: number, settings: CookieSettings): string {
  // As Flipt: no Domain for localhost (browsers refuse a Domain cookie there).
  const domain = settings.domain && settings.domain !== 'localhost' ? `; Domain=${settings.domain}` : '';
  return `Path=${path}${domain}; Max-Age=${maxAgeSeconds}; HttpOnly${settings.secure ? '; Secure' : ''}`;
}

/** The state cookie of a sign-in under way: sent back only to its callback, also after the provider's redirect. */
export function stateCookie(state: string, callbackPath: string, lifetimeMs: number, settings: CookieSettings): string {
  return `${STATE_COOKIE}=${state}; ${cookieScope(callbackPath, Math.ceil(lifetimeMs / 1000), settings)}; SameSite=Lax`;
}

/** Removes the state cookie at the callback: a state is good for one sign-in. */
export function clearedStateCookie(callbackPath: string, settings: CookieSettings): string {
  return `${STATE_COOKIE}=; ${cookieScope(callbackPath, 0, settings)}; SameSite=Lax`;
}

/** The session cookie a sign-in sets: the new session's client token. */
export function sessionCookie(clientToken: string, expiresAt: Date, settings: CookieSettings): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  return `${TOKEN_COOKIE}=${clientToken}; ${cookieScope('/', maxAge, settings)}; SameSite=Strict`;
}
