// Where a request carries its client token: `Authorization: Bearer <token>` (prefix case-sensitive,
// exactly one space, as Flipt), or the dashboard's `flipt_client_token` cookie.

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
    return authorization.startsWith(BEARER) ? authorization.slice(BEARER.length) : '';
  }
  return cookieValue(headers.cookie, TOKEN_COOKIE);
}

/** Set-Cookie values that remove the dashboard's session cookies (Flipt does this on logout and on 401). */
export function clearedSessionCookies(domain: string): string[] {
  const scope = `Path=/; ${domain ? `Domain=${domain}; ` : ''}Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
  return [`${STATE_COOKIE}=; ${scope}`, `${TOKEN_COOKIE}=; ${scope}; HttpOnly`];
}
