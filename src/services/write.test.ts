// collectWrites: the receipt reaches the writes of its async flow, and the AsyncLocalStorage behind it
// is switched off once no receipt is open, so it leaves no async hooks for every later promise to pay.

import { executionAsyncResource } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { collectWrites, type WriteReceipt } from './write.js';

/**
 * Whether promise hooks are installed: only then does a promise continuation run with the promise as
 * its execution resource (public API; an enabled AsyncLocalStorage installs them on Node 20).
 */
async function promiseHooksOn(): Promise<boolean> {
  await null;
  return executionAsyncResource() instanceof Promise;
}

describe('collectWrites', () => {
  it('installs promise hooks only while a receipt is open', async () => {
    expect(await promiseHooksOn()).toBe(false);
    let close = (): void => {};
    let seenInside = false;
    close = collectWrites({}, () => {
      void promiseHooksOn().then((on) => {
        seenInside = on;
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
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
