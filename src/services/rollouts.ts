// Rollout use cases (boolean flags): list, get, create, update, delete, order — Flipt v1's rules and
// messages (behavior.md §3.4, §3.5), every write through runWrite.

import { InvalidArgumentError, NotFoundError, ValidationError } from '../domain/errors.js';
import type { Page, Rollout, RolloutSegment, RolloutThreshold, SegmentOperator } from '../domain/types.js';
import type { ListQuery } from '../storage/pagination.js';
import type { FlagReads, NamespaceReads, RolloutStore, SegmentReads } from '../storage/store.js';
import { type ResourceStates, siblingRanks } from './resource-states.js';
import { requireNonEmpty } from './validation.js';
import { runWrite, type WriteContext } from './write.js';

export interface RolloutSegmentInput {
  segmentKey?: string;
  segmentKeys?: string[];
  segmentOperator?: SegmentOperator;
  value?: boolean;
}

export interface RolloutThresholdInput {
  percentage?: number;
  value?: boolean;
}

export interface RolloutInput {
  rank?: number;
  description?: string;
  segment?: RolloutSegmentInput;
  threshold?: RolloutThresholdInput;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A rule as the request gave it, validated (request-level checks of Flipt's Validate()). */
type RequestedRule =
  | { kind: 'segment'; segmentKey: string; segment: RolloutSegment }
  | { kind: 'threshold'; threshold: RolloutThreshold }
  | { kind: 'none' };

/** Order-preserving de-duplication; one explicit segmentKey wins over the list (it cannot have both). */
function sanitizeSegmentKeys(segmentKey: string, segmentKeys: string[]): string[] {
  return [...new Set(segmentKey !== '' ? [segmentKey] : segmentKeys)];
}

/**
 * The rule of a create/update body. Both members of the oneof present: the decoder Flipt uses keeps
 * the later field in declaration order, so `threshold` wins over `segment`.
 */
function requestedRule(input: RolloutInput): RequestedRule {
  if (input.threshold) {
    // The wire type is float32: range-check the value as Flipt will store it.
    const percentage = Math.fround(input.threshold.percentage ?? 0);
    if (!(percentage >= 0 && percentage <= 100)) {
      throw new ValidationError('threshold.percentage', 'must be within range [0, 100]');
    }
    return { kind: 'threshold', threshold: { percentage, value: input.threshold.value ?? false } };
  }
  if (input.segment) {
    const segmentKey = input.segment.segmentKey ?? '';
    const segmentKeys = input.segment.segmentKeys ?? [];
    if (segmentKey === '' && segmentKeys.length === 0) {
      throw new ValidationError('segmentKey or segmentKeys', 'must not be empty');
    }
    if (segmentKey !== '' && segmentKeys.length > 0) {
      throw new ValidationError('segmentKey or segmentKeys', 'only one can be present');
    }
    const keys = sanitizeSegmentKeys(segmentKey, segmentKeys);
    return {
      kind: 'segment',
      segmentKey,
      segment: {
        segmentKeys: keys,
        // A single segment has nothing to combine: Flipt stores OR whatever was asked.
        segmentOperator:
          keys.length === 1 ? 'OR_SEGMENT_OPERATOR' : (input.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR'),
        value: input.segment.value ?? false,
      },
    };
  }
  return { kind: 'none' };
}

function subject(namespaceKey: string, flagKey: string, id: string) {
  return { namespaceKey, resourceType: 'rollout', resourceKey: id, parentKey: flagKey } as const;
}

export class RolloutService {
  constructor(
    private readonly ctx: WriteContext,
    private readonly rollouts: RolloutStore,
    private readonly flags: FlagReads,
    private readonly segments: SegmentReads,
    private readonly namespaces: NamespaceReads,
    private readonly states: ResourceStates,
  ) {}

  /** Rank order; an unknown flag or namespace lists as empty. */
  list(namespaceKey: string, flagKey: string, query: ListQuery): Promise<Page<Rollout>> {
    requireNonEmpty('flagKey', flagKey);
    return this.rollouts.list(this.ctx.db, namespaceKey, flagKey, query);
  }

  /** Looked up by namespace and id; the flag in the path is not checked (Flipt). */
  get(namespaceKey: string, flagKey: string, id: string): Promise<Rollout> {
    requireNonEmpty('flagKey', flagKey);
    requireNonEmpty('id', id);
    return this.rollouts.get(this.ctx.db, namespaceKey, id);
  }

  async create(namespaceKey: string, flagKey: string, input: RolloutInput): Promise<Rollout> {
    const rank = input.rank ?? 0;
    if (!Number.isInteger(rank) || rank < INT32_MIN || rank > INT32_MAX) {
      throw new ValidationError('rank', 'must be an int32');
    }
    requireNonEmpty('flagKey', flagKey);
    const rule = requestedRule(input);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      // Flipt checks the rank before anything else, then the rule, then (through foreign keys) the
      // flag and segments.
      if (await this.rollouts.rankTaken(tx, namespaceKey, flagKey, rank)) {
        throw new InvalidArgumentError(`rank number: ${rank} already exists`);
      }
      if (rule.kind === 'none') throw new InvalidArgumentError('rollout rule is missing');
      const missingSubject =
        rule.kind === 'segment'
          ? // Flipt's own quoting, and only the singular segmentKey, even when segmentKeys was used.
            `flag "${namespaceKey}/${flagKey} or segment ${rule.segmentKey}"`
          : `flag "${namespaceKey}/${flagKey}"`;
      if (!(await this.flags.exists(tx, namespaceKey, flagKey))) throw new NotFoundError(missingSubject);
      if (
        rule.kind === 'segment' &&
        (await this.segments.missingKeys(tx, namespaceKey, rule.segment.segmentKeys)).length > 0
      ) {
        throw new NotFoundError(missingSubject);
      }
      const after = await this.rollouts.insert(tx, {
        namespaceKey,
        flagKey,
        rank,
        description: input.description ?? '',
        rule: rule.kind === 'segment' ? { segment: rule.segment } : { threshold: rule.threshold },
        missingReferenceSubject: missingSubject,
      });
      changes.record({ ...subject(namespaceKey, flagKey, after.id), action: 'created', after });
      return after;
    });
  }

  /** Updates description and the rule (of the same type); the rank changes only through order. */
  async update(namespaceKey: string, flagKey: string, id: string, input: RolloutInput): Promise<Rollout> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    const rule = requestedRule(input);
    return runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const current = await this.rollouts.get(tx, namespaceKey, id);
      if (!(await this.rollouts.touch(tx, namespaceKey, flagKey, id, input.description ?? ''))) {
        throw new NotFoundError(`rollout "${namespaceKey}/${id}"`);
      }
      if (rule.kind === 'none') throw new ValidationError('rule', 'invalid rollout rule type');
      const attempted = rule.kind === 'segment' ? 'SEGMENT_ROLLOUT_TYPE' : 'THRESHOLD_ROLLOUT_TYPE';
      if (current.type !== attempted) {
        throw new InvalidArgumentError(
          `cannot change type of rollout: have "${current.type}" attempted "${attempted}"`,
        );
      }
      if (rule.kind === 'segment') {
        // Flipt answers an unknown segment here with a raw driver error (500); we say which one.
        const [missing] = await this.segments.missingKeys(tx, namespaceKey, rule.segment.segmentKeys);
        const subject = `segment "${namespaceKey}/${missing ?? rule.segment.segmentKeys[0] ?? ''}"`;
        if (missing !== undefined) throw new NotFoundError(subject);
        await this.rollouts.replaceSegment(tx, namespaceKey, id, rule.segment, subject);
      } else {
        await this.rollouts.replaceThreshold(tx, namespaceKey, id, rule.threshold);
      }
      const after = await this.rollouts.get(tx, namespaceKey, id);
      changes.record({ ...subject(namespaceKey, flagKey, id), action: 'updated', before: current, after });
      return after;
    });
  }

  /** Deletes a rollout (unknown ids succeed) and renumbers the flag's remaining rollouts 1..n. */
  async delete(namespaceKey: string, flagKey: string, id: string): Promise<void> {
    requireNonEmpty('id', id);
    requireNonEmpty('flagKey', flagKey);
    if (!(await this.namespaces.find(this.ctx.db, namespaceKey))) return;
    await runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.rollout(tx, namespaceKey, id);
      // As for rules: the delete renumbers the others, whose ranks are recorded for a revert.
      const siblings = before?.flagKey === flagKey ? await this.states.rolloutOrder(tx, namespaceKey, flagKey) : [];
      await this.rollouts.delete(tx, namespaceKey, flagKey, id);
      if (before && before.flagKey === flagKey) {
        const state = { ...before, siblingsBefore: siblingRanks(siblings, id) };
        changes.record({ ...subject(namespaceKey, flagKey, id), action: 'deleted', before: state });
      }
    });
  }

  /** rank = position + 1 for each listed id; unlisted rollouts keep their ranks (Flipt). */
  async order(namespaceKey: string, flagKey: string, rolloutIds: string[] | undefined): Promise<void> {
    requireNonEmpty('flagKey', flagKey);
    const ids = rolloutIds ?? [];
    if (ids.length < 2) throw new ValidationError('rolloutIds', 'must contain atleast 2 elements');
    if (!(await this.namespaces.find(this.ctx.db, namespaceKey))) return;
    await runWrite(this.ctx, namespaceKey, async (tx, changes) => {
      const before = await this.states.rolloutOrder(tx, namespaceKey, flagKey);
      await this.rollouts.order(tx, namespaceKey, flagKey, ids);
      const after = await this.states.rolloutOrder(tx, namespaceKey, flagKey);
      // As for rules: a reorder is recorded on the flag's rollout list.
      changes.record({ ...subject(namespaceKey, flagKey, flagKey), action: 'updated', before, after });
    });
  }
}
