// collectWrites switches its AsyncLocalStorage off once no receipt is open, so it leaves no async hooks
// for every later promise to pay (ADR 0009). That the receipt reaches the writes of its request is
// checked over HTTP (test/integration/tiers.test.ts: each of concurrent writes gets its own revision).

import { describe, expect, it } from 'vitest';
import { promiseHooksOn } from '../../test/helpers/async-hooks.js';
import { collectWrites, type WriteReceipt } from './write.js';

describe('collectWrites', () => {
  it('installs promise hooks only while a receipt is open', async () => {
    expect(await promiseHooksOn()).toBe(false);
    let seenInside = false;
    const close = collectWrites({}, () => {
      void promiseHooksOn().then((on) => {
        seenInside = on;
      });
    });
    await promiseHooksOn();
    expect(seenInside).toBe(true);
    expect(await promiseHooksOn()).toBe(true);
    close();
    expect(await promiseHooksOn()).toBe(false);
  });

  it('stays on until the last of overlapping receipts closes, and a second close changes nothing', async () => {
    const first = collectWrites({}, () => {});
    const second = collectWrites({}, () => {});
    first();
    first();
    expect(await promiseHooksOn()).toBe(true);
    second();
    expect(await promiseHooksOn()).toBe(false);
    const third = collectWrites({}, () => {});
    expect(await promiseHooksOn()).toBe(true);
    third();
    expect(await promiseHooksOn()).toBe(false);
  });

  it('closes the receipt when the function throws', async () => {
    const receipt: WriteReceipt = {};
    expect(() =>
      collectWrites(receipt, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(await promiseHooksOn()).toBe(false);
  });
});
