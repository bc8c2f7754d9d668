// The import rules of docs/architecture.md (`.dependency-cruiser.cjs`), enforced: dependency-cruiser
// walks src/ and the dashboard's ui/src/ (type-only imports included) and every violation fails this test, named with its rule.
// The rules are also run on a small tree with forbidden imports of each kind, so a rule that stopped
// matching (a renamed folder, a broken pattern) fails here too instead of passing everything.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/process.js';

const CRUISER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: unknown[];
}

/** Runs dependency-cruiser on `src` and `ui/src` in `dir` with the project's rules; returns its violations. */
function violationsIn(dir: string): Violation[] {
  const run = spawnSync(
    process.execPath,
    [CRUISER, 'src', 'ui/src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (!run.stdout) throw new Error(`dependency-cruiser printed nothing: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations;
}

const label = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}`;

describe('import rules', () => {
  it('hold for every module of src/ and ui/src/', () => {
    expect(violationsIn(ROOT).map(label)).toEqual([]);
  }, 60_000);

  it('catch a forbidden import of each kind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-architecture-'));
    try {
      cpSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
      const files: Record<string, string> = {
        // An upward import: the engine reaching for the HTTP transport.
        'src/evaluation/engine.ts': "import { route } from '../api/http/route.js';\nexport const engine = route;\n",
        'src/api/http/route.ts': "import { grpcCall } from '../grpc/call.js';\nexport const route = grpcCall;\n",
        // The transports importing each other.
        'src/api/grpc/call.ts': 'export const grpcCall = 1;\n',
        // A circle inside one layer.
        'src/services/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'src/services/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
        // Siblings: the cache reaching into auth, and a layer importing an add-on.
        'src/cache/memory.ts': "import { token } from '../auth/token.js';\nexport const memory = token;\n",
        'src/auth/token.ts': "import { audit } from '../features/audit/log.js';\nexport const token = audit;\n",
        'src/features/audit/log.ts': 'export const audit = 1;\n',
        // A feature reaching into another, and a transport into a feature (a feature may use api, not
        // the other way round).
        'src/features/history/list.ts': "import { audit } from '../audit/log.js';\nexport const list = audit;\n",
        'src/api/http/changes.ts':
          "import { list } from '../../features/history/list.js';\nexport const changes = list;\n",
        // Telemetry importing a layer other than domain and config.
        'src/telemetry/metrics.ts': "import { memory } from '../cache/memory.js';\nexport const metrics = memory;\n",
        // A loose file at the root of src/.
        'src/helpers.ts': "import { audit } from './features/audit/log.js';\nexport const helper = audit;\n",
        // The dashboard: a shared component reaching up into a feature, the API client into lib, a
        // feature into the server's code, and a type-only circle between two features' modules.
        'ui/src/components/card.tsx': "import { page } from '../features/flags/page.js';\nexport const card = page;\n",
        'ui/src/api/client.ts': "import { format } from '../lib/format.js';\nexport const client = format;\n",
        'ui/src/lib/format.ts': 'export const format = 1;\n',
        'ui/src/features/flags/page.tsx':
          "import { engine } from '../../../../src/evaluation/engine.js';\nexport const page = engine;\n",
        'ui/src/features/console/a.ts': "import type { B } from './b.js';\nexport type A = B[];\n",
        'ui/src/features/console/b.ts': "import type { A } from './a.js';\nexport type B = { a: A };\n",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      const violations = violationsIn(dir);
      const rules = new Set(violations.map((v) => v.rule.name));
      expect(violations.some((v) => v.rule.name === 'no-circular' && v.from.startsWith('ui/src/'))).toBe(true);
      for (const rule of [
        'layer-evaluation',
        'api-transports-apart',
        'no-circular',
        'layer-cache',
        'only-app-imports-features',
        'features-apart',
        'layer-api',
        'layer-telemetry',
        'no-loose-files',
        'ui-layer-components',
        'ui-layer-api',
        'ui-apart-from-server',
      ]) {
        expect(rules, rule).toContain(rule);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
