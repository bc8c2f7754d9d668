// Seeding at start (`db.seed`): a document file, or a folder of them, imported with --skip-existing
// semantics so a development environment comes up with its flags. Only instances that may write and run
// leased jobs (jobs.leased; the seed is listed with them in app/jobs/list.ts, though it runs at start) seed;
// the import runs under the seed's operation lock (instances starting together seed once) and only
// when the files' content hash differs from the one the database recorded, so a restart never undoes
// a change made since, nor brings back a flag deleted since (ADR 0020). A bad seed stops start-up
// with one line (a ConfigError).

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { DomainError } from '../domain/errors.js';
import { withLine } from '../services/documents/error-line.js';
import { formatOfFileName, sniffFormat } from '../services/documents/parse.js';
import type { ImportExportService, ImportSource } from '../services/import-export.js';

/** The seed's files: the one file, or a folder's .yml, .yaml and .json files by name (not recursive). */
export function readSeedSources(path: string): ImportSource[] {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => formatOfFileName(name) !== undefined)
          .sort()
          .map((name) => join(path, name))
      : [path];
  } catch (err) {
    throw new ConfigError(`db.seed: cannot read "${path}": ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (files.length === 0) throw new ConfigError(`db.seed: "${path}" holds no .yml, .yaml or .json file`);
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`db.seed: cannot read "${file}": ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    return { name: file, text, format: formatOfFileName(file) ?? sniffFormat(text) };
  });
}

/** sha256 over the files' names and contents, in order. */
export function seedHash(sources: ImportSource[]): string {
  const hash = createHash('sha256');
  for (const s of sources) hash.update(s.name).update('\0').update(s.text).update('\0');
  return hash.digest('hex');
}

export type SeedOutcome = 'none' | 'not-writer' | 'up-to-date' | 'applied';

/** Applies `db.seed` when this instance may write and the seed changed; throws ConfigError when it is bad. */
export async function applySeed(documents: ImportExportService, config: Config, logger: Logger): Promise<SeedOutcome> {
  const path = config.db.seed;
  if (!path) return 'none';
  if (config.server.mode === 'read' || config.storage.read_only) {
    logger.info({ seed: path }, 'seed not applied: this instance does not write');
    return 'not-writer';
  }
  if (!config.jobs.leased) {
    logger.info({ seed: path }, 'seed not applied: this instance runs no leased jobs (jobs.leased: false)');
    return 'not-writer';
  }
  const sources = readSeedSources(path);
  try {
    const docs = await documents.parse(sources);
    const result = await documents.seed(path, seedHash(sources), docs);
    if (!result) {
      logger.info({ seed: path }, 'seed unchanged since it was applied');
      return 'up-to-date';
    }
    logger.info(
      { seed: path, created: result.created.length, skipped: result.skipped.length },
      'seed applied (existing flags and segments left as they are)',
    );
    return 'applied';
  } catch (thrown) {
    const err = withLine(thrown, sources);
    if (err instanceof DomainError) throw new ConfigError(`db.seed: ${err.message}`);
    throw err;
  }
}
