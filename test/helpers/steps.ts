import type { Steps } from '../../src/evaluation/steps.js';

/** Runs the steps to their end, counting the pauses on the way. */
export function runCountingPauses<T>(steps: Steps<T>): { pauses: number; value: T } {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { pauses, value: step.value };
    pauses++;
  }
}
