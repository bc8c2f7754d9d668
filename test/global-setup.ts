// Vitest global setup, run once per `vitest run` before any test file:
// - one id per run, handed to every test file (`inject('testRunId')`), so work that every file of a
//   run may ask for but one is enough for (the dashboard build) is done once between the workers;
// - the program compiled once (`inject('programMain')`): the tests that start `vexil` as a child
//   process run plain JavaScript, as an operator's `node dist/main.js` does, instead of compiling the
//   TypeScript again in each of the hundred-odd processes they start.

import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    testRunId: string;
    /** The compiled program's entry point: `node <programMain> serve`. */
    programMain: string;
  }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  const runId = randomUUID();
  // One level below the root, as dist/ is: the program finds proto/, ui/dist/ and package.json by
  // paths relative to its own modules.
  const outdir = join(ROOT, `.test-program-${runId.slice(0, 8)}`);
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(ROOT, 'src', file));
  // The same transform tsx applies (esbuild with the project's tsconfig), once for every file.
  await build({
    entryPoints: sources,
    outdir,
    outbase: join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  project.provide('testRunId', runId);
  project.provide('programMain', join(outdir, 'main.js'));
  return () => rmSync(outdir, { recursive: true, force: true });
}
