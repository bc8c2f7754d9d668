// How a revert undoes one recorded change inside its write's transaction: a create is undone by the
// resource's own delete, a delete by inserting the recorded "before" state back (original ids and
// timestamps), an update by writing "before" over the current state; a namespace's create or delete as
// a whole (its contents come back with it). Each undo is recorded as a new change. What blocks it (the
// resource exists again, a segment an old rule used is gone) is a FAILED_PRECONDITION naming the
// blocker: service.ts turns driver errors into one with `blocker`.

import type { Change } from '../../domain/changes.js';
import { DomainError, FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../domain/errors.js';
import type { Constraint, Distribution, Flag, Namespace, Rollout, Rule, Segment, Variant } from '../../domain/types.js';
import type { ChangeRecorder } from '../../services/change-recorder.js';
import type { FlagState, ResourceStates, SiblingRank, VariantState } from '../../services/resource-states.js';
import { batchChanges } from '../../storage/changes.js';
import { classifyDriverError } from '../../storage/errors.js';
import type {
  FlagStore,
  NamespaceStore,
  RolloutStore,
  RuleStore,
  SegmentStore,
  VariantStore,
} from '../../storage/store.js';
import type { Tx } from '../../storage/transaction.js';
import * as restore from './restore.js';

/** The stores a revert deletes through (undoing a create is that resource's own delete). */
export interface RevertStores {
  namespaces: NamespaceStore;
  flags: FlagStore;
  variants: VariantStore;
  segments: SegmentStore;
  rules: RuleStore;
  rollouts: RolloutStore;
}

export class ChangeReverter {
  constructor(
    private readonly states: ResourceStates,
    private readonly stores: RevertStores,
  ) {}

  async undo(tx: Tx, changes: ChangeRecorder, ns: string, change: Change): Promise<void> {
    const subject = {
      namespaceKey: ns,
      resourceType: change.resourceType,
      resourceKey: change.resourceKey,
      ...(change.parentKey !== undefined ? { parentKey: change.parentKey } : {}),
    };
    const label = `${change.resourceType} "${change.resourceKey}"`;

    if (change.action === 'created') {
      const current = await this.#current(tx, ns, change);
      if (current === undefined) throw new FailedPreconditionError(`${label} no longer exists`);
      await this.#delete(tx, ns, change);
      changes.record({ ...subject, action: 'deleted', before: current });
      return;
    }

    if (change.action === 'deleted') {
      if ((await this.#current(tx, ns, change)) !== undefined)
        throw new FailedPreconditionError(`${label} exists again`);
      await this.#insert(tx, ns, change);
      changes.record({ ...subject, action: 'created', after: await this.#current(tx, ns, change) });
      return;
    }

    // updated
    const before = await this.#current(tx, ns, change);
    if (before === undefined) throw new FailedPreconditionError(`${label} no longer exists`);
    await this.#update(tx, ns, change);
    changes.record({ ...subject, action: 'updated', before, after: await this.#current(tx, ns, change) });
  }

  /**
   * Undoes a namespace's create (only while it is empty: nothing in it is deleted by a revert) or its
   * delete: the namespace comes back with every segment and flag its delete recorded in the same batch.
   */
  async undoNamespaceLife(tx: Tx, changes: ChangeRecorder, change: Change): Promise<void> {
    const key = change.resourceKey;
    const subject = { namespaceKey: key, resourceType: 'namespace', resourceKey: key } as const;
    const current = await this.states.namespace(tx, key);
    if (change.action === 'created') {
      if (!current) throw new FailedPreconditionError(`namespace "${key}" no longer exists`);
      const { flags, segments } = await this.states.namespaceContents(tx, key);
      if (flags.length > 0 || segments.length > 0) {
        throw new FailedPreconditionError(
          `namespace "${key}" holds ${flags.length} flag(s) and ${segments.length} segment(s); delete them first`,
        );
      }
      await this.stores.namespaces.delete(tx, key);
      changes.record({ ...subject, action: 'deleted', before: current });
      return;
    }
    if (current) throw new FailedPreconditionError(`namespace "${key}" exists again`);
    await restore.insertNamespaceRow(tx, change.before as Namespace);
    const parts = change.batch ? await batchChanges(tx, change.batch) : [];
    const gone = (type: string) =>
      parts.filter((p) => p.namespaceKey === key && p.resourceType === type && p.action === 'deleted');
    // Segments before flags: rules and rollouts refer to them.
    const kinds = [
      {
        type: 'segment',
        insert: (state: unknown) => restore.insertSegment(tx, state as Segment),
        read: (k: string) => this.states.segment(tx, key, k),
      },
      {
        type: 'flag',
        insert: (state: unknown) => restore.insertFlag(tx, state as FlagState),
        read: (k: string) => this.states.fullFlag(tx, key, k),
      },
    ] as const;
    for (const kind of kinds) {
      for (const part of gone(kind.type)) {
        await kind.insert(part.before);
        const after = await kind.read(part.resourceKey);
        changes.record({
          namespaceKey: key,
          resourceType: kind.type,
          resourceKey: part.resourceKey,
          action: 'created',
          after,
        });
      }
    }
    // Last, so it is the newest change of the revert: the one the revert answers with.
    changes.record({ ...subject, action: 'created', after: await this.states.namespace(tx, key) });
  }

  /** The resource's state now, as a change records it. */
  async #current(tx: Tx, ns: string, change: Change): Promise<unknown> {
    const s = this.states;
    const key = change.resourceKey;
    const parent = change.parentKey ?? '';
    switch (change.resourceType) {
      case 'flag':
        // Created or deleted: the flag with its rules and rollouts, so undoing the undo restores them.
        return change.action === 'updated' ? s.flag(tx, ns, key) : s.fullFlag(tx, ns, key);
      case 'namespace':
        return s.namespace(tx, key);
      case 'variant':
        return change.action === 'updated' ? s.variant(tx, ns, parent, key) : s.fullVariant(tx, ns, parent, key);
      case 'segment':
        return s.segment(tx, ns, key);
      case 'constraint':
        return s.constraint(tx, ns, parent, key);
      case 'rule':
        return isOrder(change) ? s.ruleOrder(tx, ns, parent) : s.rule(tx, ns, key);
      case 'distribution':
        return s.distribution(tx, ns, parent, key);
      case 'rollout':
        return isOrder(change) ? s.rolloutOrder(tx, ns, parent) : s.rollout(tx, ns, key);
      default:
        throw new FailedPreconditionError(`a ${change.resourceType} change cannot be reverted`);
    }
  }

  async #delete(tx: Tx, ns: string, change: Change): Promise<void> {
    const { stores } = this;
    const key = change.resourceKey;
    const parent = change.parentKey ?? '';
    switch (change.resourceType) {
      case 'flag':
        return stores.flags.delete(tx, ns, key);
      case 'variant':
        return stores.variants.delete(tx, ns, parent, key);
      case 'segment':
        return stores.segments.delete(tx, ns, key);
      case 'constraint':
        return stores.segments.deleteConstraint(tx, ns, parent, key);
      case 'rule':
        return stores.rules.delete(tx, ns, parent, key);
      case 'distribution': {
        const d = change.after as Distribution;
        return stores.rules.deleteDistribution(tx, parent, key, d.variantId);
      }
      case 'rollout':
        return stores.rollouts.delete(tx, ns, parent, key);
      default:
        throw new FailedPreconditionError(`a ${change.resourceType} change cannot be reverted`);
    }
  }

  async #insert(tx: Tx, ns: string, change: Change): Promise<void> {
    const before = change.before;
    switch (change.resourceType) {
      case 'flag': {
        const flag = before as FlagState;
        await this.#requireSegments(
          tx,
          ns,
          [
            ...(flag.rules ?? []).flatMap((r) => r.segmentKeys),
            ...(flag.rollouts ?? []).flatMap((r) => r.segment?.segmentKeys ?? []),
          ],
          `flag "${flag.key}"`,
        );
        return restore.insertFlag(tx, flag);
      }
      case 'variant': {
        // Changes recorded before variants carried their distributions have neither field.
        const { distributions = [], isDefault = false, ...v } = before as Partial<VariantState> & Variant;
        await this.#requireFlag(tx, ns, v.flagKey);
        await restore.insertVariantRow(tx, v);
        for (const d of distributions) {
          if (!(await this.states.rule(tx, ns, d.ruleId))) {
            throw new FailedPreconditionError(
              `rule "${d.ruleId}" that gave variant "${v.key}" ${d.rollout}% no longer exists`,
            );
          }
          await restore.insertDistributionRow(tx, d);
        }
        // A default chosen since the delete is a later decision: it stays.
        if (isDefault) await restore.setDefaultVariantIfNone(tx, ns, v.flagKey, v.id);
        return;
      }
      case 'segment':
        return restore.insertSegment(tx, before as Segment);
      case 'constraint': {
        const c = before as Constraint;
        if (!(await this.states.segment(tx, ns, c.segmentKey))) {
          throw new FailedPreconditionError(`segment "${ns}/${c.segmentKey}" of the constraint no longer exists`);
        }
        return restore.insertConstraintRow(tx, c);
      }
      case 'rule': {
        const rule = before as Rule;
        await this.#requireFlag(tx, ns, rule.flagKey);
        await this.#requireSegments(tx, ns, rule.segmentKeys, 'the rule');
        await this.#requireVariants(
          tx,
          ns,
          rule.flagKey,
          rule.distributions.map((d) => d.variantId),
        );
        await this.#makeRoom(tx, ns, 'rules', rule);
        return restore.insertRule(tx, rule);
      }
      case 'distribution': {
        const d = before as Distribution;
        const rule = await this.states.rule(tx, ns, d.ruleId);
        if (!rule) throw new FailedPreconditionError(`rule "${d.ruleId}" of the distribution no longer exists`);
        await this.#requireVariants(tx, ns, rule.flagKey, [d.variantId]);
        return restore.insertDistributionRow(tx, d);
      }
      case 'rollout': {
        const r = before as Rollout;
        await this.#requireFlag(tx, ns, r.flagKey);
        await this.#requireSegments(tx, ns, r.segment?.segmentKeys ?? [], 'the rollout');
        await this.#makeRoom(tx, ns, 'rollouts', r);
        return restore.insertRollout(tx, r);
      }
      default:
        throw new FailedPreconditionError(`a ${change.resourceType} change cannot be reverted`);
    }
  }

  async #update(tx: Tx, ns: string, change: Change): Promise<void> {
    const before = change.before;
    switch (change.resourceType) {
      case 'flag': {
        const flag = before as Flag;
        if (flag.defaultVariant) await this.#requireVariants(tx, ns, flag.key, [flag.defaultVariant.id]);
        await restore.updateFlagRow(tx, flag);
        return;
      }
      case 'namespace':
        await restore.updateNamespaceRow(tx, before as Namespace);
        return;
      case 'variant':
        await restore.updateVariantRow(tx, before as Variant);
        return;
      case 'segment': {
        const segment = before as Segment;
        await restore.updateSegmentRow(tx, segment);
        // An atomic write of the segment with its constraints (ADR 0036): its list is put back too.
        const after = change.after as Segment | undefined;
        if (after && !sameParts(segment.constraints, after.constraints)) {
          await this.#restoreConstraints(tx, ns, segment);
        }
        return;
      }
      case 'constraint':
        await restore.updateConstraintRow(tx, before as Constraint);
        return;
      case 'rule': {
        if (isOrder(change)) return this.#reorder(tx, ns, 'rules', change);
        const rule = before as Rule;
        await this.#requireSegments(tx, ns, rule.segmentKeys, 'the rule');
        await restore.updateRule(tx, rule);
        // An atomic write of the rule with its split (ADR 0036): the split is put back too.
        const after = change.after as Rule | undefined;
        if (after && !sameParts(rule.distributions, after.distributions)) await this.#restoreSplit(tx, ns, rule);
        return;
      }
      case 'distribution': {
        const d = before as Distribution;
        const rule = await this.states.rule(tx, ns, d.ruleId);
        if (rule) await this.#requireVariants(tx, ns, rule.flagKey, [d.variantId]);
        await restore.updateDistributionRow(tx, d);
        return;
      }
      case 'rollout': {
        if (isOrder(change)) return this.#reorder(tx, ns, 'rollouts', change);
        const r = before as Rollout;
        await this.#requireSegments(tx, ns, r.segment?.segmentKeys ?? [], 'the rollout');
        await restore.updateRollout(tx, r);
        return;
      }
      default:
        throw new FailedPreconditionError(`a ${change.resourceType} change cannot be reverted`);
    }
  }

  /** The siblings back where they stood before the delete, else shifted down to free the rank. */
  async #makeRoom(
    tx: Tx,
    ns: string,
    table: 'rules' | 'rollouts',
    item: { flagKey: string; rank: number; siblingsBefore?: SiblingRank[] },
  ): Promise<void> {
    if (item.siblingsBefore) await restore.setRanks(tx, table, ns, item.siblingsBefore);
    else await restore.shiftRanks(tx, table, ns, item.flagKey, item.rank);
  }

  async #reorder(tx: Tx, ns: string, table: 'rules' | 'rollouts', change: Change): Promise<void> {
    const before = change.before as SiblingRank[];
    const current = (await this.#current(tx, ns, change)) as { id: string }[];
    const now = new Set(current.map((i) => i.id));
    const gone = before.find((i) => !now.has(i.id));
    if (gone || now.size !== before.length) {
      throw new FailedPreconditionError(
        `the ${table} of flag "${ns}/${change.parentKey ?? ''}" changed since; ${gone ? `"${gone.id}" no longer exists` : 'one was added'}`,
      );
    }
    await restore.setRanks(tx, table, ns, before as SiblingRank[]);
  }

  async #requireFlag(tx: Tx, ns: string, flagKey: string): Promise<void> {
    if (!(await this.stores.flags.exists(tx, ns, flagKey))) {
      throw new FailedPreconditionError(`flag "${ns}/${flagKey}" no longer exists`);
    }
  }

  async #requireSegments(tx: Tx, ns: string, keys: string[], user: string): Promise<void> {
    if (keys.length === 0) return;
    const [missing] = await this.stores.segments.missingKeys(tx, ns, [...new Set(keys)]);
    if (missing !== undefined) {
      throw new FailedPreconditionError(`segment "${ns}/${missing}" used by ${user} no longer exists`);
    }
  }

  /** Makes the rule's distributions exactly the recorded ones (ids, rollouts, timestamps). */
  async #restoreSplit(tx: Tx, ns: string, rule: Rule): Promise<void> {
    await this.#requireVariants(
      tx,
      ns,
      rule.flagKey,
      rule.distributions.map((d) => d.variantId),
    );
    const current = (await this.states.rule(tx, ns, rule.id))?.distributions ?? [];
    const keep = new Set(rule.distributions.map((d) => d.id));
    for (const d of current)
      if (!keep.has(d.id)) await this.stores.rules.deleteDistribution(tx, rule.id, d.id, d.variantId);
    for (const d of rule.distributions) {
      if (current.some((c) => c.id === d.id)) await restore.updateDistributionRow(tx, d);
      else await restore.insertDistributionRow(tx, d);
    }
  }

  /** Makes the segment's constraints exactly the recorded ones. */
  async #restoreConstraints(tx: Tx, ns: string, segment: Segment): Promise<void> {
    const current = (await this.states.segment(tx, ns, segment.key))?.constraints ?? [];
    const keep = new Set(segment.constraints.map((c) => c.id));
    for (const c of current)
      if (!keep.has(c.id)) await this.stores.segments.deleteConstraint(tx, ns, segment.key, c.id);
    for (const c of segment.constraints) {
      if (current.some((x) => x.id === c.id)) await restore.updateConstraintRow(tx, c);
      else await restore.insertConstraintRow(tx, c);
    }
  }

  async #requireVariants(tx: Tx, ns: string, flagKey: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const flag = await this.states.flag(tx, ns, flagKey);
    if (!flag) throw new FailedPreconditionError(`flag "${ns}/${flagKey}" no longer exists`);
    const missing = ids.find((id) => !flag.variants.some((v) => v.id === id));
    if (missing) throw new FailedPreconditionError(`variant "${missing}" of flag "${ns}/${flagKey}" no longer exists`);
  }
}

/** Whether a change's before and after hold the same parts (distributions, constraints). */
function sameParts(before: readonly unknown[] | undefined, after: readonly unknown[] | undefined): boolean {
  return JSON.stringify(before ?? []) === JSON.stringify(after ?? []);
}

/** A reorder is recorded on the flag's list: its states are arrays. */
function isOrder(change: Change): boolean {
  return Array.isArray(change.before) || Array.isArray(change.after);
}

/** What stops a revert, as a precondition failure; anything unexpected stays as it is. */
export function blocker(err: unknown, change: Change): unknown {
  if (err instanceof FailedPreconditionError) return err;
  const label = `${change.resourceType} "${change.resourceKey}"`;
  if (err instanceof InvalidArgumentError || err instanceof NotFoundError) {
    return new FailedPreconditionError(`cannot revert change ${change.id}: ${err.message}`);
  }
  if (err instanceof DomainError) return err;
  switch (classifyDriverError(err)) {
    case 'unique':
      return new FailedPreconditionError(`cannot revert change ${change.id}: ${label} or a part of it exists again`);
    case 'foreign-key':
      return new FailedPreconditionError(
        `cannot revert change ${change.id}: something ${label} refers to no longer exists`,
      );
    default:
      return err;
  }
}
