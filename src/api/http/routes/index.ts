// Every route module of the HTTP API, registered in one place.

import { managementRoutes } from '../../operations/index.js';
import type { HttpApp } from '../http-app.js';
import { authRoutes } from './auth.js';
import { kubernetesRoutes } from './auth-kubernetes.js';
import { signInRoutes } from './auth-sign-in.js';
import { changeRoutes } from './changes.js';
import type { RouteDeps } from './deps.js';
import { evaluationRoutes } from './evaluation.js';
import { healthRoutes } from './health.js';
import { importExportRoutes } from './import-export.js';
import { legacyEvaluateRoutes } from './legacy-evaluate.js';
import { metaRoutes } from './meta.js';
import { metricsRoutes } from './metrics.js';
import { ofrepRoutes } from './ofrep.js';
import { snapshotRoutes } from './snapshot.js';
import { uiRoutes } from './ui.js';

export const routeModules: ((app: HttpApp, deps: RouteDeps) => Promise<void>)[] = [
  healthRoutes,
  managementRoutes,
  importExportRoutes,
  changeRoutes,
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

export async function registerRoutes(app: HttpApp, deps: RouteDeps): Promise<void> {
  for (const register of routeModules) await register(app, deps);
}
