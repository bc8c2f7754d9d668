// The worker thread that reads an import's documents (parse-off-thread.ts starts it): it receives the
// sources' text in slices, parses and checks every source, as parseSources does on the caller's
// thread, then hands the documents back in pieces of PIECE_SIZE flags or segments, one piece each time
// the caller asks for the next, so that sending and receiving never hold the caller's event loop for
// long (ADR 0034, 0038).

import { parentPort, workerData } from 'node:worker_threads';
import { withLine } from './error-line.js';
import { DocumentError } from './errors.js';
import { parseDocuments } from './parse.js';
import type { ImportSourceText, TextSlice, WorkerPiece, WorkerSources } from './parse-off-thread.js';
import { type ParsedDocument, readDocuments } from './validate.js';

/** Flags or segments per message. */
const PIECE_SIZE = 500;

function* pieces(sources: ImportSourceText[]): Generator<WorkerPiece> {
  let docs: ParsedDocument[] = [];
  try {
    for (const source of sources) {
      docs = docs.concat(
        readDocuments(parseDocuments(source.text, source.format, source.name), source.name, source.format),
      );
    }
  } catch (thrown) {
    // The line of a YAML error is looked for here, on this thread, and only now that there is one.
    const err = withLine(thrown, sources);
    if (err instanceof DocumentError) {
      yield {
        kind: 'document-error',
        source: err.source,
        index: err.documentIndex,
        path: err.path,
        reason: err.reason,
        line: err.line,
      };
      return;
    }
    throw err;
  }
  for (const doc of docs) {
    const { flags, segments } = doc.content;
    yield { kind: 'document', document: { ...doc, content: { ...doc.content, flags: [], segments: [] } } };
    for (let i = 0; i < flags.length; i += PIECE_SIZE) {
      yield { kind: 'flags', items: flags.slice(i, i + PIECE_SIZE) };
    }
    for (let i = 0; i < segments.length; i += PIECE_SIZE) {
      yield { kind: 'segments', items: segments.slice(i, i + PIECE_SIZE) };
    }
  }
  yield { kind: 'done' };
}

const port = parentPort;
if (port) {
  const { sources } = workerData as WorkerSources;
  const texts: string[][] = sources.map(() => []);
  let steps: Generator<WorkerPiece> | undefined;
  // The text comes first, in slices; then every 'next' from the caller is answered with one piece (the
  // caller asks once it has taken the last).
  port.on('message', (message: TextSlice | 'next') => {
    if (message !== 'next') {
      texts[message.source]?.push(message.text);
      return;
    }
    steps ??= pieces(sources.map((source, i) => ({ ...source, text: (texts[i] ?? []).join('') })));
    const step = steps.next();
    if (!step.done) port.postMessage(step.value);
  });
}
