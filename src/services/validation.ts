// Field checks shared by the management services, with Flipt's messages.

import { InvalidArgumentError, ValidationError } from '../domain/errors.js';
import { KEY_PATTERN } from '../domain/types.js';
import { isStorableText } from '../storage/unstorable-text.js';

/** Column width of keys, names, ids, property and operator (VARCHAR(255) on every database). */
export const MAX_SHORT_FIELD = 255;

export function requireNonEmpty(field: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new ValidationError(field, 'must not be empty');
  return value;
}

export function requireMaxLength(field: string, value: string | undefined, max = MAX_SHORT_FIELD): void {
  if (value !== undefined && value.length > max) {
    throw new ValidationError(field, `must not be longer than ${max} characters`);
  }
}

/** A namespace, flag or segment key: required, [-_,A-Za-z0-9]+, at most 255 characters. */
export function requireKey(field: string, value: string | undefined): string {
  const key = requireNonEmpty(field, value);
  if (!KEY_PATTERN.test(key)) throw new ValidationError(field, 'contains invalid characters');
  requireMaxLength(field, key);
  return key;
}

/**
 * The largest JSON text of a variant's attachment and of a flag's metadata, in UTF-8 bytes: Flipt's
 * bound on attachments (1000 KB, `maxJsonStringSizeKB`), also applied to metadata, which Flipt leaves
 * unbounded (issue 36: an imported document made one flag's metadata 6.2 MB).
 */
export const MAX_JSON_FIELD_BYTES = 1000 * 1024;

/** `json` (the field's JSON text) at most MAX_JSON_FIELD_BYTES, with Flipt's message for attachments. */
export function requireJsonSize(field: string, json: string): void {
  // Each UTF-16 unit is at most 3 bytes: most texts are decided without counting their bytes.
  if (json.length * 3 <= MAX_JSON_FIELD_BYTES) return;
  if (json.length > MAX_JSON_FIELD_BYTES || Buffer.byteLength(json, 'utf8') > MAX_JSON_FIELD_BYTES) {
    throw new ValidationError(field, `must be less than ${MAX_JSON_FIELD_BYTES / 1024} KB`);
  }
}

export function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message);
}

/**
 * The path (`flags[3].name`) of the first string in `value` that no database stores as given (NUL,
 * an unpaired surrogate), or undefined. For whole documents (imports), whose bulk inserts the storage
 * edge cannot attribute to a field; single writes are checked there (storage/unstorable-text.ts).
 */
export function unstorableTextPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    if (!isStorableText(key)) return field;
    const found = unstorableTextPath(item, field);
    if (found !== undefined) return found;
  }
  return undefined;
}
