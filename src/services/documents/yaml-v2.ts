// YAML text exactly as gopkg.in/yaml.v2's Encoder (Flipt's exporter) writes a stream of documents, so
// that our export diffs empty against Flipt's. Written here rather than with the yaml package, whose
// output differs where it matters: yaml.v2 puts a block sequence inside a mapping at the key's column,
// folds a plain or quoted string at the first space *after* column 80 (the yaml package folds before
// it), single-quotes what is plain-unsafe but needs no escape (`'#x'`, `'a: b'`), double-quotes what
// would read as another type (yaml-v2-resolve.ts) or holds what only an escape can say (tabs, C1
// controls, characters outside the BMP as `\U0001F600`), writes text with a newline as a `|-` literal
// when it can, and writes a key over 128 bytes as `? key`. It is also fast: a 10,000-flag export took
// seconds through the yaml package's document model (docs/performance.md).
//
// The emitter keeps the state libyaml's emitter keeps (column, indent stack, whether the last thing
// written was whitespace or indentation) and makes the same calls in the same order for the only
// shapes an export has: block mappings and sequences, empty ones as `{}`/`[]`, and scalars.

import { GoMap, type GoStruct, type GoValue } from './go-value.js';
import { compareYamlKeys, goFloat, plainReadsAsString } from './yaml-v2-resolve.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

type Style = 'plain' | 'single' | 'double' | 'literal';

const isBreak = (c: string | undefined): boolean =>
  c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const BREAK = /[\n\r\u0085\u2028\u2029]/;
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';

/** libyaml's printable set: LF, ASCII 0x20–0x7E, U+00A0–U+D7FF, U+E000–U+FFFD but U+FEFF; nothing beyond the BMP. */
function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0) as number;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** What styles the text allows (libyaml's yaml_emitter_analyze_scalar, block context only). */
function analyze(chars: string[]): Analysis {
  if (chars.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const text = chars.join('');
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  const last = chars.length - 1;
  chars.forEach((c, i) => {
    const followedByWhitespace = i === last || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if ((c === ':' && followedByWhitespace) || (c === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(c)) special = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c) || c === '\0';
  });
  const out: Analysis = {
    multiline: lineBreaks,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks || blockIndicators) {
    out.blockPlainAllowed = false;
  }
  if (trailingSpace) out.blockAllowed = false;
  if (breakSpace) {
    out.blockPlainAllowed = false;
    out.singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    out.blockPlainAllowed = false;
    out.singleQuotedAllowed = false;
    out.blockAllowed = false;
  }
  return out;
}

/**
 * Printable ASCII no rule of the analysis looks at: it opens with no indicator (nor `-`, `.`, `?`, `:`
 * or a space), holds no `:` or `#` (the only indicators that count inside a block scalar) and does not
 * end in a space.
 */
const SAFE_TEXT = /^[A-Za-z0-9_/$(+<=;^~\\)](?:[ -"$-9;-~]*[!-"$-9;-~])?$/;
const SAFE_ANALYSIS: Analysis = {
  multiline: false,
  blockPlainAllowed: true,
  singleQuotedAllowed: true,
  blockAllowed: true,
};

const SHORT_ESCAPES: Record<number, string> = {
  0: '0',
  7: 'a',
  8: 'b',
  9: 't',
  10: 'n',
  11: 'v',
  12: 'f',
  13: 'r',
  27: 'e',
  34: '"',
  92: '\\',
  133: 'N',
  160: '_',
  8232: 'L',
  8233: 'P',
};

function escaped(c: string): string {
  const cp = c.codePointAt(0) as number;
  const short = SHORT_ESCAPES[cp];
  if (short !== undefined) return `\\${short}`;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

class Emitter {
  /** Finished lines (each with its line break), and the line being written. */
  private readonly lines: string[] = [];
  private line = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  text(): string {
    return this.lines.join('') + this.line;
  }

  /** Raw text without line breaks and without characters outside the BMP (each counts one column). */
  private write(s: string): void {
    this.line += s;
    this.column += s.length;
  }

  private putBreak(): void {
    this.lines.push(`${this.line}\n`);
    this.line = '';
    this.column = 0;
  }

  /** A line break of the text itself: LF as the emitter's own, others (CR, NEL, LS, PS) written as they are. */
  private writeBreak(c: string): void {
    if (c === '\n') this.putBreak();
    else {
      this.line += c;
      this.column = 0;
    }
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) this.write(' '.repeat(indent - this.column));
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean) {
    if (needWhitespace && !this.whitespace) this.write(' ');
    this.write(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() as number;
  }

  document(value: GoValue, first: boolean): void {
    if (!first) {
      this.writeIndent();
      this.writeIndicator('---', true, false, false);
    }
    this.node(value, false, false);
    this.writeIndent();
  }

  /** A node in block context; `mapping` and `simpleKey` are libyaml's mapping_context / simple_key_context. */
  private node(value: GoValue, mapping: boolean, simpleKey: boolean): void {
    if (value === null) this.scalar('null', 'plain', simpleKey);
    else if (typeof value === 'boolean') this.scalar(value ? 'true' : 'false', 'plain', simpleKey);
    else if (typeof value === 'number') this.scalar(goFloat(value), 'plain', simpleKey);
    else if (typeof value === 'string') {
      const style: Style = value.includes('\n') ? 'literal' : plainReadsAsString(value) ? 'plain' : 'double';
      this.scalar(value, style, simpleKey);
    } else if (Array.isArray(value)) {
      if (value.length === 0) this.emptyFlow('[]');
      else this.sequence(value, mapping);
    } else if (value instanceof GoMap) {
      if (value.entries.length === 0) this.emptyFlow('{}');
      else this.mapping([...value.entries].sort((a, b) => compareYamlKeys(a[0], b[0])));
    } else {
      let empty = true;
      for (const _ in value) {
        empty = false;
        break;
      }
      if (empty) this.emptyFlow('{}');
      else this.mapping(value);
    }
  }

  private emptyFlow(pair: '[]' | '{}'): void {
    this.writeIndicator(pair[0] as string, true, true, false);
    this.writeIndicator(pair[1] as string, false, false, false);
  }

  private sequence(items: GoValue[], mapping: boolean): void {
    // In a mapping's value the dashes stay at the key's column.
    this.increaseIndent(false, mapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, false, false);
    }
    this.popIndent();
  }

  /** A block mapping: a map's sorted entries, or a struct's fields in order. */
  private mapping(entries: [string, GoValue][] | GoStruct): void {
    this.increaseIndent(false, false);
    if (Array.isArray(entries)) for (const [key, value] of entries) this.entry(key, value);
    else for (const key in entries) this.entry(key, entries[key] as GoValue);
    this.popIndent();
  }

  private entry(key: string, value: GoValue): void {
    this.writeIndent();
    // A key with a line break, or over 128 bytes, cannot be a simple key: `? key` then `: value`.
    if (!BREAK.test(key) && (key.length * 3 <= 128 || Buffer.byteLength(key) <= 128)) {
      this.node(key, true, true);
      this.writeIndicator(':', false, false, false);
    } else {
      this.writeIndicator('?', true, false, true);
      this.node(key, true, false);
      this.writeIndent();
      this.writeIndicator(':', true, false, true);
    }
    this.node(value, true, false);
  }

  private scalar(value: string, requested: Style, simpleKey: boolean): void {
    // Most text (keys, names, enum values) is letters, digits and a few marks that no rule looks at.
    const chars = SAFE_TEXT.test(value) ? undefined : [...value];
    const a = chars ? analyze(chars) : SAFE_ANALYSIS;
    let style = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain' && (!a.blockPlainAllowed || (value === '' && simpleKey))) style = 'single';
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    if (style === 'plain') this.plain(value, allowBreaks);
    else if (style === 'single') this.singleQuoted(chars ?? [...value], allowBreaks);
    else if (style === 'double') this.doubleQuoted(chars ?? [...value], allowBreaks);
    else this.literal(chars ?? [...value]);
    this.popIndent();
  }

  private plain(value: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.write(' ');
    if (!allowBreaks || this.column + value.length <= BEST_WIDTH) {
      // No space in it can start past column 80: written whole (plain text holds no line break).
      this.write(value);
    } else {
      // libyaml's loop, by spaces: at a space reached past column 80, not after another space and not
      // before one, the line is broken there (the space dropped). Plain text never holds a line break
      // nor a character outside the BMP, so UTF-16 units are columns.
      let from = 0;
      for (let i = value.indexOf(' '); i !== -1; i = value.indexOf(' ', i + 1)) {
        if (value[i - 1] !== ' ' && this.column + (i - from) > BEST_WIDTH && value[i + 1] !== ' ') {
          this.write(value.slice(from, i));
          this.indention = false;
          this.writeIndent();
          from = i + 1;
        }
      }
      this.write(value.slice(from));
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(chars: string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    const last = chars.length - 1;
    chars.forEach((c, i) => {
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < last && chars[i + 1] !== ' ') {
          this.writeIndent();
        } else this.write(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.write(c === "'" ? "''" : c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    });
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(chars: string[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    // libyaml escapes every character of a text that opens with a byte order mark.
    const bom = chars[0] === '\ufeff';
    let spaces = false;
    const last = chars.length - 1;
    chars.forEach((c, i) => {
      if (bom || !isPrintable(c) || isBreak(c) || c === '"' || c === '\\') {
        this.write(escaped(c));
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < last) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.write('\\');
        } else this.write(c);
        spaces = true;
      } else {
        this.write(c);
        spaces = false;
      }
    });
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(chars: string[]): void {
    this.writeIndicator('|', true, false, false);
    if (chars[0] === ' ' || isBreak(chars[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const n = chars.length;
    // Chomping: `-` strips a missing final break, `+` keeps several; one final break is the default.
    let chomp = '';
    if (!isBreak(chars[n - 1])) chomp = '-';
    else if (n === 1 || isBreak(chars[n - 2])) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.write(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** The documents as one YAML stream (`---` between them), each ending in a newline. */
export function yamlV2Stream(docs: GoValue[]): string {
  const emitter = new Emitter();
  docs.forEach((doc, i) => {
    emitter.document(doc, i === 0);
  });
  return emitter.text();
}
