// Orders test files for the two workers: the long ones first, so that the run does not end with one
// worker still busy on a long file the other could have shared. On a fresh clone (as CI runs) Vitest
// has no timings of earlier runs and orders by file size, which put 90-second files at the end.
// Files that drive Chromium alternate with ones that mostly wait, so the two workers seldom both run
// a browser on two cores. The list holds what took over 25 s (docs/performance.md, "Test suite");
// the rest keep Vitest's own order after them.

import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FIRST = [
  'test/integration/answer-matrix.test.ts',
  'test/e2e/dashboard-a11y.test.ts',
  'test/integration/program-documents.test.ts',
  'test/integration/freshness.test.ts',
  'test/e2e/dashboard.test.ts',
  'test/integration/api-fuzz.test.ts',
  'test/e2e/dashboard-live.test.ts',
  'test/integration/program.test.ts',
  'test/integration/drain.test.ts',
  'test/integration/event-streams-instances.test.ts',
  'test/e2e/dashboard-issue30.test.ts',
  'test/integration/grpc-evaluation.test.ts',
  'test/e2e/ofrep-push.test.ts',
  'test/integration/audit-sinks.test.ts',
  'test/integration/redis-outage.test.ts',
  'test/integration/concurrent-migrations.test.ts',
  'test/integration/seed.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // A stable sort keeps Vitest's order among the files not listed.
    return [...rest].sort((a, b) => rank(a) - rank(b));
  }
}
