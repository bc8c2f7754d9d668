// `--help` (or `-h`) for the bench and soak scripts: prints the script's header comment, which is where
// each script documents what it measures and its options, and exits before anything starts. One text
// for readers of the source and of the terminal, so the two cannot drift apart.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The leading `//` comment block of a source file, without the comment markers. */
export function headerComment(source: string): string {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** When the arguments ask for help, print the header comment of `scriptUrl` (import.meta.url) and exit. */
export function exitOnHelp(scriptUrl: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  process.stdout.write(headerComment(readFileSync(fileURLToPath(scriptUrl), 'utf8')));
  process.exit(0);
}
