// Request ids: random UUIDs (version 4), as Flipt's requestId is. Every request without an
// X-Request-Id gets one, so they are made from a pool of random bytes refilled 4,096 ids at a time,
// and written as ASCII into a scratch buffer that becomes one flat string. crypto.randomUUID refills
// every 128 ids and joins 20 string pieces, which single evaluations paid for measurably (measured:
// docs/performance.md).

import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';

const IDS_PER_FILL = 4096;
const pool = Buffer.allocUnsafe(16 * IDS_PER_FILL);
let next = pool.length;

/** The two ASCII hex digits of each byte value. */
const HEX_DIGITS = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const hex = i.toString(16).padStart(2, '0');
  HEX_DIGITS[2 * i] = hex.charCodeAt(0);
  HEX_DIGITS[2 * i + 1] = hex.charCodeAt(1);
}

/** Where each of the 16 bytes' two digits go in xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const text = Buffer.alloc(36, '-');

/** A new random UUID v4, lower case. */
export function randomRequestId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const at = next;
  next += 16;
  pool[at + 6] = ((pool[at + 6] as number) & 0x0f) | 0x40; // version 4
  pool[at + 8] = ((pool[at + 8] as number) & 0x3f) | 0x80; // RFC 4122 variant
  for (let i = 0; i < 16; i++) {
    const digits = (pool[at + i] as number) * 2;
    const to = DIGIT_AT[i] as number;
    text[to] = HEX_DIGITS[digits] as number;
    text[to + 1] = HEX_DIGITS[digits + 1] as number;
  }
  return text.toString('latin1', 0, 36);
}
