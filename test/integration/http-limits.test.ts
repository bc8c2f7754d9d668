// The HTTP server's limits as Flipt's Go server has them (behavior.md §0.1): request line and headers
// may take 1 MiB, and beyond that the answer is Go's plain-text 431.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

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

    it("answers a request it cannot parse as Go's server does: 400 in plain text", async () => {
      expect(await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x')).toBe(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request',
      );
    });
  });
});
