// Segment use cases: list, get, create, update, delete, with Flipt's validation and messages.
// Every write runs through runWrite (one transaction + namespace revision bump).

import { NotFoundError } from '../domain/errors.js';
import type { Constraint, MatchType, Page, Segment } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { ConstraintFields, NamespaceReads, SegmentStore } from '../storage/store.js';
import type { Tx } from '../storage/transaction.js';
import { type ConstraintInput, constraintFields } from './constraints.js';
import type { ResourceStates } from './resource-states.js';
import { requireKey, requireMaxLength, requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface SegmentInput {
  key?: string;
  name?: string;
  description?: string;
  /** Defaults to ALL_MATCH_TYPE, on create and on update (proto3 default), as in Flipt. */
  matchType?: MatchType;
  /**
   * A Vexil extension (issue 42): the segment's whole list of constraints, written with the segment in
   * one transaction and recorded as one change of the segment (ADR 0036). A listed constraint with the
   * id of one of the segment's is updated, one without is created, one not listed is deleted. Absent
   * or null: the constraints stay as they are.
   */
  constraints?: readonly (ConstraintInput & { id?: string | null })[] | null;
}

type ConstraintList = { id: string | undefined; fields: ConstraintFields }[];

/** Validates the listed constraints before anything is written. */
function constraintList(segmentKey: string, input: SegmentInput['constraints']): ConstraintList | undefined {
  if (!input) return undefined;
  return input.map((c) => {
    const id = c.id ? c.id : undefined;
    return { id, fields: constraintFields(segmentKey, c, id) };
  });
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
    const list = constraintList(key, input.constraints);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      if (!(await this.namespaces.find(tx, namespaceKey))) throw new NotFoundError(`namespace "${namespaceKey}"`);
      let after = await this.segments.insert(tx, namespaceKey, key, {
        name,
        description: input.description ?? '',
        matchType: input.matchType ?? 'ALL_MATCH_TYPE',
      });
      if (list) {
        await this.#writeConstraints(tx, namespaceKey, key, [], list);
        after = await this.segments.get(tx, namespaceKey, key);
      }
      changes.record({ namespaceKey, resourceType: 'segment', resourceKey: key, action: 'created', after });
      return after;
    });
  }

  async update(namespaceKey: string, key: string, input: SegmentInput): Promise<Segment> {
    requireNonEmpty('key', key);
    const name = requireNonEmpty('name', input.name);
    requireMaxLength('name', name);
    const list = constraintList(key, input.constraints);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.segment(tx, namespaceKey, key);
      await this.segments.update(tx, namespaceKey, key, {
        name,
        description: input.description ?? '',
        matchType: input.matchType ?? 'ALL_MATCH_TYPE',
      });
      if (list) await this.#writeConstraints(tx, namespaceKey, key, before?.constraints ?? [], list);
      const after = await this.segments.get(tx, namespaceKey, key);
      changes.record({ namespaceKey, resourceType: 'segment', resourceKey: key, action: 'updated', before, after });
      return after;
    });
  }

  /** Makes the segment's constraints `list` (see SegmentInput.constraints). */
  async #writeConstraints(
    tx: Tx,
    ns: string,
    segmentKey: string,
    current: readonly Constraint[],
    list: ConstraintList,
  ): Promise<void> {
    const kept = new Set(list.map((c) => c.id).filter((id) => id !== undefined));
    for (const c of current) if (!kept.has(c.id)) await this.segments.deleteConstraint(tx, ns, segmentKey, c.id);
    for (const { id, fields } of list) {
      const existing = id === undefined ? undefined : current.find((c) => c.id === id);
      if (!existing) await this.segments.insertConstraint(tx, ns, segmentKey, fields);
      else if (
        existing.type !== fields.type ||
        existing.property !== fields.property ||
        existing.operator !== fields.operator ||
        existing.value !== fields.value ||
        existing.description !== fields.description
      ) {
        await this.segments.updateConstraint(tx, ns, segmentKey, existing.id, fields);
      }
    }
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
