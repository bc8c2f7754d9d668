// The precondition of a management write (issue 42, ADR 0035), as both transports read it: HTTP's
// `If-Match: "<X-Vexil-Revision>"` header and gRPC's `if-match` metadata carry the same tag. The
// transport only unquotes it; the write checks it (services/precondition.ts) and refuses a tag that
// is not a revision.

/** The header and metadata key. */
export const IF_MATCH = 'if-match';

/**
 * The revision tag a client sent, without its quotes (`"1.2"`, `W/"1.2"` or bare `1.2`); undefined
 * when none was sent or when it is `*` (any revision: no precondition).
 */
export function ifMatchTag(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  const text = typeof first === 'string' ? first : Buffer.isBuffer(first) ? first.toString('utf8') : undefined;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return undefined;
  const weak = trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
  return weak.length >= 2 && weak.startsWith('"') && weak.endsWith('"') ? weak.slice(1, -1) : weak;
}
