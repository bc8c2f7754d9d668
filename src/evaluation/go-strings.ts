// Go string helpers that Flipt's behaviour depends on and JavaScript gets subtly wrong: Go's
// `strings.TrimSpace` (its idea of white space differs from JS `\s`), `strings.ToLower` (per rune, no
// special casing) and `strconv.Quote` (the `%q` in Flipt's error messages).

/**
 * Go `unicode.IsSpace`: the Latin-1 spaces \t \n \v \f \r, space, U+0085, U+00A0, and the other
 * Unicode White_Space code points. Unlike JS `\s` it includes U+0085 and excludes U+FEFF.
 */
export function isGoSpace(code: number): boolean {
  if (code <= 0xff) {
    return (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0x85 || code === 0xa0;
  }
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Index of the first code unit that `strings.TrimSpace` would keep (s.length when all space). */
export function goTrimStart(s: string): number {
  let i = 0;
  // Every Go space is a single UTF-16 code unit, so a code-unit walk is exact.
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return i;
}

/** One past the last code unit that `strings.TrimSpace` would keep. */
export function goTrimEnd(s: string, start = 0): number {
  let j = s.length;
  while (j > start && isGoSpace(s.charCodeAt(j - 1))) j--;
  return j;
}

/** `len(strings.TrimSpace(s)) == 0`, without allocating the trimmed string. */
export function isGoBlank(s: string): boolean {
  return goTrimStart(s) === s.length;
}

/** Go `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  const start = goTrimStart(s);
  return s.slice(start, goTrimEnd(s, start));
}

/** `strings.HasPrefix(strings.TrimSpace(v), prefix)` without allocating. */
export function trimmedHasPrefix(v: string, prefix: string): boolean {
  const start = goTrimStart(v);
  const end = goTrimEnd(v, start);
  return end - start >= prefix.length && v.startsWith(prefix, start);
}

/** `strings.HasSuffix(strings.TrimSpace(v), suffix)` without allocating. */
export function trimmedHasSuffix(v: string, suffix: string): boolean {
  const start = goTrimStart(v);
  const end = goTrimEnd(v, start);
  return end - start >= suffix.length && v.endsWith(suffix, end);
}

/**
 * Go `strings.ToLower`: each rune is mapped on its own. JS `toLowerCase` applies context-dependent
 * special casing (final sigma, U+0130 → "i̇"), which would turn e.g. "İSONEOF" into something that is
 * no longer an operator where Go produces "isoneof".
 */
export function goToLower(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.toLowerCase();
  let out = '';
  for (const ch of s) {
    if (ch === '\u0130') {
      out += 'i';
      continue;
    }
    const lower = ch.toLowerCase();
    // A mapping that expands to several runes is special casing, which Go's unicode.ToLower never does.
    out += [...lower].length === 1 ? lower : ch;
  }
  return out;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/**
 * Go `strconv.Quote` (what `%q` prints): double-quoted, with Go escapes for quotes, backslashes,
 * control characters and non-printable runes. Lone surrogates print as U+FFFD, as Go would have
 * decoded them from JSON.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0xfffd;
    switch (cp) {
      case 0x07:
        out += '\\a';
        continue;
      case 0x08:
        out += '\\b';
        continue;
      case 0x0c:
        out += '\\f';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x0b:
        out += '\\v';
        continue;
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      default:
        break;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\ufffd';
    } else if (cp === 0x20 || PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x80) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}
