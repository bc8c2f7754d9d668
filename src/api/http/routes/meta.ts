// GET /meta/info (version, build, whether authentication is required, storage type, read-only) and
// GET /meta/config (the effective configuration without secrets), as Flipt serves them: the documents
// of api/meta-documents.ts (gRPC's MetadataService sends the same), written once, sent as
// `Content-Type: application/json` exactly, as Flipt answers. Authentication: the `meta` kind
// (required whenever `authentication.required` is true).

import type { Access } from '../../../auth/access.js';
import { metaDocuments } from '../../meta-documents.js';
import type { HttpApp } from '../http-app.js';
import { errorResponses } from '../schemas/common.js';
import { MetaConfigSchema, MetaInfoSchema } from '../schemas/meta.js';
import type { RouteDeps } from './deps.js';
import { sendExactJson } from './route-helpers.js';

const tags = ['meta'];
const META_READ: Access = { resource: 'meta', action: 'read', namespace: 'none' };

export async function metaRoutes(app: HttpApp, { config }: RouteDeps): Promise<void> {
  const documents = metaDocuments(config);
  // The schemas describe the documents for OpenAPI; the text is already JSON, sent as it is.

  app.get(
    '/meta/info',
    {
      config: { kind: 'meta', access: META_READ },
      schema: { tags, response: { 200: MetaInfoSchema, ...errorResponses } },
    },
    (_request, reply) => {
      sendExactJson(reply, documents.info);
    },
  );
  app.get(
    '/meta/config',
    {
      config: { kind: 'meta', access: META_READ },
      schema: { tags, response: { 200: MetaConfigSchema, ...errorResponses } },
    },
    (_request, reply) => {
      sendExactJson(reply, documents.config);
    },
  );
}
