// The flag and variant use cases on a real SQLite file, without HTTP: create, read, update, delete,
// the default variant, the cascade of a flag's delete, Flipt's errors, and one revision bump per write.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestServices, rejection, type TestServices } from '../../test/helpers/services.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, ValidationError } from '../domain/errors.js';
import { ALL } from '../storage/pagination.js';

describe('FlagService and VariantService', () => {
  let t: TestServices;
  beforeEach(async () => {
    t = await openTestServices();
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates a flag in one write and reads it back, with no variants yet', async () => {
    const created = await t.oneWrite('default', () =>
      t.services.flags.create('default', { key: 'f', name: 'F', description: 'd', enabled: true }),
    );
    expect(created).toMatchObject({
      key: 'f',
      name: 'F',
      description: 'd',
      enabled: true,
      namespaceKey: 'default',
      type: 'VARIANT_FLAG_TYPE',
      variants: [],
    });
    expect(await t.services.flags.get('default', 'f')).toEqual(created);
  });

  it('lists flags in creation order with Flipt paging', async () => {
    for (const key of ['a', 'b', 'c']) await t.services.flags.create('default', { key, name: key });
    const first = await t.services.flags.list('default', { limit: 2, offset: 0, pageToken: '' });
    expect(first.items.map((f) => f.key)).toEqual(['a', 'b']);
    expect(first.totalCount).toBe(3);
    const rest = await t.services.flags.list('default', { limit: 2, offset: 0, pageToken: first.nextPageToken });
    expect(rest.items.map((f) => f.key)).toEqual(['c']);
    expect((await t.services.flags.list('no-such-namespace', ALL)).items).toEqual([]);
  });

  it('refuses duplicates, unknown namespaces and bad input without writing', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    const duplicate = await t.failedWrite('default', () =>
      t.services.flags.create('default', { key: 'f', name: 'Again' }),
    );
    expect(duplicate).toBeInstanceOf(AlreadyExistsError);
    expect(duplicate.message).toBe('flag "default/f" is not unique');

    const unknown = await rejection(() => t.services.flags.create('nope', { key: 'f', name: 'F' }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.message).toBe('namespace "nope" not found');

    const badKey = await t.failedWrite('default', () => t.services.flags.create('default', { key: 'a/b', name: 'X' }));
    expect(badKey).toBeInstanceOf(ValidationError);
  });

  it('answers an unknown flag with NotFound on get and update', async () => {
    const get = await rejection(() => t.services.flags.get('default', 'nope'));
    expect(get).toBeInstanceOf(NotFoundError);
    expect(get.message).toBe('flag "default/nope" not found');
    const update = await t.failedWrite('default', () => t.services.flags.update('default', 'nope', { name: 'N' }));
    expect(update).toBeInstanceOf(NotFoundError);
    expect(update.message).toBe('flag "default/nope" not found');
  });

  it('creates, updates and deletes variants, each in one write, and the flag embeds them in order', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    const on = await t.oneWrite('default', () =>
      t.services.variants.create('default', 'f', { key: 'on', name: 'On', attachment: '{ "a": [1, 2] }' }),
    );
    expect(on).toMatchObject({
      key: 'on',
      name: 'On',
      flagKey: 'f',
      namespaceKey: 'default',
      attachment: '{"a":[1,2]}',
    });
    const off = await t.oneWrite('default', () => t.services.variants.create('default', 'f', { key: 'off' }));
    expect((await t.services.flags.get('default', 'f')).variants.map((v) => v.key)).toEqual(['on', 'off']);

    const renamed = await t.oneWrite('default', () =>
      t.services.variants.update('default', 'f', off.id, { key: 'disabled', description: 'no' }),
    );
    expect(renamed).toMatchObject({ id: off.id, key: 'disabled', description: 'no' });

    await t.oneWrite('default', () => t.services.variants.delete('default', 'f', on.id));
    expect((await t.services.flags.get('default', 'f')).variants.map((v) => v.key)).toEqual(['disabled']);
  });

  it('refuses a duplicate variant key, a variant of an unknown flag and an unknown variant', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    const on = await t.services.variants.create('default', 'f', { key: 'on' });
    await t.services.variants.create('default', 'f', { key: 'off' });

    const duplicate = await t.failedWrite('default', () => t.services.variants.create('default', 'f', { key: 'on' }));
    expect(duplicate).toBeInstanceOf(AlreadyExistsError);
    expect(duplicate.message).toBe('variant "on" is not unique for flag "default/f"');
    const renamedOntoOther = await t.failedWrite('default', () =>
      t.services.variants.update('default', 'f', on.id, { key: 'off' }),
    );
    expect(renamedOntoOther).toBeInstanceOf(AlreadyExistsError);

    const noFlag = await t.failedWrite('default', () => t.services.variants.create('default', 'nope', { key: 'x' }));
    expect(noFlag).toBeInstanceOf(NotFoundError);
    expect(noFlag.message).toBe('flag "default/nope" not found');
    const noVariant = await t.failedWrite('default', () =>
      t.services.variants.update('default', 'f', 'no-such-id', { key: 'x' }),
    );
    expect(noVariant).toBeInstanceOf(NotFoundError);
    expect(noVariant.message).toBe('variant "x" not found');
    const badAttachment = await rejection(() =>
      t.services.variants.create('default', 'f', { key: 'j', attachment: '{' }),
    );
    expect(badAttachment.message).toBe('invalid field attachment: must be a json string');
  });

  it('sets and clears the default variant; deleting that variant clears it too', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    await t.services.flags.create('default', { key: 'g', name: 'G' });
    const on = await t.services.variants.create('default', 'f', { key: 'on' });
    const other = await t.services.variants.create('default', 'g', { key: 'other' });

    const updated = await t.oneWrite('default', () =>
      t.services.flags.update('default', 'f', { name: 'F2', enabled: true, defaultVariantId: on.id }),
    );
    expect(updated).toMatchObject({ name: 'F2', enabled: true, defaultVariant: { id: on.id, key: 'on' } });

    const foreign = await t.failedWrite('default', () =>
      t.services.flags.update('default', 'f', { name: 'F2', defaultVariantId: other.id }),
    );
    expect(foreign).toBeInstanceOf(InvalidArgumentError);
    expect(foreign.message).toBe(`variant "${other.id}" not found for flag "default/f"`);

    // An update without defaultVariantId clears it, as in Flipt.
    const cleared = await t.oneWrite('default', () => t.services.flags.update('default', 'f', { name: 'F3' }));
    expect(cleared.defaultVariant).toBeUndefined();

    await t.services.flags.update('default', 'f', { name: 'F4', defaultVariantId: on.id });
    await t.oneWrite('default', () => t.services.variants.delete('default', 'f', on.id));
    const flag = await t.services.flags.get('default', 'f');
    expect(flag.defaultVariant).toBeUndefined();
    expect(flag.variants).toEqual([]);
  });

  it('replaces metadata only when sent', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F', metadata: { team: 'a' } });
    expect((await t.services.flags.get('default', 'f')).metadata).toEqual({ team: 'a' });
    await t.services.flags.update('default', 'f', { name: 'F' });
    expect((await t.services.flags.get('default', 'f')).metadata).toEqual({ team: 'a' });
    await t.services.flags.update('default', 'f', { name: 'F', metadata: { team: 'b' } });
    expect((await t.services.flags.get('default', 'f')).metadata).toEqual({ team: 'b' });
  });

  it('deletes a flag with its variants, rules and rollouts; deleting again or in an unknown namespace is no error', async () => {
    await t.services.flags.create('default', { key: 'f', name: 'F' });
    const on = await t.services.variants.create('default', 'f', { key: 'on' });
    await t.services.segments.create('default', { key: 's', name: 'S' });
    const rule = await t.services.rules.create('default', 'f', { rank: 1, segmentKey: 's' });
    await t.services.distributions.create('default', 'f', rule.id, { variantId: on.id, rollout: 100 });
    await t.services.flags.create('default', { key: 'b', name: 'B', type: 'BOOLEAN_FLAG_TYPE' });
    await t.services.rollouts.create('default', 'b', { rank: 1, threshold: { percentage: 50, value: true } });

    await t.oneWrite('default', () => t.services.flags.delete('default', 'f'));
    await t.oneWrite('default', () => t.services.flags.delete('default', 'b'));
    const get = await rejection(() => t.services.flags.get('default', 'f'));
    expect(get).toBeInstanceOf(NotFoundError);
    for (const table of ['flags', 'variants', 'rules', 'rule_segments', 'rollouts'] as const) {
      expect(await t.rowsOf(table, 'default')).toBe(0);
    }
    expect(await t.db.selectFrom('distributions').selectAll().execute()).toEqual([]);
    // The segment is no flag's: it stays.
    expect((await t.services.segments.get('default', 's')).key).toBe('s');

    // Flipt's delete is idempotent; again, or in an unknown namespace, it writes nothing at all (ADR 53).
    await t.noWrite('default', () => t.services.flags.delete('default', 'f'));
    await t.noWrite('nope', () => t.services.flags.delete('nope', 'f'));
    await t.noWrite('nope', () => t.services.variants.delete('nope', 'f', on.id));
  });
});
