// Flipt's variant bucketing (behavior.md §1.3), written from the spec so the e2e test knows which
// variant an entity must get without asking the server under test.

import { crc32 } from 'node:zlib';

export function variantBucket(flagKey: string, entityId: string): number {
  return crc32(Buffer.from(flagKey + entityId, 'utf8')) % 1000;
}

/** The first entity id `prefix-N` whose bucket satisfies `want`. */
export function findEntity(flagKey: string, prefix: string, want: (bucket: number) => boolean): string {
  for (let i = 0; i < 10_000; i++) {
    const id = `${prefix}-${i}`;
    if (want(variantBucket(flagKey, id))) return id;
  }
  throw new Error('no entity found');
}
