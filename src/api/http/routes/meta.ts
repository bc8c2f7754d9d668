// GET /meta/info (version, build, whether authentication is required, storage type, read-only) and
// GET /meta/config (the effective configuration without secrets), as Flipt serves them. Both are
// computed once: the config does not change while the process runs. Authentication: the `meta`
// group of auth/route-policy.ts (required whenever `authentication.required` is true).

import { redactConfig } from '../../../config/load.js';
import type { Config } from '../../../config/schema.js';
import { VERSION } from '../../../runtime/version.js';
import type { HttpApp } from '../http-app.js';
import { errorResponses } from '../schemas/common.js';
import { configToWire, MetaConfigSchema, type MetaInfo, MetaInfoSchema } from '../schemas/meta.js';
import type { RouteDeps } from './deps.js';

const tags = ['meta'];

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

export async function metaRoutes(app: HttpApp, { config }: RouteDeps): Promise<void> {
  const info = metaInfo(config);
  const effective = configToWire(redactConfig(config)) as Record<string, unknown>;

  app.get(
    '/meta/info',
    { config: { kind: 'meta' }, schema: { tags, response: { 200: MetaInfoSchema, ...errorResponses } } },
    async () => info,
  );
  app.get(
    '/meta/config',
    { config: { kind: 'meta' }, schema: { tags, response: { 200: MetaConfigSchema, ...errorResponses } } },
    async () => effective,
  );
}
