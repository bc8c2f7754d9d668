// A body over server.body_limit is answered 413 with Flipt's error body, and every kind of client reads
// that answer, even while it is still sending: fetch (which reads only once it has sent everything),
// node:http and curl, many times each. The answer closes the connection.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const CURL = '/usr/bin/curl';
const UPLOAD_BYTES = 10 * 1000 * 1000;
const REPEATS = 20;
const TOO_LARGE = { code: 8, message: 'request body too large', details: [] };

interface Answer {
  status: number;
  connection: string | undefined;
  body: unknown;
}

const body = Buffer.alloc(UPLOAD_BYTES, 'x');

async function viaFetch(url: string): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, connection: res.headers.get('connection') ?? undefined, body: await res.json() };
}

function viaNodeHttp(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: JSON.parse(text) }),
      );
    });
    req.end(body);
  });
}

let bodyFile: string;

async function viaCurl(url: string): Promise<Answer> {
  // -D - writes the headers before the body; curl itself fails (exit 55/56) on a reset connection.
  const { stdout } = await promisify(execFile)(
    CURL,
    ['-sS', '-D', '-', '-H', 'content-type: application/json', '--data-binary', `@${bodyFile}`, url],
    { maxBuffer: 1024 * 1024 },
  );
  const [head = '', text = ''] = stdout.split('\r\n\r\n').filter((part) => !part.startsWith('HTTP/1.1 100'));
  const status = Number(head.split(' ')[1]);
  const connection = /^connection: (.*)$/im.exec(head)?.[1]?.trim();
  return { status, connection, body: JSON.parse(text) };
}

const clients: { name: string; send: (url: string) => Promise<Answer>; skip?: string }[] = [
  { name: 'fetch', send: viaFetch },
  { name: 'node:http', send: viaNodeHttp },
  { name: 'curl', send: viaCurl, ...(existsSync(CURL) ? {} : { skip: `${CURL} is not installed` }) },
];

describe('too-large bodies get a 413 every client reads [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vexil-413-'));
    bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, body);
    t = await startTestApp({ name: 'sqlite' }, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    base = `http://127.0.0.1:${(await t.app.listen()).httpPort}`;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const client of clients) {
    it.skipIf(client.skip !== undefined)(
      `${client.name}: ${REPEATS} uploads of ${UPLOAD_BYTES} bytes, each answered 413${client.skip ? ` (skipped: ${client.skip})` : ''}`,
      async () => {
        const outcomes: string[] = [];
        for (let i = 0; i < REPEATS; i++) {
          const path = i % 2 === 0 ? '/api/v1/namespaces/default/flags' : '/evaluate/v1/boolean';
          try {
            const answer = await client.send(`${base}${path}`);
            const ok = answer.status === 413 && JSON.stringify(answer.body) === JSON.stringify(TOO_LARGE);
            const closes = client.name === 'fetch' || answer.connection === 'close';
            outcomes.push(ok && closes ? '413' : JSON.stringify(answer));
          } catch (err) {
            outcomes.push(`failed: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
          }
        }
        expect(outcomes).toEqual(outcomes.map(() => '413'));
      },
      120_000,
    );
  }
});
