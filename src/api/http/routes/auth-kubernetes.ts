// POST /auth/v1/method/kubernetes/serviceaccount `{serviceAccountToken}` → `{clientToken, authentication}`
// (authentication.methods.kubernetes on; the route does not exist otherwise). An open route: the
// service-account token is the credential, verified against the cluster (auth/methods/kubernetes.ts).

import Type from 'typebox';
import type { HttpApp } from '../http-app.js';
import { CreateTokenResponseSchema, createdTokenToWire } from '../schemas/auth.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

export async function kubernetesRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  if (!services.auth.kubernetesEnabled) return;
  app.post(
    '/auth/v1/method/kubernetes/serviceaccount',
    {
      config: { kind: 'auth-methods', access: { resource: 'sign-in', action: 'create', namespace: 'none' } },
      schema: {
        tags: ['auth'],
        body: Type.Object({ serviceAccountToken: Type.Optional(Type.String()) }),
        response: { 200: CreateTokenResponseSchema, ...errorResponses },
      },
    },
    async (request) => createdTokenToWire(await services.auth.kubernetesLogin(request.body.serviceAccountToken ?? '')),
  );
}
