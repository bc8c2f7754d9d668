// Every route module of the HTTP API, registered in one place; the features' routes (features/<name>/),
// which app/ passes in, come after the core's management routes. The order is the OpenAPI document's.

import { managementRoutes } from '../../operations/index.js';
import type { HttpApp } from '../http-app.js';
import { authRoutes } from './auth.js';
import { kubernetesRoutes } from './auth-kubernetes.js';
import { signInRoutes } from './auth-sign-in.js';
import type { RouteDeps, RouteModule } from './deps.js';
import { evaluationRoutes } from './evaluation.js';
import { healthRoutes } from './health.js';
import { importExportRoutes } from './import-export.js';
import { legacyEvaluateRoutes } from './legacy-evaluate.js';
import { metaRoutes } from './meta.js';
import { metricsRoutes } from './metrics.js';
import { ofrepRoutes } from './ofrep.js';
import { snapshotRoutes } from './snapshot.js';
import { uiRoutes } from './ui.js';

const BEFORE_FEATURES: readonly RouteModule[] = [healthRoutes, managementRoutes, importExportRoutes];

const AFTER_FEATURES: readonly RouteModule[] = [
  authRoutes,
  signInRoutes,
  kubernetesRoutes,
  metaRoutes,
  metricsRoutes,
  evaluationRoutes,
  legacyEvaluateRoutes,
  ofrepRoutes,
  snapshotRoutes,
  uiRoutes,
];

export async function registerRoutes(
  app: HttpApp,
  deps: RouteDeps,
  features: readonly RouteModule[] = [],
): Promise<void> {
  for (const register of [...BEFORE_FEATURES, ...features, ...AFTER_FEATURES]) await register(app, deps);
}
