// Segment use cases: list, get, create, update, delete, with Flipt's validation and messages.
// Every write runs through runWrite (one transaction + namespace revision bump).

import { NotFoundError } from '../domain/errors.js';
import type { MatchType, Page, Segment } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { NamespaceReads, SegmentStore } from '../storage/store.js';
import type { ResourceStates } from './resource-states.js';
import { requireKey, requireMaxLength, requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface SegmentInput {
  key?: string;
  name?: string;
  description?: string;
  /** Defaults to ALL_MATCH_TYPE, on create and on update (proto3 default), as in Flipt. */
  matchType?: MatchType;
}

export class SegmentService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly segments: SegmentStore,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  /** A namespace that does not exist lists as empty, not 404 (Flipt). */
  list(namespaceKey: string, query: ListQuery): Promise<Page<Segment>> {
    return this.segments.list(this.ctx.db, namespaceKey, query);
  }

  get(namespaceKey: string, key: string): Promise<Segment> {
    return this.segments.get(this.ctx.db, namespaceKey, key);
  }

  async create(namespaceKey: string, input: SegmentInput): Promise<Segment> {
    const key = requireKey('key', input.key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      if (!(await this.namespaces.find(tx, namespaceKey))) throw new NotFoundError(`namespace "${namespaceKey}"`);
      const after = await this.segments.insert(tx, namespaceKey, key, {
        name,
        description: input.description ?? '',
        matchType: input.matchType ?? 'ALL_MATCH_TYPE',
      });
      changes.record({ namespaceKey, resourceType: 'segment', resourceKey: key, action: 'created', after });
      return after;
    });
  }

  async update(namespaceKey: string, key: string, input: SegmentInput): Promise<Segment> {
    requireNonEmpty('key', key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.segment(tx, namespaceKey, key);
      await this.segments.update(tx, namespaceKey, key, {
        name,
        description: input.description ?? '',
        matchType: input.matchType ?? 'ALL_MATCH_TYPE',
      });
      const after = await this.segments.get(tx, namespaceKey, key);
      changes.record({ namespaceKey, resourceType: 'segment', resourceKey: key, action: 'updated', before, after });
      return after;
    });
  }

  /**
   * Deletes a segment and its constraints. Unknown segments (and namespaces) succeed without a write;
   * a segment still used by a rule or rollout fails with `segment "ns/key" is in use`.
   */
  async delete(namespaceKey: string, key: string): Promise<void> {
    requireNonEmpty('key', key);
    if (!(await this.segments.exists(this.ctx.db, namespaceKey, key))) return;
    await runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.segment(tx, namespaceKey, key);
      await this.segments.delete(tx, namespaceKey, key);
      if (before)
        changes.record({ namespaceKey, resourceType: 'segment', resourceKey: key, action: 'deleted', before });
    });
  }
}
