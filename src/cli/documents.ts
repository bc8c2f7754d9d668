// `vexil import` and `vexil export`: Flipt's document format, against the database named by the config
// or, with --address, a running server over its HTTP API (the same routes the dashboard uses). Every
// expected failure is one line on stderr and exit code 1.

import { readFileSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError as CommanderArgumentError } from 'commander';
import { migrateToLatest } from '../app/migrations.js';
import { ConfigError, loadConfig, ms } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { DomainError } from '../domain/errors.js';
import { DEFAULT_NAMESPACE } from '../domain/types.js';
import { ChangeFeed } from '../services/changes.js';
import { type DocumentFormat, formatOfFileName, sniffFormat } from '../services/documents/parse.js';
import { requireImportSize } from '../services/documents/parse-off-thread.js';
import { serializeNamespaces } from '../services/documents/serialize.js';
import {
  EXPORT_PRODUCER,
  ImportExportService,
  type ImportResult,
  type ImportSource,
  parseSources,
} from '../services/import-export.js';
import { actingAs, CLI_ACTOR } from '../services/write.js';
import { DbUrlError, openDb, waitForDb } from '../storage/db.js';
import { sqlDocumentStore } from '../storage/documents.js';
import { sqlNamespaceStore } from '../storage/namespaces.js';
import { sqlOperationLockStore } from '../storage/operation-lock.js';
import { grpcNamespaceContents, grpcNamespaceKeys } from './grpc-export.js';

export interface RemoteOptions {
  address?: string;
  token?: string;
}

export interface ExportOptions extends RemoteOptions {
  namespaces?: string;
  namespace?: string;
  allNamespaces?: boolean;
  output?: string;
  format?: string;
  sortByKey?: boolean;
}

export interface ImportOptions extends RemoteOptions {
  stdin?: boolean;
  skipExisting?: boolean;
  drop?: boolean;
  dryRun?: boolean;
}

/** Runs `work` with the import/export service on the configured database (migrated first, as `serve` does). */
async function withDocuments<T>(config: Config, work: (service: ImportExportService) => Promise<T>): Promise<T> {
  const db = openDb({ url: config.db.url });
  try {
    await waitForDb(db, ms(config.db.connect_timeout));
    await migrateToLatest(db.kysely, db.dialect);
    const service = new ImportExportService(
      // Running servers see the bumped revisions when they poll (cache.poll_interval).
      { db: db.kysely, changes: new ChangeFeed() },
      sqlDocumentStore(db.dialect),
      sqlNamespaceStore,
      sqlOperationLockStore,
    );
    return await work(service);
  } finally {
    await db.close();
  }
}

/** The base URL of an http(s) --address (export also takes grpc://, grpc-export.ts). */
function remoteBase(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new CommanderArgumentError(`--address must be a URL such as http://127.0.0.1:8080, got "${address}"`);
  }
  if (url.protocol === 'grpc:' || url.protocol === 'grpcs:') {
    throw new CommanderArgumentError(
      "import --address takes http(s):// (Flipt's gRPC API has no import call, so an import over it could not be one transaction)",
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CommanderArgumentError(`--address must be http:// or https://, got "${address}"`);
  }
  return address.replace(/\/+$/, '');
}

async function remote(options: RemoteOptions, path: string, init: RequestInit = {}): Promise<string> {
  const base = remoteBase(options.address as string);
  const headers = new Headers(init.headers);
  if (options.token) headers.set('authorization', `Bearer ${options.token}`);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { ...init, headers });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new Error(`cannot reach ${base}: ${cause}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // not Flipt's error body: show the text as it came
    }
    throw new Error(`${base} answered ${response.status}: ${message}`);
  }
  return text;
}

/** grpc://host:port (plaintext; grpcs:// is not served by this client). */
function isGrpcAddress(address: string): boolean {
  if (address.startsWith('grpcs://')) {
    throw new CommanderArgumentError(
      'export --address takes grpc:// (plaintext) or http(s)://; grpcs:// is not supported',
    );
  }
  return address.startsWith('grpc://');
}

function exportFormat(options: ExportOptions): DocumentFormat {
  if (options.format !== undefined) {
    if (options.format !== 'yaml' && options.format !== 'json') {
      throw new CommanderArgumentError(`--format takes yaml or json, got "${options.format}"`);
    }
    return options.format;
  }
  return (options.output && formatOfFileName(options.output)) || 'yaml';
}

export async function exportCommand(config: () => Config, options: ExportOptions): Promise<string> {
  const format = exportFormat(options);
  if (options.allNamespaces && (options.namespaces || options.namespace)) {
    throw new CommanderArgumentError('give --namespaces or --all-namespaces, not both');
  }
  const listed = (options.namespaces ?? options.namespace ?? DEFAULT_NAMESPACE)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // As Flipt's: the header only in a file; with every namespace and --sort-by-key, namespaces by key too.
  const how = {
    format,
    sortByKey: options.sortByKey ?? false,
    allNamespaces: options.allNamespaces ?? false,
  };
  const header = options.output ? { header: EXPORT_PRODUCER } : {};
  let text: string;
  if (options.address && isGrpcAddress(options.address)) {
    const keys = options.allNamespaces ? await grpcNamespaceKeys(options.address, options.token) : listed;
    const contents = await grpcNamespaceContents(options.address, options.token, keys);
    text = serializeNamespaces(contents, { ...how, ...header });
  } else if (options.address) {
    // Each namespace as JSON from the server, read back and written here, so the file is the same
    // whichever side wrote it.
    const paths = options.allNamespaces
      ? [`/api/v1/namespaces/${DEFAULT_NAMESPACE}/export?all=true&format=json`]
      : listed.map((ns) => `/api/v1/namespaces/${encodeURIComponent(ns)}/export?format=json`);
    const sources: ImportSource[] = [];
    for (const path of paths) sources.push({ name: path, text: await remote(options, path), format: 'json' });
    const contents = parseSources(sources).map((d) => d.content);
    text = serializeNamespaces(contents, { ...how, ...header });
  } else {
    text = await withDocuments(config(), async (service) => {
      const keys = options.allNamespaces ? await service.namespaceKeys() : listed;
      return service.export(keys, { ...how, header: options.output !== undefined });
    });
  }
  if (options.output) {
    writeFileSync(options.output, text);
    return '';
  }
  return text;
}

/** The sources of an import: the files given, or stdin. */
export function importSources(files: string[], options: ImportOptions, stdin: () => string): ImportSource[] {
  if (options.stdin && files.length > 0) throw new CommanderArgumentError('give files or --stdin, not both');
  if (options.stdin) {
    const text = stdin();
    return [{ name: 'stdin', text, format: sniffFormat(text) }];
  }
  if (files.length === 0) throw new CommanderArgumentError('give a file to import, or --stdin');
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return { name: file, text, format: formatOfFileName(file) ?? sniffFormat(text) };
  });
}

function entryLine(verb: string, e: ImportResult['created'][number]): string {
  return `${verb} ${e.type} ${e.type === 'namespace' ? e.key : `${e.namespace}/${e.key}`}`;
}

export function describeResult(result: ImportResult, dryRun: boolean): string {
  const lines: string[] = [];
  if (dryRun) {
    for (const e of result.dropped) lines.push(entryLine('would drop', e));
    for (const e of result.created) lines.push(entryLine('would create', e));
    for (const e of result.skipped) lines.push(entryLine('would skip', e));
  }
  const count = (type: string, list: ImportResult['created']) => list.filter((e) => e.type === type).length;
  const summary = (list: ImportResult['created']) =>
    `${count('namespace', list)} namespaces, ${count('flag', list)} flags, ${count('segment', list)} segments`;
  lines.push(
    `${dryRun ? 'dry run, nothing changed: ' : ''}created ${summary(result.created)}; skipped ${count('flag', result.skipped)} flags, ${count('segment', result.skipped)} segments; dropped ${result.dropped.length} namespaces`,
  );
  return lines.join('\n');
}

export async function importCommand(
  config: () => Config,
  files: string[],
  options: ImportOptions,
  stdin: () => string = () => readFileSync(0, 'utf8'),
): Promise<string> {
  const sources = importSources(files, options, stdin);
  const flags = {
    skipExisting: options.skipExisting ?? false,
    drop: options.drop ?? false,
    dryRun: options.dryRun ?? false,
  };
  let result: ImportResult;
  if (options.address) {
    remoteBase(options.address);
    // Checked here first (errors name the files), then sent as one body: one run, one transaction.
    requireImportSize(sources);
    const body = serializeNamespaces(
      parseSources(sources).map((d) => d.content),
      { format: 'json' },
    );
    const query = new URLSearchParams({
      skip_existing: String(flags.skipExisting),
      drop: String(flags.drop),
      dry_run: String(flags.dryRun),
    });
    result = JSON.parse(
      await remote(options, `/api/v1/import?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    ) as ImportResult;
  } else {
    result = await withDocuments(config(), (service) =>
      actingAs(CLI_ACTOR, () => service.importSources(sources, flags)),
    );
  }
  return describeResult(result, flags.dryRun);
}

function describe(err: unknown): string {
  if (err instanceof ConfigError || err instanceof DbUrlError || err instanceof DomainError) return err.message;
  if (err instanceof CommanderArgumentError) return err.message;
  return (err as Error)?.message?.split('\n')[0] ?? String(err);
}

/** The `import` and `export` commands; `configFile` reads the program's global `--config` when they run. */
export function buildDocumentCommands(configFile: () => string | undefined): Command[] {
  const config = () => loadConfig({ ...(configFile() ? { file: configFile() } : {}) });
  const run = async (work: () => Promise<string>) => {
    try {
      const out = await work();
      if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    } catch (err) {
      process.stderr.write(`vexil: ${describe(err)}\n`);
      process.exitCode = 1;
    }
  };

  const exportCmd = new Command('export')
    .description("write namespaces as Flipt's document format (version 1.4)")
    .option('--namespaces <keys>', 'comma-separated namespaces to export (default: default)')
    .option('--namespace <key>', 'deprecated: use --namespaces')
    .option('--all-namespaces', 'export every namespace')
    .option('-o, --output <file>', 'write to this file, headed by an "# exported by" line (default: stdout, no header)')
    .option('--format <format>', 'yaml or json (default: from the file extension, else yaml)')
    .option(
      '--sort-by-key',
      'flags, segments and variants by key instead of creation order (namespaces too, with --all-namespaces)',
    )
    .option('--address <url>', 'export from a running server (http(s)://… or grpc://host:port) instead of the database')
    .option('--token <token>', 'API token for --address')
    .action((options: ExportOptions) => run(() => exportCommand(config, options)));

  const importCmd = new Command('import')
    .description('import Flipt documents (versions 1.0 to 1.4, YAML or JSON) in one transaction: all or nothing')
    .argument('[files...]', 'document files (.yml, .yaml, .json)')
    .option('--stdin', 'read the document from stdin')
    .option('--skip-existing', 'leave flags and segments that already exist as they are')
    .option('--drop', 'delete every namespace first (inside the same transaction)')
    .option('--dry-run', 'print what would be created, skipped and dropped; change nothing')
    .option('--address <url>', 'import into a running server (http(s)://…) instead of the database')
    .option('--token <token>', 'API token for --address')
    .action((files: string[], options: ImportOptions) => run(() => importCommand(config, files, options)));

  return [exportCmd, importCmd];
}
