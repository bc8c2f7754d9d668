// What the real program loads for its configuration. The drivers of the other databases (pg, mysql2),
// ioredis and the OpenTelemetry SDK and exporter are loaded only when the configuration uses them
// (storage/drivers.ts, cache/redis.ts, telemetry/tracing.ts): imported statically they added about
// 12 MiB to the resident memory of every server, and most run on one database, without Redis or tracing.
// The program runs as a child process with a preload that lists, at exit, every CommonJS module it
// loaded (all of these packages are CommonJS, also when imported from ES modules).

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startVexil } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'vexil-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Packages a server on the default configuration must never load. */
const OPTIONAL_PACKAGES = [
  'pg',
  'pg-pool',
  'mysql2',
  'ioredis',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace',
] as const;

function packagesOf(files: string[]): Set<string> {
  const packages = new Set<string>();
  for (const file of files) {
    const match = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)[/\\]/.exec(file);
    if (match?.[1]) packages.add(match[1].replace('\\', '/'));
  }
  return packages;
}

/**
 * Starts `vexil serve` with `env`, waits for /health, evaluates a flag (a snapshot load) and stops it
 * with SIGTERM; resolves with the packages the process had loaded by then.
 */
async function packagesLoadedBy(name: string, env: Record<string, string>): Promise<Set<string>> {
  const list = join(dir, `${name}.json`);
  const vexil = await startVexil(
    {
      VEXIL_DB_URL: `file:${join(dir, `${name}.db`)}`,
      VEXIL_LOG_LEVEL: 'error',
      VEXIL_TEST_LOADED_MODULES: list,
      ...env,
    },
    ['serve'],
    { nodeArgs: ['--require', join(ROOT, 'test/helpers/loaded-modules.cjs')] },
  );
  try {
    const created = await fetch(`${vexil.baseUrl}/api/v1/namespaces/default/flags`, {
      method: 'POST',
      body: JSON.stringify({ key: 'lazy', name: 'Lazy', type: 'BOOLEAN_FLAG_TYPE', enabled: true }),
    });
    expect(created.status).toBe(200);
    const evaluated = await fetch(`${vexil.baseUrl}/evaluate/v1/boolean`, {
      method: 'POST',
      body: JSON.stringify({ namespaceKey: 'default', flagKey: 'lazy', entityId: 'e1', context: {} }),
    });
    expect(await evaluated.json()).toMatchObject({ enabled: true, flagKey: 'lazy' });
  } finally {
    expect(await vexil.stop(), vexil.output()).toBe(0);
  }
  expect(existsSync(list), `no module list written: ${vexil.output()}`).toBe(true);
  return packagesOf(JSON.parse(readFileSync(list, 'utf8')) as string[]);
}

describe('modules the program loads', () => {
  it('loads no other database driver, no ioredis and no tracing SDK on the default configuration', async () => {
    const loaded = await packagesLoadedBy('default', {});
    // The list is the process's own: the SQLite driver and the OTel API it always uses are in it.
    expect(loaded).toContain('better-sqlite3');
    expect(loaded).toContain('@opentelemetry/api');
    expect(OPTIONAL_PACKAGES.filter((name) => loaded.has(name))).toEqual([]);
  });

  it('loads the tracing SDK and exporter when tracing is enabled', async () => {
    // A collector that accepts every export, so the program's shutdown flush does not wait on retries.
    const collector = createServer((req, res) => req.resume().on('end', () => res.end()));
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const address = collector.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    let loaded: Set<string>;
    try {
      loaded = await packagesLoadedBy('tracing', {
        VEXIL_TRACING_ENABLED: 'true',
        VEXIL_TRACING_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
    } finally {
      collector.close();
    }
    expect(loaded).toContain('@opentelemetry/exporter-trace-otlp-http');
    expect(loaded).toContain('@opentelemetry/sdk-trace-base');
    expect(loaded).not.toContain('pg');
    expect(loaded).not.toContain('ioredis');
  });
});
