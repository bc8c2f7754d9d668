// Flipt's consistent hashing (behavior.md §1.3, §1.5): CRC32-IEEE over UTF-8 bytes, so an entity lands
// in the same bucket as in Flipt. Note the two concatenation orders differ.

import { crc32 } from 'node:zlib';

/** Number of variant buckets: a distribution of r % covers trunc(float32(r) × 10) of them. */
export const VARIANT_BUCKETS = 1000;

/** CRC32-IEEE of the UTF-8 bytes of a + b, chained so the concatenation is never built. */
function crc32Of(a: string, b: string): number {
  return crc32(b, crc32(a));
}

/** Variant bucket 0..999: CRC32(flagKey + entityId) mod 1000. */
export function variantBucket(flagKey: string, entityId: string): number {
  return crc32Of(flagKey, entityId) % VARIANT_BUCKETS;
}

/** Boolean threshold bucket 0..99: CRC32(entityId + flagKey) mod 100 (entity id first). */
export function thresholdBucket(entityId: string, flagKey: string): number {
  return crc32Of(entityId, flagKey) % 100;
}

/**
 * Buckets a distribution of `rollout` percent covers: Go's `int(rollout * float32(10))`, where both
 * the rollout and the product are float32. Rounding the product to float32 matters: 0.7 read back
 * from a float column is 0.699999988…, which is 6.99999988 in double but 7 in float32.
 */
export function distributionWidth(rollout: number): number {
  return Math.trunc(Math.fround(Math.fround(rollout) * 10));
}

/**
 * Threshold rollout test: `float32(bucket) < float32(percentage)`. The bucket is an integer below
 * 100, exact in float32, so only the percentage needs rounding.
 */
export function thresholdMatches(bucket: number, percentage: number): boolean {
  return bucket < Math.fround(percentage);
}
