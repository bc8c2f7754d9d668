// The opaque revision tag of a namespace: what snapshots, ETags and X-Vexil-Revision carry. Its own
// module because the evaluation read model, the write transaction and the namespace listing all make
// it, and none of them should import another for it.

import { toDate } from './rows.js';

/**
 * The opaque revision a snapshot is tagged with. It includes the namespace's creation time, so a
 * namespace deleted and created again never repeats an earlier revision (and so an earlier ETag).
 */
export function revisionTag(createdAt: Date | string, revision: number | string): string {
  return `${toDate(createdAt).getTime()}.${revision}`;
}

/** The parts of a revision tag, or undefined when `tag` is not one. */
export function parseRevisionTag(tag: string): { createdAtMs: number; revision: number } | undefined {
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(tag);
  if (!match) return undefined;
  const createdAtMs = Number(match[1]);
  const revision = Number(match[2]);
  return Number.isSafeInteger(createdAtMs) && Number.isSafeInteger(revision) ? { createdAtMs, revision } : undefined;
}
