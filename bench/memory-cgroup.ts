// A memory-limited cgroup for the soak: the same limit a container runtime sets (Docker's --memory,
// Kubernetes' limits.memory), so the server can be soaked as it runs in a container. Node reads the
// limit when it starts (libuv's constrained memory) and sizes V8's heap from it, so the server must
// start inside the group: the command is run through a shell that joins the group and then execs it.
// Needs root and a writable cgroup file system (v2, or v1's memory controller).

import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryGroup {
  /** The command wrapped so that it runs inside the group. */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** The group's highest memory use so far (RSS and page cache, as the kernel charges it), in bytes. */
  peakBytes(): number | undefined;
  /** Times the kernel killed a process of the group for lack of memory. */
  oomKills(): number;
  remove(): void;
}

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

function readNumber(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const n = Number(readFileSync(path, 'utf8').trim());
  return Number.isFinite(n) ? n : undefined;
}

function field(path: string, name: string): number {
  if (!existsSync(path)) return 0;
  const line = readFileSync(path, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

export function createMemoryGroup(name: string, limitMiB: number): MemoryGroup {
  const bytes = String(limitMiB * 1024 * 1024);
  const v2 = existsSync(join(V2_ROOT, 'cgroup.controllers'));
  const dir = join(v2 ? V2_ROOT : V1_ROOT, name);
  if (!v2 && !existsSync(V1_ROOT)) throw new Error('no cgroup memory controller on this machine');
  mkdirSync(dir, { recursive: true });
  if (v2) {
    writeFileSync(join(dir, 'memory.max'), bytes);
    // No swap to hide behind: the limit is the memory the server has.
    if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
  } else {
    writeFileSync(join(dir, 'memory.limit_in_bytes'), bytes);
  }
  const procs = join(dir, 'cgroup.procs');
  return {
    wrap(command, args) {
      return ['/bin/sh', ['-c', `echo $$ > "${procs}" && exec "$0" "$@"`, command, ...args]];
    },
    peakBytes() {
      return readNumber(join(dir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
    },
    oomKills() {
      return v2 ? field(join(dir, 'memory.events'), 'oom_kill') : field(join(dir, 'memory.oom_control'), 'oom_kill');
    },
    remove() {
      try {
        rmdirSync(dir);
      } catch {
        // Still holds a process that has not exited yet: the kernel keeps it until then.
      }
    },
  };
}
