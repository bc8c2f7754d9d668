// The program's Node options are written in three places that cannot import them (a shebang, an npm
// script) or that start the server themselves (the benchmark): they must not drift apart.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from './runtime-flags.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the Node options of the vexil program', () => {
  it('are in the shebang of main.ts, so the installed `vexil` command runs with them', () => {
    const shebang = read('src/main.ts').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });

  it('are in the start script, before the program', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.start).toContain(`node ${NODE_FLAGS.join(' ')} dist/main.js serve`);
  });

  it('are given to both servers the benchmark starts: Vexil and the bare ceiling', () => {
    const bench = read('bench/run.ts');
    expect(bench).toMatch(/import \{ NODE_FLAGS \} from '\.\.\/src\/runtime-flags\.js'/);
    expect(bench.match(/\[\.\.\.NODE_FLAGS, /g)).toHaveLength(2);
    expect(bench).toMatch(/\[\.\.\.NODE_FLAGS, \.\.\.profiling, '--import', 'tsx', 'bench\/bare-server\.ts'\]/);
  });

  it('are accepted by this Node.js and size the young generation', () => {
    // Two semi-spaces of the given size at most: new space never commits more than twice that.
    const out = execFileSync(
      process.execPath,
      [
        ...NODE_FLAGS,
        '-e',
        // Enough surviving allocation to grow new space to its limit (32 MiB with Node's default).
        `const a = []; for (let i = 0; i < 3e6; i++) a.push({ i });
         const s = require('v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
         process.stdout.write(String(s.space_size));`,
      ],
      { encoding: 'utf8' },
    );
    const semiSpaceMiB = Number(/--max-semi-space-size=(\d+)/.exec(NODE_FLAGS.join(' '))?.[1]);
    expect(Number(out)).toBeGreaterThan(0);
    expect(Number(out)).toBeLessThanOrEqual(2 * semiSpaceMiB * 1024 * 1024);
  });
});
