// The one error of reading or applying a document: it names the source (a file, stdin, a request), the
// document of the stream, the object (by index, and by key where it has one) and the field, and in a
// YAML source the line of that field, e.g.
// `flags.yml: document 1: flags[3] (colour).rules[0].distributions[1] at line 14: variant "blu" not found for flag "colour"`.

import { InvalidArgumentError } from '../../domain/errors.js';
import { KEY_PATTERN } from '../../domain/types.js';

export class DocumentError extends InvalidArgumentError {
  constructor(
    readonly source: string,
    /** 0-based position of the document in its source. */
    readonly documentIndex: number,
    /** The object and field, e.g. `flags[3] (colour).key`; '' for the document as a whole. */
    readonly path: string,
    readonly reason: string,
    /** 1-based line of the object or field in a YAML source (error-line.ts), when known. */
    readonly line?: number,
  ) {
    const where = `${path}${line !== undefined ? `${path ? ' ' : ''}at line ${line}` : ''}`;
    super(`${source}: document ${documentIndex + 1}: ${where ? `${where}: ` : ''}${reason}`);
  }
}

/**
 * `flags[4]` → `flags[4] (pricing-page)`: an indexed object named by its key too, when it has one. Only
 * a well-formed key names it, which cannot be mistaken for path syntax (a malformed key is reported itself).
 */
export function keyed(indexPath: string, key: unknown): string {
  return typeof key === 'string' && KEY_PATTERN.test(key) ? `${indexPath} (${key})` : indexPath;
}
