// Every route module of the HTTP API, registered in one place.

import type { HttpApp } from '../app.js';
import type { RouteDeps } from './deps.js';
import { healthRoutes } from './health.js';
import { constraintRoutes } from './constraints.js';
import { flagRoutes } from './flags.js';
import { namespaceRoutes } from './namespaces.js';
import { rolloutRoutes } from './rollouts.js';
import { ruleRoutes } from './rules.js';
import { segmentRoutes } from './segments.js';
import { variantRoutes } from './variants.js';

export const routeModules: ((app: HttpApp, deps: RouteDeps) => Promise<void>)[] = [
  healthRoutes,
  namespaceRoutes,
  flagRoutes,
  variantRoutes,
  ruleRoutes,
  segmentRoutes,
  constraintRoutes,
  rolloutRoutes,
];

export async function registerRoutes(app: HttpApp, deps: RouteDeps): Promise<void> {
  for (const register of routeModules) await register(app, deps);
}
