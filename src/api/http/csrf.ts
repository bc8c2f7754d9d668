// Cross-site request forgery: a browser attaches the `flipt_client_token` cookie to a request any other
// site makes (a form, or fetch with `Content-Type: text/plain`, which needs no preflight), so a write
// authenticated by that cookie alone must come from a page of this server or of an origin the operator
// trusts (`authentication.session.csrf.trusted_origins`). Requests with an Authorization header are not
// concerned: no browser adds one on its own. What tells where a request comes from, in order:
// - `Sec-Fetch-Site` (every current browser sends it): `same-origin` passes; `same-site` and
//   `cross-site` pass only from a trusted origin, whatever Origin says;
// - otherwise the `Origin` header, or without one the origin of `Referer`: this server's own (its Host
//   header with the connection's protocol) or a trusted one. Neither (or `null`) is refused.
// `cors.allowed_origins` never counts (it says who may read answers, not who may write), and `*` matches
// nothing. The check runs whether or not `csrf.key` is set: Vexil keeps no CSRF token, so the key has
// nothing to sign (ADR 0023).

import type { FastifyRequest } from 'fastify';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request of this method changes state and so needs the origin check when cookie-authenticated. */
export function isStateChanging(method: string): boolean {
  return WRITE_METHODS.has(method);
}

/** `scheme://host[:port]` of a URL, lowercase, default port left out; undefined when it is no URL. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The configured trusted origins, each as a browser writes an Origin header (`*` and non-URLs dropped). */
export function trustedOrigins(configured: readonly string[]): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const entry of configured) {
    const origin = originOf(entry.trim());
    if (origin !== undefined) origins.add(origin);
  }
  return origins;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The origin the request says it comes from: Origin, else Referer's; undefined when it says none. */
function claimedOrigin(request: FastifyRequest): string | undefined {
  const origin = header(request, 'origin');
  if (origin !== undefined) return origin === 'null' ? undefined : originOf(origin);
  const referer = header(request, 'referer');
  return referer === undefined ? undefined : originOf(referer);
}

function ownOrigin(request: FastifyRequest): string | undefined {
  const host = header(request, 'host');
  return host === undefined || host === '' ? undefined : originOf(`${request.protocol}://${host}`);
}

/** Whether a cookie-authenticated write may proceed. */
export function mayWriteWithCookie(request: FastifyRequest, trusted: ReadonlySet<string>): boolean {
  const site = header(request, 'sec-fetch-site');
  if (site === 'same-origin') return true;
  const claimed = claimedOrigin(request);
  if (claimed === undefined) return false;
  if (trusted.has(claimed)) return true;
  if (site === 'same-site' || site === 'cross-site') return false;
  return claimed === ownOrigin(request);
}
