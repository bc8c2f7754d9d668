// Import and export of Flipt's document format (issue 26). An import run — every document of every
// source — is one transaction: all of it is written, with the revision of every namespace it touched
// bumped, or nothing is (ADR 0020). A dry run is the same run rolled back at the end, so it reports
// exactly what the real one would do, including what only the database can tell. Seeding is an
// import with --skip-existing semantics, applied under the operation lock and only when its content
// hash differs from the one recorded in the database.

import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChangeActor } from '../domain/changes.js';
import { NotFoundError } from '../domain/errors.js';
import type { NamespaceContent } from '../domain/namespace-content.js';
import { VERSION } from '../runtime/version.js';
import type { DocumentStore } from '../storage/documents.js';
import { withCheckpointOffThread } from '../storage/sqlite-checkpoint.js';
import type { NamespaceStore, OperationLockStore } from '../storage/store.js';
import { bumpRevision, type Tx } from '../storage/transaction.js';
import { UNSTORABLE_REASON } from '../storage/unstorable-text.js';
import type { ChangeRecorder } from './change-recorder.js';
import { withLine } from './documents/error-line.js';
import { DocumentError, keyed } from './documents/errors.js';
import { type DocumentFormat, parseDocuments } from './documents/parse.js';
import { parseSourcesOffThread } from './documents/parse-off-thread.js';
import { serializeNamespaces } from './documents/serialize.js';
import { type ParsedDocument, readDocuments } from './documents/validate.js';
import { unstorableTextPath } from './validation.js';
import { recordedTransaction, type WriteContext } from './write.js';

export interface ImportOptions {
  /** Leave flags and segments whose keys exist as they are (else an existing key is an error). */
  skipExisting?: boolean;
  /** Delete every namespace first and create `default` again, inside the import's transaction. */
  drop?: boolean;
  /** Do everything, report it, and roll it back. */
  dryRun?: boolean;
  /** Who the changes are recorded as (default: the request's actor). */
  actor?: ChangeActor;
}

/** Seeding happens at start, as the bootstrap token does. */
const SEED_ACTOR: ChangeActor = { authentication: 'bootstrap' };

export interface ImportEntry {
  namespace: string;
  type: 'namespace' | 'flag' | 'segment';
  key: string;
}

export interface ImportResult {
  created: ImportEntry[];
  skipped: ImportEntry[];
  dropped: ImportEntry[];
}

/** One file, stdin or request body. */
export interface ImportSource {
  /** Named in errors: a file name, `stdin`, `request body`. */
  name: string;
  text: string;
  format: DocumentFormat;
}

export interface ExportOptions {
  format: DocumentFormat;
  sortByKey?: boolean;
  /** The keys are every namespace: with sortByKey they are written sorted by key (as Flipt does). */
  allNamespaces?: boolean;
  /** Head the text with the `# exported by …` line and a blank line (Flipt does so for a file only). */
  header?: boolean;
}

/** Who an export's header line names. */
export const EXPORT_PRODUCER = `Vexil (v${VERSION})`;

/** The operation_lock row seeding instances queue on. */
export const SEED_OPERATION = 'seed';

/** Parses and checks every document of the sources (pure); the first problem is a DocumentError. */
export function parseSources(sources: ImportSource[]): ParsedDocument[] {
  const out: ParsedDocument[] = [];
  try {
    for (const source of sources) {
      out.push(...readDocuments(parseDocuments(source.text, source.format, source.name), source.name, source.format));
    }
  } catch (err) {
    throw withLine(err, sources);
  }
  return out;
}

/**
 * Sources of at most this many characters in all are read on the caller's thread: js-yaml reads
 * 256 Ki characters of flags in about 10 ms, while a worker takes longer to start (and, run from the
 * TypeScript sources, seconds to load them).
 */
export const ON_THREAD_MAX_CHARS = 256 * 1024;

/** Items an import handles between two event-loop turns. */
const ITEMS_PER_TURN = 500;

/**
 * Calls `fn` on each item in order, with an event-loop turn after every ITEMS_PER_TURN items, until
 * one answers something other than undefined; resolves with that answer.
 */
async function firstInTurns<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => R | undefined,
): Promise<R | undefined> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % ITEMS_PER_TURN === 0) await nextTurn();
    const found = fn(items[i] as T, i);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Thrown inside a dry run's transaction to roll it back with its report. */
class DryRunRollback extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run');
  }
}

export class ImportExportService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly documents: DocumentStore,
    private readonly namespaces: NamespaceStore,
    private readonly locks: OperationLockStore,
  ) {}

  /**
   * Parses and checks every document of the sources; the first problem is a DocumentError. A large
   * import is read on a worker thread, so it does not hold the event loop (ADR 0034); a small one here,
   * where it takes a few milliseconds, less than starting a worker does.
   */
  async parse(sources: ImportSource[]): Promise<ParsedDocument[]> {
    let chars = 0;
    for (const source of sources) chars += source.text.length;
    return chars <= ON_THREAD_MAX_CHARS ? parseSources(sources) : parseSourcesOffThread(sources);
  }

  async importSources(sources: ImportSource[], options: ImportOptions = {}): Promise<ImportResult> {
    const docs = await this.parse(sources);
    try {
      return await this.import(docs, options);
    } catch (err) {
      // An error of the import itself (a segment not found, a key not unique) gets its YAML line too.
      throw withLine(err, sources);
    }
  }

  async import(docs: ParsedDocument[], options: ImportOptions = {}): Promise<ImportResult> {
    let touched = new Set<string>();
    try {
      // One batch id for every change of the run, so its changes can be listed (and reverted) together.
      const recording = { batch: randomUUID(), ...(options.actor ? { actor: options.actor } : {}) };
      const write = () =>
        recordedTransaction(
          this.ctx,
          async (tx, changes) => {
            touched = new Set();
            const result = await this.apply(tx, docs, options, touched, changes);
            if (options.dryRun) throw new DryRunRollback(result);
            return result;
          },
          recording,
        );
      // A dry run commits nothing, so leaves nothing to checkpoint.
      const result = await (options.dryRun ? write() : withCheckpointOffThread(this.ctx.db, write));
      for (const ns of touched) this.ctx.changes.publish(ns);
      return result;
    } catch (err) {
      if (err instanceof DryRunRollback) return err.result;
      throw err;
    }
  }

  /**
   * Applies a seed unless the database records `hash` as the seed last applied under `name`; under the
   * seed's operation lock, so instances starting together apply it once. Undefined when up to date.
   */
  async seed(name: string, hash: string, docs: ParsedDocument[]): Promise<ImportResult | undefined> {
    await this.locks.ensureRow(this.ctx.db, SEED_OPERATION);
    let touched = new Set<string>();
    const result = await withCheckpointOffThread(this.ctx.db, () =>
      recordedTransaction(
        this.ctx,
        async (tx, changes) => {
          touched = new Set();
          await this.locks.lockRow(tx, SEED_OPERATION);
          if ((await this.documents.seedHash(tx, name)) === hash) return undefined;
          const result = await this.apply(tx, docs, { skipExisting: true }, touched, changes);
          await this.documents.recordSeed(tx, name, hash);
          return result;
        },
        { batch: randomUUID(), actor: SEED_ACTOR },
      ),
    );
    for (const ns of touched) this.ctx.changes.publish(ns);
    return result;
  }

  private async apply(
    tx: Tx,
    docs: ParsedDocument[],
    options: ImportOptions,
    touched: Set<string>,
    changes: ChangeRecorder,
  ): Promise<ImportResult> {
    const result: ImportResult = { created: [], skipped: [], dropped: [] };
    if (options.drop) {
      // What a drop removes is recorded per namespace, as its content in the document form.
      const dropped = new Map<string, NamespaceContent>();
      for (const key of await this.documents.namespaceKeys(tx)) {
        const content = await this.documents.readIn(tx, key);
        if (content) dropped.set(key, content);
      }
      for (const key of await this.documents.dropAll(tx)) {
        result.dropped.push({ namespace: key, type: 'namespace', key });
        touched.add(key);
        const before = dropped.get(key);
        changes.record({ namespaceKey: key, resourceType: 'namespace', resourceKey: key, action: 'deleted', before });
      }
    }
    for (const doc of docs) {
      const { namespace, flags, segments } = doc.content;
      const ns = namespace.key;
      const fail = (path: string, reason: string): never => {
        throw new DocumentError(doc.source, doc.index, path, reason);
      };
      // Object by object, with event-loop turns between steps (ADR 0034): 100,000 flags are
      // seconds of work that /health and evaluations must not wait behind.
      const unstorable =
        unstorableTextPath(namespace, 'namespace') ??
        (await firstInTurns(flags, (f, i) => unstorableTextPath(f, keyed(`flags[${i}]`, f.key)))) ??
        (await firstInTurns(segments, (s, i) => unstorableTextPath(s, keyed(`segments[${i}]`, s.key))));
      if (unstorable !== undefined) fail(unstorable, UNSTORABLE_REASON);
      if (!(await this.namespaces.find(tx, ns))) {
        const after = await this.namespaces.insert(tx, namespace);
        result.created.push({ namespace: ns, type: 'namespace', key: ns });
        changes.record({ namespaceKey: ns, resourceType: 'namespace', resourceKey: ns, action: 'created', after });
      }
      touched.add(ns);
      const existing = await this.documents.existingKeys(tx, ns);
      const newFlags = flags.filter((f, i) => {
        if (!existing.flags.has(f.key)) return true;
        if (!options.skipExisting) fail(`${keyed(`flags[${i}]`, f.key)}.key`, `flag "${ns}/${f.key}" is not unique`);
        result.skipped.push({ namespace: ns, type: 'flag', key: f.key });
        return false;
      });
      const newSegments = segments.filter((s, i) => {
        if (!existing.segments.has(s.key)) return true;
        if (!options.skipExisting)
          fail(`${keyed(`segments[${i}]`, s.key)}.key`, `segment "${ns}/${s.key}" is not unique`);
        result.skipped.push({ namespace: ns, type: 'segment', key: s.key });
        return false;
      });
      const available = new Set([...existing.segments, ...segments.map((s) => s.key)]);
      flags.forEach((f, i) => {
        if (existing.flags.has(f.key)) return;
        f.rules.forEach((r, j) => {
          for (const key of r.segmentKeys) {
            if (!available.has(key))
              fail(
                `${keyed(`flags[${i}]`, f.key)}.rules[${j}].segment`,
                `segment "${key}" not found in namespace "${ns}"`,
              );
          }
        });
        f.rollouts.forEach((r, j) => {
          for (const key of r.segment?.segmentKeys ?? []) {
            if (!available.has(key))
              fail(
                `${keyed(`flags[${i}]`, f.key)}.rollouts[${j}].segment`,
                `segment "${key}" not found in namespace "${ns}"`,
              );
          }
        });
      });
      await this.documents.insert(tx, ns, { flags: newFlags, segments: newSegments });
      // An import's "after" is the object as the document gave it: reading thousands of flags back
      // through the API's reads would cost more than the import itself.
      await firstInTurns(newFlags, (f) => {
        result.created.push({ namespace: ns, type: 'flag', key: f.key });
        changes.record({ namespaceKey: ns, resourceType: 'flag', resourceKey: f.key, action: 'created', after: f });
      });
      await firstInTurns(newSegments, (s) => {
        result.created.push({ namespace: ns, type: 'segment', key: s.key });
        changes.record({ namespaceKey: ns, resourceType: 'segment', resourceKey: s.key, action: 'created', after: s });
      });
    }
    for (const ns of touched) await bumpRevision(tx, ns);
    return result;
  }

  /** Every namespace key, in creation order. */
  namespaceKeys(): Promise<string[]> {
    return this.documents.namespaceKeys(this.ctx.db);
  }

  /** The namespaces' content, each read consistently; NotFound for a namespace that does not exist. */
  async read(namespaceKeys: string[]): Promise<NamespaceContent[]> {
    const out: NamespaceContent[] = [];
    for (const key of namespaceKeys) {
      const content = await this.documents.read(this.ctx.db, key);
      if (!content) throw new NotFoundError(`namespace "${key}"`);
      out.push(content);
    }
    return out;
  }

  /** The namespaces as Flipt's exporter writes them (one document each). */
  async export(namespaceKeys: string[], options: ExportOptions): Promise<string> {
    const contents = await this.read(namespaceKeys);
    const { header, ...rest } = options;
    return serializeNamespaces(contents, { ...rest, ...(header ? { header: EXPORT_PRODUCER } : {}) });
  }
}
