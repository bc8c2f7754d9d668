// server.protocol https (Flipt's): the HTTP API moves to https_port and gRPC runs over TLS, with a
// certificate made here by the system's openssl; plaintext clients are refused on both ports.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testBackends } from '../helpers/backends.js';
import { grpcHealthCheck } from '../helpers/grpc.js';
import { opensslMissing, writeSelfSignedCertificate } from '../helpers/tls.js';

const suite = opensslMissing ? describe.skip : describe;
const sqlite = testBackends().find((b) => b.name === 'sqlite') ?? { name: 'sqlite' as const };

/** GET or POST over HTTPS trusting `ca`; resolves with status and body. */
function httpsCall(
  port: number,
  ca: Buffer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, ca, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

suite(`server.protocol https${opensslMissing ? ' (skipped: openssl is not installed)' : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-tls-'));
  const { certFile, keyFile } = opensslMissing ? { certFile: '', keyFile: '' } : writeSelfSignedCertificate(dir);
  let ca: Buffer;
  let running: TestApp;
  let ports: { httpPort: number; grpcPort: number };

  beforeAll(async () => {
    ca = readFileSync(certFile);
    running = await startTestApp(sqlite, {
      server: {
        host: '127.0.0.1',
        protocol: 'https',
        http_port: 0,
        https_port: 0,
        grpc_port: 0,
        cert_file: certFile,
        cert_key: keyFile,
      },
    });
    ports = await running.app.listen();
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the HTTP API over TLS on https_port, and refuses plaintext there', async () => {
    expect(await httpsCall(ports.httpPort, ca, 'GET', '/health')).toEqual({
      status: 200,
      body: '{"status":"SERVING"}',
    });
    const created = await httpsCall(ports.httpPort, ca, 'POST', '/api/v1/namespaces/default/flags', {
      key: 'over-tls',
      name: 'Over TLS',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    expect(created.status).toBe(200);
    const evaluated = await httpsCall(ports.httpPort, ca, 'POST', '/evaluate/v1/boolean', {
      flagKey: 'over-tls',
      entityId: 'e1',
    });
    expect(JSON.parse(evaluated.body)).toMatchObject({ enabled: true, flagKey: 'over-tls' });
    await expect(fetch(`http://127.0.0.1:${ports.httpPort}/health`)).rejects.toThrow();
    // A client that does not trust the certificate is refused by its own TLS check.
    await expect(fetch(`https://127.0.0.1:${ports.httpPort}/health`)).rejects.toThrow();
  });

  it('accepts a 20 KB header over TLS too (Node alone stops at 16 KiB)', async () => {
    const headers = { 'x-flipt-namespace': 'n'.repeat(20_000) };
    expect(await httpsCall(ports.httpPort, ca, 'POST', '/ofrep/v1/evaluate/flags', {}, headers)).toEqual({
      status: 200,
      body: '{"flags":[]}',
    });
  });

  it('serves gRPC over TLS, and refuses a plaintext client', async () => {
    // The certificate names localhost; the client dials 127.0.0.1.
    const channelOptions = { 'grpc.ssl_target_name_override': 'localhost' };
    const tls = { credentials: credentials.createSsl(ca), channelOptions };
    expect(await grpcHealthCheck(ports.grpcPort, tls)).toMatchObject({ status: 'SERVING' });
    await expect(grpcHealthCheck(ports.grpcPort, { channelOptions })).rejects.toThrow();
  });

  it('stops with one line naming the setting when the certificate is missing, unreadable or not one', async () => {
    const https = { protocol: 'https', cert_file: certFile, cert_key: keyFile };
    expect(() => loadConfig({ env: {}, overrides: { server: { ...https, cert_key: '' } } })).toThrow(
      /server\.cert_key: required with https/,
    );
    const build = (server: Record<string, unknown>) =>
      buildApp(loadConfig({ env: {}, overrides: { server: { ...https, ...server } } }), {
        logger: pino({ level: 'silent' }),
      });
    await expect(build({ cert_file: join(dir, 'missing.pem') })).rejects.toThrow(
      /server\.cert_file: cannot read .*missing\.pem/,
    );
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'not a certificate');
    await expect(build({ cert_file: notPem })).rejects.toThrow(/not a matching certificate and key/);
  });
});
