// The two documents of Flipt's metadata API, shared by REST (GET /meta/info, /meta/config) and gRPC
// (flipt.meta.MetadataService GetInfo, GetConfiguration): the instance's information (Flipt's
// `internal/info/flipt.go`, with `goVersion` as `nodeVersion`) and its effective configuration without
// secrets, keys in Flipt's camelCase. Written once as JSON text: the config does not change while the
// process runs, and both transports send the same bytes as `application/json`.

import type { TSchema } from 'typebox';
import { redactConfig } from '../config/load.js';
import { type Config, ConfigSchema } from '../config/schema.js';
import { VERSION } from '../runtime/version.js';

/** The content type both transports answer these documents with, exactly (Flipt's; no charset). */
export const META_CONTENT_TYPE = 'application/json';

export interface MetaInfo {
  version: string;
  latestVersion?: string;
  latestVersionURL?: string;
  commit: string;
  buildDate: string;
  nodeVersion: string;
  updateAvailable: boolean;
  isRelease: boolean;
  os: string;
  arch: string;
  authentication: { required: boolean };
  storage: { type: string; readOnly?: boolean };
  analytics: { enabled?: boolean };
  ui: { theme: string; topbarColor?: string };
}

/** Go's names for the architectures, as Flipt reports them. */
const GO_ARCH: Record<string, string> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

function uiSettings(config: Config): MetaInfo['ui'] {
  const theme = config.ui.default_theme !== '' ? config.ui.default_theme : 'system';
  const color = config.ui.topbar.color;
  return color !== '' ? { theme, topbarColor: color } : { theme };
}

export function metaInfo(config: Config, env: NodeJS.ProcessEnv = process.env): MetaInfo {
  return {
    version: VERSION,
    // Set by the build that packages Vexil (e.g. a container image); empty when run from source.
    commit: env.VEXIL_BUILD_COMMIT ?? '',
    buildDate: env.VEXIL_BUILD_DATE ?? '',
    nodeVersion: process.version,
    updateAvailable: false,
    isRelease: VERSION !== '0.0.0' && !VERSION.includes('-'),
    os: process.platform,
    arch: GO_ARCH[process.arch] ?? process.arch,
    authentication: { required: config.authentication.required },
    storage: config.storage.read_only ? { type: config.storage.type, readOnly: true } : { type: config.storage.type },
    analytics: {},
    ui: uiSettings(config),
  };
}

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

export interface MetaDocuments {
  /** GET /meta/info, GetInfo. */
  info: string;
  /** GET /meta/config, GetConfiguration. */
  config: string;
}

/** Both documents as JSON text, for one process's config. */
export function metaDocuments(config: Config): MetaDocuments {
  return {
    info: JSON.stringify(metaInfo(config)),
    config: JSON.stringify(configToWire(redactConfig(config))),
  };
}
