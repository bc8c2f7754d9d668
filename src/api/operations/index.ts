// The table of management operations, in the order their routes are registered (the OpenAPI document
// lists them so), and the two registrars that read it: the HTTP routes and the flipt.Flipt RPC entries.

import type { Services } from '../../services/index.js';
import type { Rpc } from '../grpc/rpc.js';
import type { HttpApp } from '../http/http-app.js';
import { constraintOperations } from './constraints.js';
import { distributionOperations } from './distributions.js';
import { flagOperations } from './flags.js';
import { operationRpcs } from './grpc-rpcs.js';
import { registerOperationRoutes } from './http-routes.js';
import { namespaceOperations } from './namespaces.js';
import type { AnyOperation, RequestMessage } from './operation.js';
import { rolloutOperations } from './rollouts.js';
import { ruleOperations } from './rules.js';
import { segmentOperations } from './segments.js';
import { variantOperations } from './variants.js';

export const managementOperations: readonly AnyOperation[] = [
  ...namespaceOperations,
  ...flagOperations,
  ...variantOperations,
  ...ruleOperations,
  ...distributionOperations,
  ...segmentOperations,
  ...constraintOperations,
  ...rolloutOperations,
];

/** Every management route (a route module of api/http/routes/index.ts). */
export async function managementRoutes(app: HttpApp, { services }: { services: Services }): Promise<void> {
  registerOperationRoutes(app, services, managementOperations);
}

/** Every management method of flipt.Flipt. */
export function managementRpcs(services: Services): Rpc<RequestMessage>[] {
  return operationRpcs(services, managementOperations);
}
