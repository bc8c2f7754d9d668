// The rule and distribution use cases on a real SQLite file, without HTTP: rules over one or several
// segments in rank order, reordering, deletes that renumber, distributions and what removes them, the
// RESTRICT that keeps a used segment, Flipt's errors, and one revision bump per write.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestServices, rejection, type TestServices } from '../../test/helpers/services.js';
import { InvalidArgumentError, NotFoundError, ValidationError } from '../domain/errors.js';
import type { Variant } from '../domain/types.js';
import { ALL } from '../storage/pagination.js';

describe('RuleService and DistributionService', () => {
  let t: TestServices;
  let on: Variant;
  let off: Variant;
  beforeEach(async () => {
    t = await openTestServices();
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    on = await t.services.variants.create('default', 'f', { key: 'on' });
    off = await t.services.variants.create('default', 'f', { key: 'off' });
    await t.services.segments.create('default', { key: 's1', name: 'S1' });
    await t.services.segments.create('default', { key: 's2', name: 'S2' });
  });
  afterEach(async () => {
    await t.close();
  });

  const ranks = async () =>
    (await t.services.rules.list('default', 'f', ALL)).items.map((r) => [r.rank, r.segmentKeys.join('+')]);

  it('creates rules in one write each and lists them by rank', async () => {
    const second = await t.oneWrite('default', () =>
      t.services.rules.create('default', 'f', {
        rank: 2,
        segmentKeys: ['s1', 's2', 's1'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      }),
    );
    expect(second).toMatchObject({
      flagKey: 'f',
      namespaceKey: 'default',
      rank: 2,
      segmentKeys: ['s1', 's2'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
      distributions: [],
    });
    const first = await t.oneWrite('default', () =>
      t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1', segmentOperator: 'AND_SEGMENT_OPERATOR' }),
    );
    // One segment has nothing to combine: OR whatever was asked.
    expect(first.segmentOperator).toBe('OR_SEGMENT_OPERATOR');
    expect(await t.services.rules.get('default', 'f', second.id)).toEqual(second);
    expect(await ranks()).toEqual([
      [1, 's1'],
      [2, 's1+s2'],
    ]);
    const page = await t.services.rules.list('default', 'f', { limit: 1, offset: 0, pageToken: '' });
    expect(page.items.map((r) => r.id)).toEqual([first.id]);
    expect(page.totalCount).toBe(2);
    expect(page.nextPageToken).not.toBe('');
  });

  it('refuses unknown flags, segments and rules, and bad input, without writing', async () => {
    const noSegment = await t.failedWrite('default', () =>
      t.services.rules.create('default', 'f', { rank: 1, segmentKey: 'nope' }),
    );
    expect(noSegment).toBeInstanceOf(NotFoundError);
    expect(noSegment.message).toBe('flag "default/f" or segment "default/nope" not found');
    const noFlag = await t.failedWrite('default', () =>
      t.services.rules.create('default', 'nope', { rank: 1, segmentKey: 's1' }),
    );
    expect(noFlag.message).toBe('flag "default/nope" or segment "default/s1" not found');
    const badRank = await rejection(() => t.services.rules.create('default', 'f', { rank: 0, segmentKey: 's1' }));
    expect(badRank).toBeInstanceOf(ValidationError);
    expect(badRank.message).toBe('invalid field rank: must be greater than 0');

    const rule = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const missingOnUpdate = await t.failedWrite('default', () =>
      t.services.rules.update('default', 'f', rule.id, { segmentKeys: ['s1', 'gone'] }),
    );
    expect(missingOnUpdate.message).toBe('segment "default/gone" not found');
    const noRule = await t.failedWrite('default', () =>
      t.services.rules.update('default', 'f', 'no-such-rule', { segmentKey: 's1' }),
    );
    expect(noRule).toBeInstanceOf(NotFoundError);
    expect(noRule.message).toBe('rule "default/no-such-rule" not found');
    const get = await rejection(() => t.services.rules.get('default', 'f', 'no-such-rule'));
    expect(get.message).toBe('rule "default/no-such-rule" not found');
  });

  it('updates the segments of a rule, keeping its rank', async () => {
    const rule = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const updated = await t.oneWrite('default', () =>
      t.services.rules.update('default', 'f', rule.id, {
        segmentKeys: ['s2', 's1'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      }),
    );
    expect(updated).toMatchObject({
      id: rule.id,
      rank: 1,
      segmentKeys: ['s2', 's1'],
      segmentOperator: 'AND_SEGMENT_OPERATOR',
    });
  });

  it('orders rules, and a delete renumbers the rest 1..n', async () => {
    const a = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const b = await t.services.rules.create('default', 'f', { rank: 2, segmentKey: 's2' });
    const c = await t.services.rules.create('default', 'f', { rank: 3, segmentKeys: ['s1', 's2'] });
    await t.oneWrite('default', () => t.services.rules.order('default', 'f', [c.id, a.id, b.id]));
    expect(await ranks()).toEqual([
      [1, 's1+s2'],
      [2, 's1'],
      [3, 's2'],
    ]);
    const tooFew = await rejection(() => t.services.rules.order('default', 'f', [a.id]));
    expect(tooFew.message).toBe('invalid field ruleIds: must contain atleast 2 elements');

    await t.oneWrite('default', () => t.services.rules.delete('default', 'f', c.id));
    expect(await ranks()).toEqual([
      [1, 's1'],
      [2, 's2'],
    ]);
    // Idempotent: an unknown rule, like an unknown namespace, writes nothing (ADR 53).
    await t.noWrite('default', () => t.services.rules.delete('default', 'f', c.id));
    await t.noWrite('nope', () => t.services.rules.delete('nope', 'f', c.id));
  });

  it('creates, updates and deletes distributions, each in one write, read with their rule', async () => {
    const rule = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const toOn = await t.oneWrite('default', () =>
      t.services.distributions.create('default', 'f', rule.id, { variantId: on.id, rollout: 30 }),
    );
    expect(toOn).toMatchObject({ ruleId: rule.id, variantId: on.id, rollout: 30 });
    const toOff = await t.oneWrite('default', () =>
      t.services.distributions.create('default', 'f', rule.id, { variantId: off.id, rollout: 70 }),
    );
    expect((await t.services.rules.get('default', 'f', rule.id)).distributions.map((d) => d.rollout)).toEqual([30, 70]);

    const updated = await t.oneWrite('default', () =>
      t.services.distributions.update('default', 'f', rule.id, toOn.id, { variantId: on.id, rollout: 50 }),
    );
    expect(updated).toMatchObject({ id: toOn.id, rollout: 50 });

    await t.oneWrite('default', () => t.services.distributions.delete('default', 'f', rule.id, toOff.id, off.id));
    expect((await t.services.rules.get('default', 'f', rule.id)).distributions).toEqual([updated]);
    // The variant id is part of the match: another variant's id deletes nothing.
    await t.noWrite('default', () => t.services.distributions.delete('default', 'f', rule.id, toOn.id, off.id));
    expect((await t.services.rules.get('default', 'f', rule.id)).distributions).toHaveLength(1);
  });

  it('refuses distributions with unknown parents or a rollout out of range, without writing', async () => {
    const rule = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const noVariant = await t.failedWrite('default', () =>
      t.services.distributions.create('default', 'f', rule.id, { variantId: 'no-such-variant', rollout: 10 }),
    );
    expect(noVariant).toBeInstanceOf(NotFoundError);
    expect(noVariant.message).toBe(
      `variant "no-such-variant", rule "${rule.id}", flag "f" in namespace "default" not found`,
    );
    const noRule = await t.failedWrite('default', () =>
      t.services.distributions.create('default', 'f', 'no-such-rule', { variantId: on.id, rollout: 10 }),
    );
    expect(noRule).toBeInstanceOf(NotFoundError);
    const noDistribution = await t.failedWrite('default', () =>
      t.services.distributions.update('default', 'f', rule.id, 'no-such-id', { variantId: on.id, rollout: 10 }),
    );
    expect(noDistribution.message).toBe('distribution "no-such-id" not found');
    const tooMuch = await rejection(() =>
      t.services.distributions.create('default', 'f', rule.id, { variantId: on.id, rollout: 101 }),
    );
    expect(tooMuch.message).toBe("invalid field rollout: must be less than or equal to '100'");
  });

  it('drops the distributions of a deleted variant or rule, and keeps a segment a rule uses', async () => {
    const a = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's1' });
    const b = await t.services.rules.create('default', 'f', { rank: 2, segmentKey: 's2' });
    await t.services.distributions.create('default', 'f', a.id, { variantId: on.id, rollout: 50 });
    await t.services.distributions.create('default', 'f', a.id, { variantId: off.id, rollout: 50 });
    await t.services.distributions.create('default', 'f', b.id, { variantId: on.id, rollout: 100 });

    await t.services.variants.delete('default', 'f', on.id);
    expect((await t.services.rules.get('default', 'f', a.id)).distributions.map((d) => d.variantId)).toEqual([off.id]);
    expect((await t.services.rules.get('default', 'f', b.id)).distributions).toEqual([]);

    await t.services.rules.delete('default', 'f', a.id);
    const left = await t.db.selectFrom('distributions').select('rule_id').execute();
    expect(left).toEqual([]);
    expect(await t.rowsOf('rule_segments', 'default')).toBe(1);

    const inUse = await t.failedWrite('default', () => t.services.segments.delete('default', 's2'));
    expect(inUse).toBeInstanceOf(InvalidArgumentError);
    expect(inUse.message).toBe('segment "default/s2" is in use');
    await t.services.rules.delete('default', 'f', b.id);
    await t.oneWrite('default', () => t.services.segments.delete('default', 's2'));
  });
});
