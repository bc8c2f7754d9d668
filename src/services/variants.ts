// Variant use cases: create, update, delete. Attachments must be JSON, at most 1000 KB, and are stored
// compacted (whitespace outside strings removed, nothing else rewritten, like Go's json.Compact).

import { ValidationError } from '../domain/errors.js';
import type { Variant } from '../domain/types.js';
import type { NamespaceReads, VariantStore } from '../storage/store.js';
import type { ResourceStates } from './resource-states.js';
import { MAX_JSON_FIELD_BYTES, requireJsonSize, requireMaxLength, requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface VariantInput {
  key?: string;
  name?: string | null;
  description?: string | null;
  /** A JSON document as text; '' or absent for none. */
  attachment?: string | null;
}

export const MAX_ATTACHMENT_BYTES = MAX_JSON_FIELD_BYTES;

/** Strings (kept whole) or runs of the whitespace JSON allows between tokens (removed). */
const JSON_STRING_OR_SPACE = /"[^"\\]*(?:\\.[^"\\]*)*"|[ \t\n\r]+/g;

/** Removes the whitespace between JSON tokens of valid JSON, leaving strings and numbers as written. */
export function compactJson(text: string): string {
  return text.replace(JSON_STRING_OR_SPACE, (match) => (match.charCodeAt(0) === 34 ? match : ''));
}

/** The attachment as stored: '' for none, else compact JSON. Checks as Flipt does: JSON first, then size. */
export function normalizeAttachment(attachment: string | null | undefined): string {
  if (attachment === undefined || attachment === null || attachment === '') return '';
  try {
    JSON.parse(attachment);
  } catch {
    throw new ValidationError('attachment', 'must be a json string');
  }
  requireJsonSize('attachment', attachment);
  return compactJson(attachment);
}

function toWrite(input: VariantInput) {
  const key = requireNonEmpty('key', input.key);
  requireMaxLength('key', key);
  const name = input.name ?? '';
  requireMaxLength('name', name);
  return { key, name, description: input.description ?? '', attachment: normalizeAttachment(input.attachment) };
}

function subject(namespaceKey: string, flagKey: string, id: string) {
  return { namespaceKey, resourceType: 'variant', resourceKey: id, parentKey: flagKey } as const;
}

export class VariantService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly variants: VariantStore,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  create(ns: string, flagKey: string, input: VariantInput): Promise<Variant> {
    requireNonEmpty('flagKey', flagKey);
    const write = toWrite(input);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const after = await this.variants.insert(tx, ns, flagKey, write);
      changes.record({ ...subject(ns, flagKey, after.id), action: 'created', after });
      return after;
    });
  }

  update(ns: string, flagKey: string, id: string, input: VariantInput): Promise<Variant> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    const write = toWrite(input);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.variant(tx, ns, flagKey, id);
      const after = await this.variants.update(tx, ns, flagKey, id, write);
      changes.record({ ...subject(ns, flagKey, id), action: 'updated', before, after });
      return after;
    });
  }

  /** Idempotent. Removes the variant's distributions and clears it as a flag's default variant. */
  async delete(ns: string, flagKey: string, id: string): Promise<void> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    if (!(await this.namespaces.find(this.ctx.db, ns))) return;
    await runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.fullVariant(tx, ns, flagKey, id);
      await this.variants.delete(tx, ns, flagKey, id);
      if (before) changes.record({ ...subject(ns, flagKey, id), action: 'deleted', before });
    });
  }
}
