// Response compression as Flipt's chi Compress does it (behavior.md §0.1, item 5): gzip or deflate
// when the client sends Accept-Encoding and the type is compressible, with `Vary: Accept-Encoding`;
// identity otherwise, byte for byte the same body. Vexil leaves answers under 1 KiB uncompressed (the
// single-flag evaluations always), and a 304 carries neither a body nor a Content-Encoding.

import { gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../../src/api/http/app.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';

const sqlite = { name: 'sqlite' as const };
const SNAPSHOT = '/internal/v1/evaluation/snapshot/namespace/default';
const FLAGS = 30;

const decoders = { gzip: gunzipSync, deflate: inflateSync } as const;

/** Per-request fields of evaluation answers, so two answers to the same request compare equal. */
function withoutRequestFields(text: string): string {
  return text
    .replace(/"requestDurationMillis":[0-9.]+/g, '"requestDurationMillis":0')
    .replace(/"timestamp":"[^"]*"/g, '"timestamp":""');
}

describe('response compression', () => {
  let t: TestApp;
  const inject = (method: 'GET' | 'POST' | 'HEAD', url: string, headers: Record<string, string> = {}, body?: unknown) =>
    t.app.http.inject({
      method,
      url,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const batchBody = {
    requestId: 'batch-1',
    requests: Array.from({ length: FLAGS }, (_, i) => ({
      namespaceKey: 'default',
      flagKey: `flag-${i}`,
      entityId: 'u1',
      context: {},
    })),
  };

  beforeAll(async () => {
    t = await startTestApp(sqlite, { metrics: { enabled: true } });
    for (let i = 0; i < FLAGS; i++) {
      const res = await call(t.app, 'POST', '/api/v1/namespaces/default/flags', {
        key: `flag-${i}`,
        name: `Flag ${i}`,
        description: 'A boolean flag with a description long enough to make the answers worth compressing',
        type: 'BOOLEAN_FLAG_TYPE',
        enabled: true,
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => t?.close());

  describe.each(['gzip', 'deflate'] as const)('%s', (encoding) => {
    const decode = decoders[encoding];

    it('the client-side snapshot: encoded, and decodes to exactly the identity body', async () => {
      const plain = await inject('GET', SNAPSHOT);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD);

      const encoded = await inject('GET', SNAPSHOT, { 'accept-encoding': encoding });
      expect(encoded.statusCode).toBe(200);
      expect(encoded.headers['content-encoding']).toBe(encoding);
      expect(encoded.headers.vary).toMatch(/accept-encoding/i);
      expect(encoded.headers['content-type']).toBe(plain.headers['content-type']);
      expect(encoded.headers.etag).toBe(plain.headers.etag);
      expect(encoded.rawPayload.length).toBeLessThan(plain.rawPayload.length);
      expect(decode(encoded.rawPayload).equals(plain.rawPayload)).toBe(true);
    });

    it('a batch evaluation: encoded, and decodes to the identity body', async () => {
      const plain = await inject('POST', '/evaluate/v1/batch', {}, batchBody);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD);

      const encoded = await inject('POST', '/evaluate/v1/batch', { 'accept-encoding': encoding }, batchBody);
      expect(encoded.statusCode).toBe(200);
      expect(encoded.headers['content-encoding']).toBe(encoding);
      expect(encoded.headers.vary).toMatch(/accept-encoding/i);
      expect(withoutRequestFields(decode(encoded.rawPayload).toString())).toBe(withoutRequestFields(plain.payload));
    });

    it('OFREP bulk, management lists and /openapi.json are encoded too', async () => {
      const bulk = { context: { targetingKey: 'u1' } };
      const ofrepPlain = await inject('POST', '/ofrep/v1/evaluate/flags', {}, bulk);
      const ofrep = await inject('POST', '/ofrep/v1/evaluate/flags', { 'accept-encoding': encoding }, bulk);
      expect(ofrep.headers['content-encoding']).toBe(encoding);
      expect(ofrep.headers.etag).toBe(ofrepPlain.headers.etag);
      expect(decode(ofrep.rawPayload).equals(ofrepPlain.rawPayload)).toBe(true);

      for (const url of ['/api/v1/namespaces/default/flags', '/openapi.json']) {
        const plain = await inject('GET', url);
        const encoded = await inject('GET', url, { 'accept-encoding': encoding });
        expect(encoded.headers['content-encoding'], url).toBe(encoding);
        expect(decode(encoded.rawPayload).equals(plain.rawPayload), url).toBe(true);
      }
    });

    it('a single-flag evaluation is never encoded (under the threshold)', async () => {
      const body = { namespaceKey: 'default', flagKey: 'flag-0', entityId: 'u1', context: {} };
      for (const url of ['/evaluate/v1/boolean', '/evaluate/v1/boolean?explain=true']) {
        const res = await inject('POST', url, { 'accept-encoding': encoding }, body);
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-encoding'], url).toBeUndefined();
        expect(res.json().flagKey, url).toBe('flag-0');
      }
      const ofrep = await inject('POST', '/ofrep/v1/evaluate/flags/flag-0', { 'accept-encoding': encoding }, {});
      expect(ofrep.statusCode).toBe(200);
      expect(ofrep.headers['content-encoding']).toBeUndefined();
    });

    it('a 304 has no body and no Content-Encoding', async () => {
      const etag = (await inject('GET', SNAPSHOT)).headers.etag as string;
      expect(etag).toBeTruthy();
      const snapshot = await inject('GET', SNAPSHOT, { 'accept-encoding': encoding, 'if-none-match': etag });
      expect(snapshot.statusCode).toBe(304);
      expect(snapshot.headers['content-encoding']).toBeUndefined();
      expect(snapshot.rawPayload.length).toBe(0);

      const bulk = { context: { targetingKey: 'u1' } };
      const bulkEtag = (await inject('POST', '/ofrep/v1/evaluate/flags', {}, bulk)).headers.etag as string;
      const ofrep = await inject(
        'POST',
        '/ofrep/v1/evaluate/flags',
        { 'accept-encoding': encoding, 'if-none-match': bulkEtag },
        bulk,
      );
      expect(ofrep.statusCode).toBe(304);
      expect(ofrep.headers['content-encoding']).toBeUndefined();
      expect(ofrep.rawPayload.length).toBe(0);
    });
  });

  it('identity when the client accepts no encoding Vexil offers', async () => {
    const plain = await inject('GET', SNAPSHOT);
    for (const acceptEncoding of ['identity', 'br', 'zstd', 'gzip;q=0, deflate;q=0']) {
      const res = await inject('GET', SNAPSHOT, { 'accept-encoding': acceptEncoding });
      expect(res.headers['content-encoding'], acceptEncoding).toBeUndefined();
      expect(res.rawPayload.equals(plain.rawPayload), acceptEncoding).toBe(true);
    }
  });

  it('prefers gzip to deflate, and never offers br', async () => {
    const res = await inject('GET', SNAPSHOT, { 'accept-encoding': 'br, deflate, gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('compressed request bodies are not decoded (Flipt does not either)', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/evaluate/v1/batch',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: JSON.stringify(batchBody),
    });
    expect(res.statusCode).toBe(200);
  });
});
