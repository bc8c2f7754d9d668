// The HTTP server's limits as Flipt's Go server has them (behavior.md §0.1): path parameters have no
// limit of their own, request line and headers may take 1 MiB, and beyond that the answer is Go's
// plain-text 431; what Fastify itself rejects (a malformed URL) answers in Flipt's error body; a
// request (headers and body) that has not arrived within the read timeout (10 s) is hung up on.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_TIMEOUT_MS } from '../../src/api/http/app.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';

const sqlite = { name: 'sqlite' as const };
const MIB = 1024 * 1024;

/** Sends `head` (request line and headers, without the final blank line) and resolves with all that came back. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    // The server may hang up while the request is still being written (as Go's does): what it
    // answered is what counts.
    socket.on('error', (err) => (received === '' ? reject(err) : resolve(received)));
    socket.on('close', () => resolve(received));
    socket.end(`${head}\r\n\r\n`);
  });
}

describe('HTTP server limits', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp(sqlite, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    port = (await t.app.listen()).httpPort;
  });
  afterAll(async () => t?.close());

  describe('path parameters have no length limit of their own', () => {
    const long = 'k'.repeat(1001);

    it('OFREP: an unknown long flag key is FLAG_NOT_FOUND', async () => {
      const res = await call(t.app, 'POST', `/ofrep/v1/evaluate/flags/${long}`, {});
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { key: long, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag was not found ${long}` },
      });
    });

    it('client snapshot: a long unknown namespace has no flags', async () => {
      const res = await call(t.app, 'GET', `/internal/v1/evaluation/snapshot/namespace/${long}`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { namespace: { key: long }, flags: [] },
      });
    });

    it("management: a long unknown flag key is Flipt's 404", async () => {
      const res = await call(t.app, 'GET', `/api/v1/namespaces/default/flags/${long}`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { code: 5, message: `flag "default/${long}" not found`, details: [] },
      });
    });

    it('over the network, a path of almost 1 MiB still reaches its route', async () => {
      const key = 'k'.repeat(MIB - 1000);
      const res = await fetch(`http://127.0.0.1:${port}/ofrep/v1/evaluate/flags/${key}`, {
        method: 'POST',
        body: '{}',
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ key, errorCode: 'FLAG_NOT_FOUND' });
    });
  });

  describe('what Fastify itself rejects answers in the API’s error body', () => {
    it("a malformed URL under /api: Flipt's error body", async () => {
      const res = await call(t.app, 'GET', '/api/v1/namespaces/%zz/flags');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        code: 3,
        message: "'/api/v1/namespaces/%zz/flags' is not a valid url component",
        details: [],
      });
      expect(res.headers['x-request-id']).toBeDefined();
    });

    it("a malformed URL under /ofrep: OFREP's error body", async () => {
      const res = await call(t.app, 'POST', '/ofrep/v1/evaluate/flags/%zz', {});
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { errorCode: 'PARSE_ERROR', errorDetails: "'/ofrep/v1/evaluate/flags/%zz' is not a valid url component" },
      });
    });
  });

  describe('request headers: 1 MiB, as Flipt', () => {
    it('accepts a 20 KB header (Node alone stops at 16 KiB)', async () => {
      const namespace = 'n'.repeat(20_000);
      const res = await fetch(`http://127.0.0.1:${port}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-flipt-namespace': namespace },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ flags: [] });
    });

    it('accepts headers of almost 1 MiB', async () => {
      const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: ${'p'.repeat(MIB - 1000)}`;
      expect(await rawRequest(port, head)).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"SERVING"\}$/);
    });

    it("answers more than 1 MiB as Go's server does: 431 in plain text, then hangs up", async () => {
      const head = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(MIB + 10)}`;
      expect(await rawRequest(port, head)).toBe(
        'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n' +
          'Connection: close\r\n\r\n431 Request Header Fields Too Large',
      );
    });

    it('closes a connection whose request (headers, or body after them) has not all arrived within 10 s, without an answer', async () => {
      /** Sends the start of a request, never its end; resolves with what came back and how long the server waited. */
      const stall = (start: string) =>
        new Promise<{ received: string; waited: number }>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          let received = '';
          socket.on('data', (chunk) => {
            received += String(chunk);
          });
          const started = performance.now();
          socket.on('close', () => resolve({ received, waited: performance.now() - started }));
          socket.write(start);
        });
      // Both at once, so the suite waits 10 s once. Node's defaults would wait 60 s for headers and
      // 5 minutes for a body; with the headers' timeout left at 60 s, it would never time out a body.
      const [headers, body] = await Promise.all([
        stall('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
        stall(
          'POST /evaluate/v1/boolean HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100\r\n\r\n{"flagKey":',
        ),
      ]);
      for (const { received, waited } of [headers, body]) {
        expect(waited).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
        expect(waited).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
        expect(received).toBe('');
      }
    }, 20_000);

    it("answers a request it cannot parse as Go's server does: 400 in plain text", async () => {
      expect(await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x')).toBe(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request',
      );
    });
  });
});
