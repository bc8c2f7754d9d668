// The Redis connection settings derived from the `cache.redis` config: TLS and timeouts.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { redisClientOptions, redisTlsOptions } from './redis.js';

const settings = (redis: Record<string, unknown> = {}) =>
  loadConfig({ env: {}, overrides: { cache: { redis } } }).cache.redis;

describe('redis connection settings', () => {
  it('uses no TLS unless asked for', () => {
    expect(redisTlsOptions(settings())).toBeUndefined();
    expect(redisTlsOptions(settings({ url: 'redis://h:1' }))).toBeUndefined();
  });

  it('turns TLS on for require_tls or a rediss:// URL, with the CA and insecure_skip_tls', () => {
    expect(redisTlsOptions(settings({ require_tls: true }))).toEqual({ rejectUnauthorized: true });
    expect(redisTlsOptions(settings({ url: 'rediss://h:1', insecure_skip_tls: true }))).toEqual({
      rejectUnauthorized: false,
    });
    expect(redisTlsOptions(settings({ require_tls: true, ca_cert_bytes: 'PEM' }))).toEqual({
      rejectUnauthorized: true,
      ca: 'PEM',
    });
  });

  it('refuses both CA settings at once, and an unreadable CA file, as config errors', () => {
    expect(() => redisTlsOptions(settings({ ca_cert_bytes: 'PEM', ca_cert_path: '/x' }))).toThrow(
      'please provide exclusively one of ca_cert_bytes or ca_cert_path',
    );
    expect(() => redisTlsOptions(settings({ require_tls: true, ca_cert_path: '/nonexistent/ca.pem' }))).toThrow(
      /cache\.redis\.ca_cert_path: .*ENOENT/,
    );
  });

  it('fails commands fast while disconnected; the subscriber queues its SUBSCRIBE instead', () => {
    const commands = redisClientOptions(settings({ db: 2, password: 'pw' }), { role: 'commands', netTimeoutMs: 0 });
    expect(commands).toMatchObject({
      db: 2,
      password: 'pw',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
    });
    const subscriber = redisClientOptions(settings(), { role: 'subscriber', netTimeoutMs: 300 });
    expect(subscriber).toMatchObject({ enableOfflineQueue: true, connectTimeout: 300 });
    expect(subscriber.commandTimeout).toBeUndefined();
    // Reconnects back off, but never beyond a second.
    const retry = commands.retryStrategy as (attempt: number) => number;
    expect(retry(1)).toBeLessThan(retry(3));
    expect(retry(100)).toBe(1000);
  });
});
