// Adding a hook to one route from an onRoute hook (telemetry, tiers, the app's body and ?pretty
// hooks): a route's hooks of one phase may be absent, one function or a list.

import type { RouteOptions } from 'fastify';

/** The hook phases these modules add to. */
export type RouteHookPhase = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse';

/**
 * Adds `hook` to the route's hooks of `phase`, before the route's own ('first') or after them
 * ('last'). The hook must be a handler of that phase (Fastify's types of route hooks differ by
 * phase and by the route's generics, so the check is left to the caller's declared handler type).
 */
export function addRouteHook(
  route: RouteOptions,
  phase: RouteHookPhase,
  hook: (...args: never[]) => unknown,
  where: 'first' | 'last',
): void {
  const hooks = route as unknown as Record<RouteHookPhase, unknown>;
  const existing = hooks[phase];
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  hooks[phase] = where === 'first' ? [hook, ...list] : [...list, hook];
}
