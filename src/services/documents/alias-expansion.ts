// How much YAML aliases (`*name`) make a document grow. js-yaml, which reads imports, keeps one copy
// of an anchor's value and refers to it from each alias, so a few hundred bytes of text can stand for
// 10^9 values: whatever walks them afterwards (the checks, the JSON of metadata and attachments, the
// rows written) does the expanding, and one such import took 175 s and 2 GB (issue 36). js-yaml has no
// bound of its own, and the yaml package's (`maxAliasCount`) comes with a parser 17 times slower on a
// large import, so the expanded size is measured here, before anything else walks the values
// (ADR 0034). Each object or list is measured once, however often it is referred to, so this takes
// time in proportion to the text, not to what it expands to.

/** What YAML aliases may add to a source's documents, in characters of their values (1 Mi). */
export const MAX_ALIAS_EXPANSION = 1024 * 1024;

export const ALIAS_EXPANSION_REASON = `YAML aliases expand it by more than ${MAX_ALIAS_EXPANSION} characters (the limit on what aliases may add)`;

/**
 * The size of `value` with every alias expanded: the characters of its strings and keys, and 1 for
 * every other value. Without aliases this is at most about the length of the YAML text that wrote it
 * (a string or key takes at least its own characters there, any other value at least one), so what it
 * exceeds the text by is what aliases added.
 */
export function expandedSize(value: unknown): number {
  return sizeOf(value, new Map());
}

function sizeOf(value: unknown, sized: Map<object, number>): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 1;
  const known = sized.get(value);
  if (known !== undefined) return known;
  let size = 1;
  if (Array.isArray(value)) {
    for (const item of value) size += sizeOf(item, sized);
  } else {
    for (const [key, item] of Object.entries(value)) size += key.length + sizeOf(item, sized);
  }
  sized.set(value, size);
  return size;
}
