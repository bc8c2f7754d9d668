import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateClientToken, hashClientToken } from './client-token.js';

describe('client tokens', () => {
  it('are 32 random bytes in padded URL-safe base64 (44 characters)', () => {
    const token = generateClientToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}=$/);
    expect(generateClientToken()).not.toBe(token);
  });

  it('hash to the padded URL-safe base64 of their SHA-256, as Flipt stores them', () => {
    // SHA-256 of the empty string, and of a token whose digest holds both '+' and '/' in plain base64.
    expect(hashClientToken('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=');
    for (const token of ['bootstrap-secret-token', 'ünïcode-tøken', generateClientToken(), generateClientToken()]) {
      const standard = createHash('sha256').update(token, 'utf8').digest('base64');
      expect(hashClientToken(token)).toBe(standard.replaceAll('+', '-').replaceAll('/', '_'));
    }
  });
});
