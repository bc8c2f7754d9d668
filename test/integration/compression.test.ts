// Response compression as Flipt's chi Compress does it (behavior.md §0.1, item 5): gzip or deflate
// when the client sends Accept-Encoding and the type is compressible, with `Vary: Accept-Encoding`;
// identity otherwise, byte for byte the same body. Vexil leaves answers under 1 KiB uncompressed (a
// single-flag evaluation, unless it carries a large attachment), and a 304 carries neither a body nor
// a Content-Encoding. The evaluation routes compress their own answers (answer-encoding.ts), the
// others through @fastify/compress: both are held to the same negotiation here.

import { gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../../src/api/http/answer-encoding.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';

const sqlite = { name: 'sqlite' as const };
const SNAPSHOT = '/internal/v1/evaluation/snapshot/namespace/default';
const FLAGS = 30;

const decoders = { gzip: gunzipSync, deflate: inflateSync } as const;
/** A variant attachment that makes a single-flag answer a few KiB. */
const BIG_ATTACHMENT = JSON.stringify({ copy: 'A banner text long enough to be worth compressing. '.repeat(60) });

/** Per-request fields of evaluation answers, so two answers to the same request compare equal. */
function withoutRequestFields(text: string): string {
  return text
    .replace(/"requestId":"[^"]*"/g, '"requestId":""')
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
    // Every flag three times: an answer over 8 KiB.
    requests: Array.from({ length: 3 * FLAGS }, (_, i) => ({
      namespaceKey: 'default',
      flagKey: `flag-${i % FLAGS}`,
      entityId: 'u1',
      context: {},
    })),
  };

  beforeAll(async () => {
    t = await startTestApp(sqlite, { metrics: { enabled: true } });
    // A variant flag whose answer carries an attachment of a few KiB: over the threshold.
    const ns = '/api/v1/namespaces/default';
    const created = [
      await call(t.app, 'POST', `${ns}/segments`, { key: 'everyone', name: 'everyone', matchType: 'ALL_MATCH_TYPE' }),
      await call(t.app, 'POST', `${ns}/flags`, { key: 'big', name: 'big', type: 'VARIANT_FLAG_TYPE', enabled: true }),
      await call(t.app, 'POST', `${ns}/flags/big/variants`, { key: 'v', attachment: BIG_ATTACHMENT }),
      await call(t.app, 'POST', `${ns}/flags/big/rules`, { segmentKey: 'everyone', rank: 1 }),
    ];
    for (const res of created) expect(res.status).toBe(200);
    const [, , variant, rule] = created;
    const distribution = await call(t.app, 'POST', `${ns}/flags/big/rules/${rule?.body.id}/distributions`, {
      variantId: variant?.body.id,
      rollout: 100,
    });
    expect(distribution.status).toBe(200);
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
      // Over 8 KiB: compressed as a stream, off the event loop, so sent without a length.
      expect(plain.rawPayload.length).toBeGreaterThan(8 * 1024);
      expect(encoded.headers['content-length']).toBeUndefined();
    });

    it('OFREP bulk, management lists and /openapi.json are encoded too', async () => {
      const bulk = { context: { targetingKey: 'u1' } };
      const ofrepPlain = await inject('POST', '/ofrep/v1/evaluate/flags', {}, bulk);
      const ofrep = await inject('POST', '/ofrep/v1/evaluate/flags', { 'accept-encoding': encoding }, bulk);
      expect(ofrep.headers['content-encoding']).toBe(encoding);
      expect(ofrep.headers.vary).toMatch(/accept-encoding/i);
      expect(ofrep.headers.etag).toBe(ofrepPlain.headers.etag);
      expect(decode(ofrep.rawPayload).equals(ofrepPlain.rawPayload)).toBe(true);
      // Under 8 KiB: compressed at once, and sent with its length.
      expect(ofrepPlain.rawPayload.length).toBeLessThan(8 * 1024);
      expect(ofrep.headers['content-length']).toBe(String(ofrep.rawPayload.length));

      for (const url of ['/api/v1/namespaces/default/flags', '/openapi.json']) {
        const plain = await inject('GET', url);
        const encoded = await inject('GET', url, { 'accept-encoding': encoding });
        expect(encoded.headers['content-encoding'], url).toBe(encoding);
        expect(decode(encoded.rawPayload).equals(plain.rawPayload), url).toBe(true);
      }
    });

    it('a single-flag evaluation carrying a large attachment is encoded', async () => {
      const body = { namespaceKey: 'default', flagKey: 'big', entityId: 'u1', context: {} };
      const plain = await inject('POST', '/evaluate/v1/variant', {}, body);
      expect(plain.statusCode).toBe(200);
      expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD);
      const encoded = await inject('POST', '/evaluate/v1/variant', { 'accept-encoding': encoding }, body);
      expect(encoded.statusCode).toBe(200);
      expect(encoded.headers['content-encoding']).toBe(encoding);
      expect(withoutRequestFields(decode(encoded.rawPayload).toString())).toBe(withoutRequestFields(plain.payload));
      expect(JSON.parse(decode(encoded.rawPayload).toString()).variantAttachment).toBe(BIG_ATTACHMENT);

      const ofrepPlain = await inject('POST', '/ofrep/v1/evaluate/flags/big', {}, { context: { targetingKey: 'u1' } });
      const ofrep = await inject(
        'POST',
        '/ofrep/v1/evaluate/flags/big',
        { 'accept-encoding': encoding },
        { context: { targetingKey: 'u1' } },
      );
      expect(ofrep.headers['content-encoding']).toBe(encoding);
      expect(decode(ofrep.rawPayload).equals(ofrepPlain.rawPayload)).toBe(true);
    });

    it('a single-flag evaluation of a few hundred bytes is not encoded (under the threshold)', async () => {
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

  // The same negotiation whether @fastify/compress answers (the client snapshot) or the evaluation
  // routes compress their own answers (answer-encoding.ts).
  const negotiated = [
    { name: 'the client snapshot', method: 'GET' as const, url: SNAPSHOT, body: undefined },
    {
      name: 'OFREP bulk',
      method: 'POST' as const,
      url: '/ofrep/v1/evaluate/flags',
      body: { context: { targetingKey: 'u1' } },
    },
  ];

  it.each(negotiated)(
    '$name: identity when the client accepts no encoding Vexil offers',
    async ({ method, url, body }) => {
      const plain = await inject(method, url, {}, body);
      const cases: Record<string, string>[] = [
        { 'accept-encoding': 'identity' },
        { 'accept-encoding': 'br' },
        { 'accept-encoding': 'zstd' },
        { 'accept-encoding': 'gzip;q=0, deflate;q=0' },
        { 'accept-encoding': 'gzip', 'x-no-compression': '1' },
      ];
      for (const headers of cases) {
        const res = await inject(method, url, headers, body);
        const seen = JSON.stringify(headers);
        expect(res.statusCode, seen).toBe(200);
        expect(res.headers['content-encoding'], seen).toBeUndefined();
        expect(res.rawPayload.equals(plain.rawPayload), seen).toBe(true);
      }
    },
  );

  it.each(negotiated)(
    '$name: prefers gzip to deflate, never offers br, reads * and x-gzip as gzip',
    async ({ method, url, body }) => {
      for (const [acceptEncoding, expected] of [
        ['br, deflate, gzip', 'gzip'],
        ['GZIP', 'gzip'],
        ['*', 'gzip'],
        ['x-gzip', 'gzip'],
        ['deflate', 'deflate'],
        ['gzip;q=0.5, deflate', 'deflate'],
      ]) {
        const res = await inject(method, url, { 'accept-encoding': acceptEncoding as string }, body);
        expect(res.headers['content-encoding'], acceptEncoding).toBe(expected);
      }
    },
  );

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
