// Whether async and promise hooks are installed in this process. An enabled AsyncLocalStorage installs
// them on Node 20, and every later promise and tick pays for them (ADR 0009).

import { executionAsyncResource } from 'node:async_hooks';

/**
 * Only with promise hooks installed does a promise continuation run with the promise as its execution
 * resource (public API). Waits a turn first, so 'close' events due on the next tick have run.
 */
export async function promiseHooksOn(): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  await null;
  return executionAsyncResource() instanceof Promise;
}
