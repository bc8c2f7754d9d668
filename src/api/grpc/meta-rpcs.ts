// flipt.meta.MetadataService: GetInfo and GetConfiguration answer google.api.HttpBody with the same
// JSON documents REST serves at /meta/info and /meta/config (api/meta-documents.ts), written once.
// Kind `meta`: authenticated whenever authentication is required (no exclude opens it; a
// namespace-scoped token is refused), as over REST and in Flipt; served on every tier.

import type { Access } from '../../auth/access.js';
import type { Config } from '../../config/schema.js';
import { META_CONTENT_TYPE, metaDocuments } from '../meta-documents.js';
import type { Rpc } from './rpc.js';

const META_READ: Access = { resource: 'meta', action: 'read', namespace: 'none' };

export function metaRpcs(config: Config): Rpc<never>[] {
  const documents = metaDocuments(config);
  const body = (text: string) => {
    const data = Buffer.from(text);
    // A new message per call: the answer's field names are renamed on the way out (field-case.ts).
    return () => ({ contentType: META_CONTENT_TYPE, data, extensions: [] });
  };
  return [
    { method: 'GetInfo', kind: 'meta', access: META_READ, handle: body(documents.info) },
    { method: 'GetConfiguration', kind: 'meta', access: META_READ, handle: body(documents.config) },
  ];
}
