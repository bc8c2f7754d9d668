// Rule and distribution use cases: list, get, create, update, order and delete rules (delete
// renumbers the rest 1..n), and create, update and delete the distributions of a rule. Flipt's
// validation order and messages are kept; what it does not validate (rank uniqueness, the sum of
// rollouts, rule/variant/flag belonging together) is not validated here either.

import { ValidationError } from '../domain/errors.js';
import type { Distribution, Page, Rule, SegmentOperator } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { NamespaceReads, RuleStore } from '../storage/store.js';
import type { Tx } from '../storage/transaction.js';
import { type ResourceStates, siblingRanks } from './resource-states.js';
import { requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface RuleInput {
  /** Create only: a position > 0 (ranks change only through order). */
  rank?: number | null;
  segmentKey?: string | null;
  segmentKeys?: readonly string[] | null;
  segmentOperator?: SegmentOperator | null;
  /**
   * A Vexil extension (issue 42): the rule's whole split, written with the rule in one transaction and
   * recorded as one change of the rule (ADR 0036). Absent or null: the distributions stay as they are.
   */
  distributions?: readonly DistributionInput[] | null;
}

export interface DistributionInput {
  variantId?: string | null;
  rollout?: number | null;
}

const INT32_MAX = 2 ** 31 - 1;

/** One of segmentKey / segmentKeys, de-duplicated in first-seen order; one key forces OR. */
export function ruleSegments(input: RuleInput): { segmentKeys: string[]; segmentOperator: SegmentOperator } {
  const single = input.segmentKey ?? '';
  const many = input.segmentKeys ?? [];
  if (single === '' && many.length === 0) throw new ValidationError('segmentKey or segmentKeys', 'must not be empty');
  if (single !== '' && many.length > 0)
    throw new ValidationError('segmentKey or segmentKeys', 'only one can be present');
  const segmentKeys = many.length > 0 ? [...new Set(many)] : [single];
  const segmentOperator =
    segmentKeys.length === 1 ? 'OR_SEGMENT_OPERATOR' : (input.segmentOperator ?? 'OR_SEGMENT_OPERATOR');
  return { segmentKeys, segmentOperator };
}

function checkRollout(rollout: number | null | undefined): number {
  // Flipt's field is a float32: compare what it would have stored.
  const value = Math.fround(rollout ?? 0);
  if (Number.isNaN(value) || value < 0) throw new ValidationError('rollout', "must be greater than or equal to '0'");
  if (value > 100) throw new ValidationError('rollout', "must be less than or equal to '100'");
  return rollout ?? 0;
}

/** The split of an atomic rule write: one entry per variant, each 0..100, together at most 100. */
export function ruleSplit(input: readonly DistributionInput[]): { variantId: string; rollout: number }[] {
  const split = input.map((d, i) => ({
    variantId: requireNonEmpty(`distributions[${i}].variantId`, d.variantId ?? undefined),
    rollout: checkRollout(d.rollout),
  }));
  const seen = new Set<string>();
  for (const d of split) {
    if (seen.has(d.variantId)) throw new ValidationError('distributions', `variant "${d.variantId}" is listed twice`);
    seen.add(d.variantId);
  }
  // Compared in hundredths of a thousandth, so 33.33 + 33.33 + 33.34 is 100.
  const total = split.reduce((sum, d) => sum + Math.round(Math.fround(d.rollout) * 1e5), 0);
  if (total > 100e5) throw new ValidationError('distributions', 'rollouts must add up to at most 100');
  return split;
}

function ruleSubject(namespaceKey: string, flagKey: string, id: string) {
  return { namespaceKey, resourceType: 'rule', resourceKey: id, parentKey: flagKey } as const;
}

/** A distribution's parent is its rule (the flag is the rule's parent). */
function distributionSubject(namespaceKey: string, ruleId: string, id: string) {
  return { namespaceKey, resourceType: 'distribution', resourceKey: id, parentKey: ruleId } as const;
}

export class RuleService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly rules: RuleStore,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  list(namespaceKey: string, flagKey: string, query: ListQuery): Promise<Page<Rule>> {
    requireNonEmpty('flagKey', flagKey);
    return this.rules.list(this.ctx.db, namespaceKey, flagKey, query);
  }

  /** Looked up by id and namespace, as Flipt does; the flag key is only required to be present. */
  get(namespaceKey: string, flagKey: string, id: string): Promise<Rule> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    return this.rules.get(this.ctx.db, namespaceKey, id);
  }

  create(ns: string, flagKey: string, input: RuleInput): Promise<Rule> {
    requireNonEmpty('flagKey', flagKey);
    const segments = ruleSegments(input);
    const rank = input.rank ?? 0;
    if (rank <= 0) throw new ValidationError('rank', 'must be greater than 0');
    if (!Number.isInteger(rank) || rank > INT32_MAX) throw new ValidationError('rank', 'must be an int32');
    const split = input.distributions ? ruleSplit(input.distributions) : undefined;
    return runWrite(this.ctx, ns, async (tx, changes) => {
      let after = await this.rules.insert(tx, ns, flagKey, {
        rank,
        ...segments,
        requestedSegmentKey: input.segmentKey ?? '',
      });
      if (split) {
        await this.#writeSplit(tx, ns, flagKey, after.id, [], split);
        after = (await this.states.rule(tx, ns, after.id)) ?? after;
      }
      changes.record({ ...ruleSubject(ns, flagKey, after.id), action: 'created', after });
      return after;
    });
  }

  update(ns: string, flagKey: string, id: string, input: RuleInput): Promise<Rule> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    const segments = ruleSegments(input);
    const split = input.distributions ? ruleSplit(input.distributions) : undefined;
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.rule(tx, ns, id);
      let after = await this.rules.update(tx, ns, flagKey, id, segments);
      if (split) {
        await this.#writeSplit(tx, ns, flagKey, id, before?.distributions ?? [], split);
        after = (await this.states.rule(tx, ns, id)) ?? after;
      }
      // With its split: one change, whose before and after carry the distributions (features/history reverts them).
      changes.record({ ...ruleSubject(ns, flagKey, id), action: 'updated', before, after });
      return after;
    });
  }

  /** Makes the rule's distributions `split`: same variant kept (its rollout updated), others deleted or added. */
  async #writeSplit(
    tx: Tx,
    ns: string,
    flagKey: string,
    ruleId: string,
    current: readonly Distribution[],
    split: readonly { variantId: string; rollout: number }[],
  ): Promise<void> {
    const wanted = new Map(split.map((d) => [d.variantId, d.rollout]));
    for (const d of current) {
      if (!wanted.has(d.variantId)) await this.rules.deleteDistribution(tx, ruleId, d.id, d.variantId);
    }
    for (const d of split) {
      const existing = current.find((c) => c.variantId === d.variantId);
      if (!existing) await this.rules.insertDistribution(tx, ns, flagKey, ruleId, d);
      else if (existing.rollout !== d.rollout) {
        await this.rules.updateDistribution(tx, ns, flagKey, ruleId, existing.id, d);
      }
    }
  }

  /** rank = position + 1 for each listed rule; at least two ids. */
  async order(ns: string, flagKey: string, ruleIds: readonly string[] | null | undefined): Promise<void> {
    requireNonEmpty('flagKey', flagKey);
    if (!ruleIds || ruleIds.length < 2) throw new ValidationError('ruleIds', 'must contain atleast 2 elements');
    await runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.ruleOrder(tx, ns, flagKey);
      await this.rules.order(tx, ns, flagKey, ruleIds);
      const after = await this.states.ruleOrder(tx, ns, flagKey);
      // A reorder is recorded on the flag's rule list: its key is the flag, its states the lists.
      changes.record({ ...ruleSubject(ns, flagKey, flagKey), action: 'updated', before, after });
    });
  }

  /** Idempotent; the flag's remaining rules are renumbered 1..n in the same transaction. */
  async delete(ns: string, flagKey: string, id: string): Promise<void> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    if (!(await this.namespaces.find(this.ctx.db, ns))) return;
    await runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.rule(tx, ns, id);
      // The delete renumbers the flag's other rules: their ranks are recorded so a revert puts them back.
      const siblings = before?.flagKey === flagKey ? await this.states.ruleOrder(tx, ns, flagKey) : [];
      await this.rules.delete(tx, ns, flagKey, id);
      if (before?.flagKey === flagKey) {
        const state = { ...before, siblingsBefore: siblingRanks(siblings, id) };
        changes.record({ ...ruleSubject(ns, flagKey, id), action: 'deleted', before: state });
      }
    });
  }
}

export class DistributionService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly rules: RuleStore,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  create(ns: string, flagKey: string, ruleId: string, input: DistributionInput): Promise<Distribution> {
    requireNonEmpty('flagKey', flagKey);
    requireNonEmpty('ruleId', ruleId);
    const variantId = requireNonEmpty('variantId', input.variantId ?? undefined);
    const rollout = checkRollout(input.rollout);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const after = await this.rules.insertDistribution(tx, ns, flagKey, ruleId, { variantId, rollout });
      changes.record({ ...distributionSubject(ns, ruleId, after.id), action: 'created', after });
      return after;
    });
  }

  update(ns: string, flagKey: string, ruleId: string, id: string, input: DistributionInput): Promise<Distribution> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    requireNonEmpty('ruleId', ruleId);
    const variantId = requireNonEmpty('variantId', input.variantId ?? undefined);
    const rollout = checkRollout(input.rollout);
    return runWrite(this.ctx, ns, async (tx, changes) => {
      const before = await this.states.distribution(tx, ns, ruleId, id);
      const after = await this.rules.updateDistribution(tx, ns, flagKey, ruleId, id, { variantId, rollout });
      changes.record({ ...distributionSubject(ns, ruleId, id), action: 'updated', before, after });
      return after;
    });
  }

  /** Idempotent; matches on id, rule and variant, so the variant id is required. */
  async delete(ns: string, flagKey: string, ruleId: string, id: string, variantId: string | undefined): Promise<void> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    requireNonEmpty('ruleId', ruleId);
    const variant = requireNonEmpty('variantId', variantId);
    if (!(await this.namespaces.find(this.ctx.db, ns))) return;
    await runWrite(this.ctx, ns, async (tx, changes) => {
      // Found through the namespace's own rule: a rule id of another namespace deletes nothing there.
      const before = await this.states.distribution(tx, ns, ruleId, id);
      if (before === undefined || before.variantId !== variant) return;
      await this.rules.deleteDistribution(tx, ruleId, id, variant);
      changes.record({ ...distributionSubject(ns, ruleId, id), action: 'deleted', before });
    });
  }
}
