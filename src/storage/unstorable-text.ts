// Text no database here stores as given: NUL (PostgreSQL refuses it, failing the whole statement) and
// unpaired UTF-16 surrogates (every driver encodes them as U+FFFD, silently changing the value).
// Checked once, where every query passes (driver-edge.ts wraps the driver): a value meant to be
// stored is refused as a client mistake naming its field, and a lookup by such a value finds nothing,
// as it does on SQLite, instead of failing on PostgreSQL.

import type { CompiledQuery, OperationNode } from 'kysely';
import { ValidationError } from '../domain/errors.js';

/** The reason given for a refused value (after `invalid field <name>: `). */
export const UNSTORABLE_REASON = 'contains a NUL character or an unpaired surrogate, which cannot be stored';

/** True when `value` is text every database stores unchanged. */
export function isStorableText(value: string): boolean {
  return !value.includes('\0') && (value as string & { isWellFormed(): boolean }).isWellFormed();
}

function isUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  // PostgreSQL's bulk inserts bind whole columns as arrays (storage/documents.ts).
  return Array.isArray(value) && value.some((item) => typeof item === 'string' && !isStorableText(item));
}

interface Node extends OperationNode {
  readonly [key: string]: unknown;
}

function nodeValue(node: unknown): unknown {
  return (node as Node | undefined)?.kind === 'ValueNode' ? (node as Node).value : undefined;
}

/** `checkout_at` → `checkoutAt`: column names as the API names its fields. */
function fieldOf(column: unknown): string {
  const name = (((column as Node | undefined)?.column as Node | undefined)?.name as string | undefined) ?? 'value';
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The column an INSERT or UPDATE would store an unstorable value in, or undefined. */
function storedField(query: Node): string | undefined {
  const updates = [
    ...((query.updates as Node[] | undefined) ?? []),
    ...((((query.onConflict as Node | undefined)?.updates as Node[] | undefined) ?? []) as Node[]),
    ...((((query.onDuplicateKey as Node | undefined)?.updates as Node[] | undefined) ?? []) as Node[]),
  ];
  for (const update of updates) if (isUnstorable(nodeValue(update.value))) return fieldOf(update.column);
  if (query.kind !== 'InsertQueryNode') return undefined;
  const columns = (query.columns as Node[] | undefined) ?? [];
  for (const row of ((query.values as Node | undefined)?.values as Node[] | undefined) ?? []) {
    const values = (row.values as unknown[] | undefined) ?? [];
    const primitive = row.kind === 'PrimitiveValueListNode';
    for (let i = 0; i < values.length; i++) {
      if (isUnstorable(primitive ? values[i] : nodeValue(values[i]))) return fieldOf(columns[i]);
    }
  }
  return undefined;
}

/**
 * A lookup value no stored row can hold: NUL becomes U+FFFF, which no key or id contains (keys are
 * [-_,A-Za-z0-9], ids generated), and unpaired surrogates become U+FFFD as the drivers would make them.
 */
function lookupValue(value: string): string {
  return (value as string & { toWellFormed(): string }).toWellFormed().replaceAll('\0', '\uFFFF');
}

function lookupParameter(value: unknown): unknown {
  return typeof value === 'string' && !isStorableText(value) ? lookupValue(value) : value;
}

/**
 * `query` as it may run: unchanged when every parameter is storable text (the common case, one pass
 * over the parameters); with lookup values replaced when the unstorable text is only compared with;
 * a ValidationError naming the field when it would be stored.
 */
export function storableQuery(query: CompiledQuery): CompiledQuery {
  if (!query.parameters.some(isUnstorable)) return query;
  const field = storedField(query.query as unknown as Node);
  if (field !== undefined) throw new ValidationError(field, UNSTORABLE_REASON);
  const kind = (query.query as unknown as Node).kind;
  // A statement that stores, whose value could not be traced to its column (raw SQL): still refused.
  if (kind === 'InsertQueryNode' || (kind === 'RawNode' && /^\s*insert\b/i.test(query.sql))) {
    throw new ValidationError('value', UNSTORABLE_REASON);
  }
  return {
    ...query,
    parameters: query.parameters.map((value) =>
      Array.isArray(value) ? value.map(lookupParameter) : lookupParameter(value),
    ),
  };
}
