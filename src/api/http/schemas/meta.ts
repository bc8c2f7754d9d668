// Shapes of GET /meta/info and GET /meta/config (Flipt's `internal/info/flipt.go` and its effective
// config), and the mapping of the effective config to Flipt's camelCase JSON keys.

import Type, { type Static, type TSchema } from 'typebox';
import { ConfigSchema } from '../../../config/schema.js';

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

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

type Json = Record<string, unknown>;

/**
 * The config with the keys the schema defines in camelCase (`server.http_port` → `server.httpPort`, as
 * Flipt's JSON tags give them); keys of free-form maps (token metadata, Flipt-only sections) are kept
 * as written, and removed secrets (undefined) are dropped.
 */
export function configToWire(value: unknown, schema: TSchema | undefined = ConfigSchema): unknown {
  if (Array.isArray(value)) return value.map((item) => configToWire(item, undefined));
  if (typeof value !== 'object' || value === null) return value;
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties;
  const out: Json = {};
  for (const [key, child] of Object.entries(value as Json)) {
    if (child === undefined) continue;
    const childSchema = properties?.[key];
    out[properties && childSchema ? camelCase(key) : key] = configToWire(child, childSchema);
  }
  return out;
}
