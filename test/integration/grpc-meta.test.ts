// flipt.meta.MetadataService over gRPC (a real grpc-js client from proto/) against REST's /meta
// documents, on every backend, on every tier (REST serves meta on all of them), with and without
// authentication: GetInfo and GetConfiguration answer google.api.HttpBody with `application/json` and
// the very bytes of GET /meta/info and /meta/config. With authentication required (Flipt's meta
// services skip authorization, never authentication): no token is UNAUTHENTICATED (REST 401), a
// namespace-scoped token PERMISSION_DENIED (REST 403), a token the documents.

import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc } from '../helpers/flipt-grpc.js';

const META = 'flipt.meta.MetadataService';
const BOOT = 'grpc-meta-bootstrap';

const METHODS = [
  { method: 'GetInfo', path: '/meta/info' },
  { method: 'GetConfiguration', path: '/meta/config' },
] as const;

const TIERS = [
  { tier: 'server.mode: all', config: {} },
  { tier: 'server.mode: read', config: { server: { mode: 'read' } } },
  { tier: 'storage.read_only', config: { storage: { read_only: true } } },
] as const;

const AUTH = [
  { auth: 'authentication off', required: false },
  { auth: 'authentication required', required: true },
] as const;

const ROWS = TIERS.flatMap((tier) => AUTH.map((auth) => ({ ...tier, ...auth })));

function merged(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key];
    out[key] =
      typeof value === 'object' && value !== null && typeof prev === 'object' && prev !== null
        ? merged(prev as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

describeEachBackend('gRPC flipt.meta.MetadataService', (backend) => {
  describe.each(ROWS)('$tier, $auth', (row) => {
    let t: TestApp;
    let base: string;
    let grpc: FliptGrpc;
    let scoped = '';
    const token = () => (row.required ? BOOT : undefined);
    const rest = (path: string, bearer?: string) =>
      fetch(`${base}${path}`, { headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } });

    beforeAll(async () => {
      const auth = row.required
        ? { authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } } }
        : {};
      t = await startTestApp(
        backend,
        merged({ server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 }, ...auth }, row.config),
      );
      const ports = await t.app.listen();
      base = `http://127.0.0.1:${ports.httpPort}`;
      grpc = new FliptGrpc(ports.grpcPort);
      // Through the service: `server.mode: read` refuses token creation over both APIs.
      if (row.required)
        scoped = (await t.app.services.auth.createToken({ name: 'scoped', namespaceKey: 'default' })).clientToken;
    });
    afterAll(async () => {
      grpc?.close();
      await t?.close();
    });

    it.each(METHODS)('$method answers what GET $path answers, as application/json', async ({ method, path }) => {
      const answer = await grpc.call(META, method, {}, { token: token() });
      const res = await rest(path, token());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(answer.response.contentType).toBe('application/json');
      expect(answer.response.extensions).toEqual([]);
      expect(Buffer.from(answer.response.data).toString()).toBe(await res.text());
    });

    it('reports the instance: version, authentication and storage as configured', async () => {
      const answer = await grpc.call(META, 'GetInfo', {}, { token: token() });
      const info = JSON.parse(Buffer.from(answer.response.data).toString());
      expect(info.version).not.toBe('');
      expect(info.authentication).toEqual({ required: row.required });
      expect(info.storage.readOnly).toBe('storage' in row.config ? true : undefined);
      const config = JSON.parse(
        Buffer.from((await grpc.call(META, 'GetConfiguration', {}, { token: token() })).response.data).toString(),
      );
      expect(config.server.mode).toBe('server' in row.config ? 'read' : 'all');
      expect(JSON.stringify(config)).not.toContain(BOOT);
    });

    it.runIf(row.required).each(METHODS)(
      '$method refuses a call without a token and a namespace-scoped token, as REST does',
      async ({ method, path }) => {
        const missing = await grpc.error(META, method, {});
        expect(missing.code).toBe(status.UNAUTHENTICATED);
        expect((await rest(path)).status).toBe(401);
        const refused = await grpc.error(META, method, {}, { token: scoped });
        expect(refused.code).toBe(status.PERMISSION_DENIED);
        expect((await rest(path, scoped)).status).toBe(403);
      },
    );
  });
});
