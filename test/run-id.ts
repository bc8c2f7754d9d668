// Vitest global setup: one id per `vitest run`, handed to every test file (`inject('testRunId')`), so
// work that every file of a run may ask for but one is enough for (the dashboard build) is done once
// between the workers rather than once per file.

import { randomUUID } from 'node:crypto';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    testRunId: string;
  }
}

export default function setup(project: TestProject): void {
  project.provide('testRunId', randomUUID());
}
