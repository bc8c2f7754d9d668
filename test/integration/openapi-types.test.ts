// The dashboard's API types (ui/src/api/openapi.d.ts) are what scripts/openapi-types.ts generates from
// the server's /openapi.json today: a route or schema change without regenerating fails here (and
// `npm run build` regenerates them before compiling the dashboard).

import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { generate } from '../../scripts/openapi-types.js';
import { ROOT } from '../helpers/process.js';

it('ui/src/api/openapi.d.ts matches the server’s /openapi.json', async () => {
  const committed = readFileSync(`${ROOT}/ui/src/api/openapi.d.ts`, 'utf8');
  const generated = await generate();
  expect(generated).toBe(committed);
  // The management objects the dashboard imports by name are there.
  for (const name of ['Namespace', 'Flag', 'Variant', 'Rule', 'Distribution', 'Segment', 'Constraint', 'Rollout'])
    expect(generated).toContain(`        ${name}: {`);
}, 60_000);
