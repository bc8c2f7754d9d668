// The container sizing of docs/operations.md rests on Node sizing V8's heap from the memory limit of the cgroup it
// starts in (libuv's constrained memory), as a container runtime sets it: then V8 grows its heap by a
// small factor and collects before garbage fills the container (measured: docs/performance.md, Memory
// soak). The program sets no fixed old-space size, which would override that and could not be raised
// through NODE_OPTIONS (command-line options win over it). If a Node upgrade stopped reading the
// limit, this fails rather than the container.

import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMemoryGroup } from '../../bench/memory-cgroup.js';
import { NODE_FLAGS } from '../../src/runtime/runtime-flags.js';

function cgroupSkipReason(): string | undefined {
  const root = existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
  try {
    accessSync(root, constants.W_OK);
    return undefined;
  } catch {
    return `cannot create a cgroup under ${root} (needs root)`;
  }
}

const skip = cgroupSkipReason();
const HEAP_LIMIT = "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))";

describe.skipIf(skip !== undefined)(`the program in a container${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('sets no fixed old-space size', () => {
    expect(NODE_FLAGS.join(' ')).not.toMatch(/max-old-space-size|max-heap-size/);
  });

  it("sizes V8's heap from a 256 MiB memory limit, with the program's Node options", () => {
    const unlimited = Number(execFileSync(process.execPath, [...NODE_FLAGS, '-e', HEAP_LIMIT], { encoding: 'utf8' }));
    const group = createMemoryGroup(`vexil-test-${process.pid}`, 256);
    try {
      const [command, args] = group.wrap(process.execPath, [...NODE_FLAGS, '-e', HEAP_LIMIT]);
      const limited = Number(execFileSync(command, args, { encoding: 'utf8' }));
      // About the container's size (Node 20: 259 MiB), not the machine's (GiBs here).
      expect(limited).toBeLessThanOrEqual(320 * 2 ** 20);
      expect(limited).toBeLessThan(unlimited);
    } finally {
      group.remove();
    }
  });
});
