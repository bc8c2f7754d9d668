// The one auth-service call a namespace-scoped token may make: reading its own authentication
// (GET /auth/v1/self). The dashboard learns from it which namespace the token is limited to; every
// other token endpoint stays refused to such tokens, and it addresses no namespace, so the
// namespace check would refuse it too.

export function isOwnAuthenticationRead(method: string, routeUrl: string | undefined): boolean {
  return method === 'GET' && routeUrl === '/auth/v1/self';
}
