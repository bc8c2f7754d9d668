// Flag use cases: list, get, create, update, delete, with Flipt's rules (the type is fixed at
// creation, an update without defaultVariantId clears the default variant, metadata replaced only
// when sent).

import { InvalidArgumentError } from '../domain/errors.js';
import { FLAG_TYPES, type Flag, type FlagType, type Page } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { FlagStore, FlagUpdate, NamespaceReads } from '../storage/store.js';
import type { ResourceStates } from './resource-states.js';
import { requireJsonSize, requireKey, requireMaxLength, requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface FlagCreateInput {
  key?: string;
  name?: string;
  description?: string | null;
  enabled?: boolean | null;
  /** Defaults to VARIANT_FLAG_TYPE. */
  type?: FlagType | null;
  metadata?: Record<string, unknown> | null;
}

export interface FlagUpdateInput {
  name?: string;
  description?: string | null;
  enabled?: boolean | null;
  /** Absent or '' clears the default variant. */
  defaultVariantId?: string | null;
  /** Absent or null leaves it unchanged; {} clears it. */
  metadata?: Record<string, unknown> | null;
}

/** Metadata is stored as its JSON text, at most MAX_JSON_FIELD_BYTES (validation.ts). */
export function requireMetadataSize(metadata: Record<string, unknown> | null | undefined): void {
  if (metadata) requireJsonSize('metadata', JSON.stringify(metadata));
}

/** The flag as a read would show it after `update` (which checked the default variant is its own). */
function updatedFlag(before: Flag, update: FlagUpdate, updatedAt: Date): Flag {
  const { defaultVariant: _default, metadata: _metadata, ...rest } = before;
  const after: Flag = {
    ...rest,
    name: update.name,
    description: update.description,
    enabled: update.enabled,
    updatedAt,
  };
  const defaultVariant = before.variants.find((v) => v.id === update.defaultVariantId);
  if (update.defaultVariantId !== '' && defaultVariant) after.defaultVariant = defaultVariant;
  const metadata = update.metadata === undefined ? before.metadata : update.metadata;
  if (metadata !== undefined && Object.keys(metadata).length > 0) after.metadata = metadata;
  return after;
}

export class FlagService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly flags: FlagStore,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  list(namespaceKey: string, query: ListQuery): Promise<Page<Flag>> {
    return this.flags.list(this.ctx.db, namespaceKey, query);
  }

  get(namespaceKey: string, key: string): Promise<Flag> {
    return this.flags.get(this.ctx.db, namespaceKey, key);
  }

  create(ns: string, input: FlagCreateInput): Promise<Flag> {
    const key = requireKey('key', input.key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const type = input.type ?? 'VARIANT_FLAG_TYPE';
    if (!FLAG_TYPES.includes(type))
      throw new InvalidArgumentError(`unknown value "${String(type)}" for enum flipt.FlagType`);
    requireMetadataSize(input.metadata);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const flag = await this.flags.insert(tx, ns, {
        key,
        name,
        description: input.description ?? '',
        enabled: input.enabled ?? false,
        type,
        ...(input.metadata ? { metadata: input.metadata } : {}),
      });
      changes.record({ namespaceKey: ns, resourceType: 'flag', resourceKey: key, action: 'created', after: flag });
      return flag;
    });
  }

  update(ns: string, key: string, input: FlagUpdateInput): Promise<Flag> {
    requireNonEmpty('key', key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    requireMetadataSize(input.metadata);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      // Read before, and the state after derived from it: a flag update leaves its variants as they
      // are, so reading it again afterwards would only repeat the same queries.
      const before = await this.flags.get(tx, ns, key);
      const write = {
        name,
        description: input.description ?? '',
        enabled: input.enabled ?? false,
        defaultVariantId: input.defaultVariantId ?? '',
        ...(input.metadata ? { metadata: input.metadata } : {}),
      };
      const updatedAt = await this.flags.update(tx, ns, key, write);
      const after = updatedFlag(before, write, updatedAt);
      changes.record({ namespaceKey: ns, resourceType: 'flag', resourceKey: key, action: 'updated', before, after });
      return after;
    });
  }

  /** Idempotent: deleting an unknown flag (or a flag of an unknown namespace) succeeds. */
  async delete(ns: string, key: string): Promise<void> {
    requireNonEmpty('key', key);
    if (!(await this.namespaces.find(this.ctx.db, ns))) return;
    await runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.fullFlag(tx, ns, key);
      await this.flags.delete(tx, ns, key);
      if (before)
        changes.record({ namespaceKey: ns, resourceType: 'flag', resourceKey: key, action: 'deleted', before });
    });
  }
}
