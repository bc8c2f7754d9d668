// The `authorization.roles` example of the README's Roles section (Flipt's example Rego policies written
// as rules), as a config file: the config test loads it and the rules test matches identities against
// it, so the README's example is the one tested.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The README's YAML block that configures `authorization.roles`. */
export function readmeRolesYaml(): string {
  const blocks = [...readFileSync(README, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const roles = blocks.find((block) => block.startsWith('authorization:\n  roles:\n'));
  if (roles === undefined) throw new Error('README.md has no ```yaml block starting with authorization.roles');
  return roles;
}

/** That block written to a temporary file, for `loadConfig({ file })`. */
export function readmeRolesFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'vexil-readme-roles-')), 'config.yml');
  writeFileSync(file, readmeRolesYaml());
  return file;
}
