import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'ui/src/**/*.test.tsx', 'ui/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: SlowFirstSequencer },
    globalSetup: ['test/global-setup.ts'],
  },
});
