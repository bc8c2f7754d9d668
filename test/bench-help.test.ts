// Every bench and soak script answers `--help` (and `-h`) with its options and exits at once, instead of
// starting the run (`npm run soak -- --help` used to start a two-minute soak). Each script is run as
// its users run it, through tsx in a child process; a script that ignored the flag would start its
// work (servers, databases, minutes of load) and print no usage text.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headerComment } from '../bench/help.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each script, with a word its options text must name. */
const SCRIPTS: [script: string, names: string][] = [
  ['bench/run.ts', '--flags'],
  ['bench/run.ts', '--roles'],
  ['bench/soak.ts', '--duration'],
  ['bench/engine.ts', '--iterations'],
  ['bench/event-streams.ts', '--streams'],
  ['bench/import-export.ts', '[flags]'],
  ['bench/audit-delivery.ts', '[changes]'],
  ['bench/change-recording.ts', '[rounds]'],
  ['bench/transport-cost.ts', '--slices'],
];

describe.each(SCRIPTS)('%s', (script, names) => {
  it.each(['--help', '-h'])('%s prints the options and exits 0', (flag) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, flag], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, VEXIL_TEST_POSTGRES_URL: '', VEXIL_TEST_MYSQL_URL: '' },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(names);
    expect(run.stdout).not.toContain('//');
  });
});

it('headerComment reads the leading comment block only', () => {
  expect(headerComment('// One.\n//\n//   two\n\nimport x;\n// later\n')).toBe('One.\n\n  two\n');
});
