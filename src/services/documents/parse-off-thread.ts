// Reading an import's documents on a worker thread (ADR 0034). js-yaml and JSON.parse read a document
// in one synchronous call: a 50 MB document held the event loop for seconds, and with it /health and
// every evaluation (issue 36). The worker (parse-worker.ts) parses and checks the sources and hands
// the documents back a few hundred flags at a time, one piece per event-loop turn here. A worker is
// started per import and ends with it; its heap is bounded, so an import cannot take the process's
// memory with it.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { InvalidArgumentError } from '../../domain/errors.js';
import type { FlagContent, SegmentContent } from '../../domain/namespace-content.js';
import { DocumentError } from './errors.js';
import type { DocumentFormat } from './parse.js';
import type { ParsedDocument } from './validate.js';

/** The documents of one import (one request body, every file of one `vexil import`, a seed) at most. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/**
 * The worker's old-generation heap, in MB: a YAML document of MAX_IMPORT_BYTES (275,000 flags of a
 * few fields each) parses and checks within 640 MB; a document denser in objects than that may be
 * refused rather than take the process's memory (docs/performance.md).
 */
export const WORKER_HEAP_MB = 1024;

/** One source's text, as the worker receives it. */
export interface ImportSourceText {
  name: string;
  text: string;
  format: DocumentFormat;
}

/** What the worker sends: a document without its flags and segments, then those in pieces. */
export type WorkerPiece =
  | { kind: 'document'; document: ParsedDocument }
  | { kind: 'flags'; items: FlagContent[] }
  | { kind: 'segments'; items: SegmentContent[] }
  | { kind: 'document-error'; source: string; index: number; path: string; reason: string; line?: number }
  | { kind: 'done' };

/** Refuses sources over MAX_IMPORT_BYTES in all, naming the first (the HTTP route answers 413 before). */
export function requireImportSize(sources: ImportSourceText[]): void {
  let bytes = 0;
  for (const source of sources) {
    // UTF-16 length: at most the UTF-8 byte count, so only a text that may be over is counted in bytes.
    bytes += source.text.length * 3 <= MAX_IMPORT_BYTES ? source.text.length : Buffer.byteLength(source.text);
    if (bytes > MAX_IMPORT_BYTES) {
      throw new InvalidArgumentError(
        `${source.name}: the documents of one import may take ${MAX_IMPORT_BYTES / 1024 / 1024} MiB at most`,
      );
    }
  }
}

/** What the worker is started with: the sources without their text, which follows in slices. */
export interface WorkerSources {
  sources: Omit<ImportSourceText, 'text'>[];
}

/** A slice of a source's text, as the caller sends it; `'next'` asks for the next piece. */
export interface TextSlice {
  source: number;
  text: string;
}

/**
 * Characters of text per message. Cloning a message is a synchronous copy on the sender's thread:
 * the whole of a 50 MB document as the worker's data held the event loop 0.1–0.36 s (ADR 0042).
 */
const TEXT_SLICE_CHARS = 1024 * 1024;

function startWorker(sources: ImportSourceText[], heapMb: number): Worker {
  const workerData: WorkerSources = { sources: sources.map(({ name, format }) => ({ name, format })) };
  const options = { workerData, resourceLimits: { maxOldGenerationSizeMb: heapMb } };
  if (import.meta.url.endsWith('.ts')) {
    // Running from the TypeScript sources (tsx in development, the test runner): the worker loads them
    // through tsx as well. The compiled program starts the compiled worker.
    const entry = new URL('./parse-worker.ts', import.meta.url).href;
    const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(code, { ...options, eval: true });
  }
  return new Worker(new URL('./parse-worker.js', import.meta.url), options);
}

/**
 * Parses and checks every document of the sources on a worker thread; the first problem is a
 * DocumentError. `heapMb` bounds the worker's heap (WORKER_HEAP_MB; tests use less).
 */
export async function parseSourcesOffThread(
  sources: ImportSourceText[],
  heapMb = WORKER_HEAP_MB,
): Promise<ParsedDocument[]> {
  requireImportSize(sources);
  const worker = startWorker(sources, heapMb);
  const docs: ParsedDocument[] = [];
  try {
    return await new Promise<ParsedDocument[]>((resolve, reject) => {
      worker.on('message', (piece: WorkerPiece) => {
        const current = docs[docs.length - 1];
        switch (piece.kind) {
          case 'document':
            docs.push(piece.document);
            break;
          case 'flags':
            current?.content.flags.push(...piece.items);
            break;
          case 'segments':
            current?.content.segments.push(...piece.items);
            break;
          case 'document-error':
            reject(new DocumentError(piece.source, piece.index, piece.path, piece.reason, piece.line));
            return;
          case 'done':
            resolve(docs);
            return;
        }
        // The next piece only after a turn: what waits on the event loop is answered between pieces.
        void nextTurn().then(() => worker.postMessage('next'));
      });
      worker.on('error', (err: Error & { code?: string }) => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          const name = sources[0]?.name ?? 'import';
          reject(new DocumentError(name, 0, '', `too large to read within the ${heapMb} MB an import may take`));
        } else reject(err);
      });
      worker.on('exit', (code) => reject(new Error(`the import's reader stopped (exit code ${code})`)));
      void sendText(worker, sources).then(() => worker.postMessage('next'));
    });
  } finally {
    void worker.terminate();
  }
}

/** Sends the sources' text in slices, an event-loop turn after each; stops when the worker has stopped. */
async function sendText(worker: Worker, sources: ImportSourceText[]): Promise<void> {
  for (const [index, source] of sources.entries()) {
    for (let at = 0; at < source.text.length; at += TEXT_SLICE_CHARS) {
      if (worker.threadId === -1) return;
      const slice: TextSlice = { source: index, text: source.text.slice(at, at + TEXT_SLICE_CHARS) };
      worker.postMessage(slice);
      await nextTurn();
    }
  }
}
