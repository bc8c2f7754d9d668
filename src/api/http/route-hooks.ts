// Adding a hook to one route from an onRoute hook (telemetry, tiers, the app's body and ?pretty
// hooks): a route's hooks of one phase may be absent, one function or a list.

/** The route's hooks of one phase with `hook` added first (before the route's own) or last. */
export function withRouteHook<T>(existing: T | T[] | undefined, hook: T, where: 'first' | 'last'): T[] {
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  return where === 'first' ? [hook, ...list] : [...list, hook];
}
