// Constraint use cases: create, update and delete a segment's constraints. The per-type validation and
// value normalisation (behavior.md §2.1) is evaluation/constraint-validation.ts's validateConstraint, shared
// with the evaluator so what is stored is exactly what the evaluator expects to read.

import { NotFoundError } from '../domain/errors.js';
import type { ComparisonType, Constraint } from '../domain/types.js';
import { validateConstraint } from '../evaluation/constraint-validation.js';
import type { ConstraintFields, SegmentStore } from '../storage/store.js';
import type { ResourceStates } from './resource-states.js';
import { requireMaxLength, requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface ConstraintInput {
  /** Absent means 0, UNKNOWN_COMPARISON_TYPE, which validation rejects. */
  type?: ComparisonType;
  property?: string;
  operator?: string;
  value?: string;
  description?: string;
}

function subject(namespaceKey: string, segmentKey: string, id: string) {
  return { namespaceKey, resourceType: 'constraint', resourceKey: id, parentKey: segmentKey } as const;
}

/** Validates and normalises a constraint's input: operator lowercased, value "" or normalised datetime. */
export function constraintFields(segmentKey: string, input: ConstraintInput, id?: string): ConstraintFields {
  const type = input.type ?? 'UNKNOWN_COMPARISON_TYPE';
  const property = input.property ?? '';
  const { operator, value } = validateConstraint(
    { id, segmentKey, type, property, operator: input.operator ?? '', value: input.value ?? '' },
    { update: id !== undefined },
  );
  requireMaxLength('property', property);
  requireMaxLength('operator', operator);
  return { type, property, operator, value, description: input.description ?? '' };
}

export class ConstraintService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly segments: SegmentStore,
    private readonly states: ResourceStates,
  ) {}

  private fields(segmentKey: string, input: ConstraintInput, id?: string): ConstraintFields {
    return constraintFields(segmentKey, input, id);
  }

  async create(namespaceKey: string, segmentKey: string, input: ConstraintInput): Promise<Constraint> {
    const fields = this.fields(segmentKey, input);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      if (!(await this.segments.exists(tx, namespaceKey, segmentKey))) {
        throw new NotFoundError(`segment "${namespaceKey}/${segmentKey}"`);
      }
      const after = await this.segments.insertConstraint(tx, namespaceKey, segmentKey, fields);
      changes.record({ ...subject(namespaceKey, segmentKey, after.id), action: 'created', after });
      return after;
    });
  }

  async update(namespaceKey: string, segmentKey: string, id: string, input: ConstraintInput): Promise<Constraint> {
    const fields = this.fields(segmentKey, input, id);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.constraint(tx, namespaceKey, segmentKey, id);
      const after = await this.segments.updateConstraint(tx, namespaceKey, segmentKey, id, fields);
      changes.record({ ...subject(namespaceKey, segmentKey, id), action: 'updated', before, after });
      return after;
    });
  }

  /** Deleting an unknown constraint succeeds without a write. */
  async delete(namespaceKey: string, segmentKey: string, id: string): Promise<void> {
    requireNonEmpty('id', id);
    requireNonEmpty('segmentKey', segmentKey);
    if (!(await this.segments.findConstraint(this.ctx.db, namespaceKey, segmentKey, id))) return;
    await runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.constraint(tx, namespaceKey, segmentKey, id);
      await this.segments.deleteConstraint(tx, namespaceKey, segmentKey, id);
      if (before) changes.record({ ...subject(namespaceKey, segmentKey, id), action: 'deleted', before });
    });
  }
}
