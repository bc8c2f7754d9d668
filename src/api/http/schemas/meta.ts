// Shapes of GET /meta/info and GET /meta/config (Flipt's `internal/info/flipt.go` and its effective
// config), for the OpenAPI document; the documents themselves are written by api/meta-documents.ts.

import Type, { type Static } from 'typebox';

/** Flipt's info document; `goVersion` becomes `nodeVersion` (the runtime that serves it). */
export const MetaInfoSchema = Type.Object(
  {
    version: Type.String(),
    latestVersion: Type.Optional(Type.String()),
    latestVersionURL: Type.Optional(Type.String()),
    commit: Type.String(),
    buildDate: Type.String(),
    nodeVersion: Type.String(),
    updateAvailable: Type.Boolean(),
    isRelease: Type.Boolean(),
    os: Type.String(),
    arch: Type.String(),
    authentication: Type.Object({ required: Type.Boolean() }),
    storage: Type.Object({ type: Type.String(), readOnly: Type.Optional(Type.Boolean()) }),
    analytics: Type.Object({ enabled: Type.Optional(Type.Boolean()) }),
    ui: Type.Object({ theme: Type.String(), topbarColor: Type.Optional(Type.String()) }),
  },
  { description: 'Version, build and the settings a client needs to know' },
);

export type MetaInfo = Static<typeof MetaInfoSchema>;

/** The effective configuration, secrets removed, keys in camelCase (free-form for the schema). */
export const MetaConfigSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: 'The effective configuration with every secret removed',
});
