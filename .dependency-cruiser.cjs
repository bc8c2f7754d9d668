// The import rules of docs/architecture.md, checked by test/architecture.test.ts (so `npm test` fails
// on a forbidden import) and by `npx depcruise src`. Layers, from the top:
//
//   main → cli → app → features → api (http, grpc) → services → auth, cache → storage → evaluation → domain, config
//
// A module may import its own layer's folder and any layer below it, never one above or beside it.
// A feature (features/<name>/) may use api's registration types and helpers for its routes and RPCs,
// and is composed by app/ alone; features never import each other.
// telemetry may be imported from anywhere and imports only domain and config.
//
// The dashboard (ui/src) has layers of its own and shares no module with the server:
//
//   main.tsx, app.tsx → features → components → lib → api

/** Folders under src/ that each layer may import, besides its own folder and telemetry. */
const BELOW = {
  cli: ['app', 'api', 'services', 'auth', 'cache', 'storage', 'evaluation', 'domain', 'config', 'runtime'],
  app: ['api', 'services', 'features', 'auth', 'cache', 'storage', 'evaluation', 'domain', 'config', 'runtime'],
  api: ['services', 'auth', 'cache', 'storage', 'evaluation', 'domain', 'config', 'runtime'],
  services: ['auth', 'cache', 'storage', 'evaluation', 'domain', 'config', 'runtime'],
  features: ['api', 'services', 'auth', 'cache', 'storage', 'evaluation', 'domain', 'config', 'runtime'],
  auth: ['storage', 'evaluation', 'domain', 'config', 'runtime'],
  cache: ['storage', 'evaluation', 'domain', 'config', 'runtime'],
  storage: ['evaluation', 'domain', 'config', 'runtime'],
  evaluation: ['domain', 'config'],
  telemetry: ['domain', 'config'],
  config: ['domain'],
  domain: [],
  // Process-wide helpers: the version, Node's flags and version check, yielding to the event loop
  // while stepped work (evaluation/steps.ts) runs.
  runtime: ['evaluation', 'domain'],
};

const layerRules = Object.entries(BELOW).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only ${allowed.join(', ') || 'nothing else in src'} (and telemetry)`,
  severity: 'error',
  from: { path: `^src/${layer}/`, pathNot: '\\.test\\.tsx?$' },
  to: {
    path: '^src/',
    pathNot: [`^src/${layer}/`, ...allowed.map((folder) => `^src/${folder}/`), ...(layer === 'telemetry' ? [] : ['^src/telemetry/'])],
  },
}));

/** Folders under ui/src/ that each dashboard layer may import, besides its own folder. */
const UI_BELOW = {
  features: ['components', 'lib', 'api'],
  components: ['lib', 'api'],
  lib: ['api'],
  api: [],
};

const uiLayerRules = Object.entries(UI_BELOW).map(([layer, allowed]) => ({
  name: `ui-layer-${layer}`,
  comment: `ui/src/${layer} may import only ${allowed.join(', ') || 'nothing else in ui/src'}`,
  severity: 'error',
  from: { path: `^ui/src/${layer}/`, pathNot: '\\.test\\.tsx?$' },
  to: { path: '^ui/src/', pathNot: [`^ui/src/${layer}/`, ...allowed.map((folder) => `^ui/src/${folder}/`), '\\.css$'] },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import circle anywhere in src/ or ui/src/ (type-only imports included), but in the generated gRPC ' +
        "types: google.protobuf's Struct, Value and ListValue are recursive by definition",
      severity: 'error',
      from: { path: '^(src|ui/src)/', pathNot: '^src/api/grpc/generated/' },
      to: { circular: true },
    },
    {
      name: 'ui-apart-from-server',
      comment: 'The dashboard talks to the server over HTTP only: neither imports the other (types come from OpenAPI)',
      severity: 'error',
      from: { path: '^(src|ui/src)/' },
      to: { path: '^(src|ui)/', pathNot: '^$1/' },
    },
    {
      name: 'api-transports-apart',
      comment: 'The HTTP and gRPC transports share only what lies in api/ itself or below',
      severity: 'error',
      from: { path: '^src/api/(http|grpc)/' },
      to: { path: '^src/api/(http|grpc)/', pathNot: '^src/api/$1/' },
    },
    {
      name: 'only-app-imports-features',
      comment: 'Add-ons are wired by the composition root alone',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app/', '^src/features/'] },
      to: { path: '^src/features/' },
    },
    {
      name: 'features-apart',
      comment: 'A feature stands alone: what two features share lies below them, and app/ composes them',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/', pathNot: '^src/features/$1/' },
    },
    {
      name: 'no-loose-files',
      comment: 'Every module lives in a layer folder; only main.ts sits at the root of src/',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$', pathNot: '^src/main\\.ts$' },
      to: {},
    },
    {
      name: 'main-only-cli',
      comment: 'main.ts starts the CLI and the runtime checks, nothing else',
      severity: 'error',
      from: { path: '^src/main\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/cli/', '^src/runtime/'] },
    },
    ...layerRules,
    ...uiLayerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    includeOnly: '^(src|ui/src)/',
    // Type-only imports tie modules together as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
