// Every route module of the HTTP API, registered in one place.

import type { HttpApp } from '../app.js';
import type { RouteDeps } from './deps.js';
import { healthRoutes } from './health.js';
import { namespaceRoutes } from './namespaces.js';

export const routeModules: ((app: HttpApp, deps: RouteDeps) => Promise<void>)[] = [healthRoutes, namespaceRoutes];

export async function registerRoutes(app: HttpApp, deps: RouteDeps): Promise<void> {
  for (const register of routeModules) await register(app, deps);
}
