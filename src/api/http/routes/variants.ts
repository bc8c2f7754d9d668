// /api/v1/namespaces/{ns}/flags/{flagKey}/variants: create, update, delete (no get or list: flags
// embed their variants), plus the legacy routes without the namespace prefix.

import Type from 'typebox';
import type { HttpApp } from '../http-app.js';
import { EmptySchema, errorResponses } from '../schemas/common.js';
import { VariantBody, VariantSchema, variantToWire } from '../schemas/flags.js';
import type { RouteDeps } from './deps.js';
import { NamespaceOnlyQuery, namespaceOf, queryNamespace, withLegacy } from './route-helpers.js';

const tags = ['variants'];

const FlagParams = Type.Object({ namespaceKey: Type.Optional(Type.String()), flagKey: Type.String() });
const VariantParams = Type.Object({
  namespaceKey: Type.Optional(Type.String()),
  flagKey: Type.String(),
  id: Type.String(),
});

export async function variantRoutes(app: HttpApp, { services }: RouteDeps): Promise<void> {
  const { variants } = services;

  for (const { url, legacy } of withLegacy('/flags/:flagKey/variants')) {
    app.post(
      url,
      {
        config: { kind: 'management', access: { resource: 'variant', action: 'create', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: FlagParams,
          body: VariantBody,
          response: { 200: VariantSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const variant = await variants.create(namespaceOf(request.params, body), request.params.flagKey, {
          key: body.key ?? undefined,
          name: body.name,
          description: body.description,
          attachment: body.attachment,
        });
        return variantToWire(variant);
      },
    );
  }

  for (const { url, legacy } of withLegacy('/flags/:flagKey/variants/:id')) {
    app.put(
      url,
      {
        config: { kind: 'management', access: { resource: 'variant', action: 'update', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: VariantParams,
          body: VariantBody,
          response: { 200: VariantSchema, ...errorResponses },
        },
      },
      async (request) => {
        const body = request.body ?? {};
        const { flagKey, id } = request.params;
        const variant = await variants.update(namespaceOf(request.params, body), flagKey, id, {
          key: body.key ?? undefined,
          name: body.name,
          description: body.description,
          attachment: body.attachment,
        });
        return variantToWire(variant);
      },
    );

    app.delete(
      url,
      {
        config: { kind: 'management', access: { resource: 'variant', action: 'delete', namespace: 'request' } },
        schema: {
          tags,
          hide: legacy,
          params: VariantParams,
          querystring: NamespaceOnlyQuery,
          response: { 200: EmptySchema, ...errorResponses },
        },
      },
      async (request) => {
        const { flagKey, id } = request.params;
        await variants.delete(namespaceOf(request.params, queryNamespace(request.query)), flagKey, id);
        return {};
      },
    );
  }
}
