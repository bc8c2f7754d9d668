// `vexil export --address grpc://…` (src/cli/grpc-export.ts): a running server's namespaces read over
// Flipt's gRPC API give the same document as the export from its database, on every backend: flags of
// both types with metadata, variants with attachments and a default variant, segments with described
// constraints, rules on several segments with distributions, and rollouts of both kinds.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportCommand } from '../../src/cli/documents.js';
import { loadConfig } from '../../src/config/load.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

describeEachBackend('export over gRPC', (backend) => {
  let t: TestApp;
  let address: string;
  const config = () => loadConfig({ env: {}, overrides: { db: { url: t.database.url } } });

  beforeAll(async () => {
    t = await startTestApp(backend, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    address = `grpc://127.0.0.1:${(await t.app.listen()).grpcPort}`;
    const ok = async (method: 'POST' | 'PUT', url: string, payload: object) => {
      const res = await call(t.app, method, url, payload);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    };
    await ok('POST', '/api/v1/namespaces', { key: 'team', name: 'Team', description: 'Our flags' });
    for (const ns of ['default', 'team']) {
      const base = `/api/v1/namespaces/${ns}`;
      await ok('POST', `${base}/segments`, { key: 'pro', name: 'Pro', matchType: 'ANY_MATCH_TYPE' });
      await ok('POST', `${base}/segments/pro/constraints`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'plan',
        operator: 'eq',
        value: 'pro',
        description: 'paying customers',
      });
      await ok('POST', `${base}/segments`, { key: 'eu', name: 'EU', description: 'Europe' });
      await ok('POST', `${base}/segments/eu/constraints`, {
        type: 'NUMBER_COMPARISON_TYPE',
        property: 'region',
        operator: 'lt',
        value: '10',
      });
      await ok('POST', `${base}/flags`, {
        key: 'colour',
        name: 'Colour',
        description: 'Button colour',
        type: 'VARIANT_FLAG_TYPE',
        enabled: true,
        metadata: { owner: 'web', weight: 3 },
      });
      const blue = await ok('POST', `${base}/flags/colour/variants`, {
        key: 'blue',
        name: 'Blue',
        attachment: '{"hex":"#00f","tags":["a","b"]}',
      });
      const red = await ok('POST', `${base}/flags/colour/variants`, { key: 'red', description: 'warm' });
      await ok('PUT', `${base}/flags/colour`, {
        name: 'Colour',
        description: 'Button colour',
        enabled: true,
        defaultVariantId: red.id,
      });
      const rule = await ok('POST', `${base}/flags/colour/rules`, {
        segmentKeys: ['pro', 'eu'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
        rank: 1,
      });
      await ok('POST', `${base}/flags/colour/rules/${rule.id}/distributions`, { variantId: blue.id, rollout: 60 });
      await ok('POST', `${base}/flags/colour/rules/${rule.id}/distributions`, { variantId: red.id, rollout: 40 });
      await ok('POST', `${base}/flags/colour/rules`, { segmentKey: 'eu', rank: 2 });
      await ok('POST', `${base}/flags`, { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
      await ok('POST', `${base}/flags/dark/rollouts`, {
        rank: 1,
        description: 'pros first',
        segment: { segmentKeys: ['pro'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
      });
      await ok('POST', `${base}/flags/dark/rollouts`, { rank: 2, threshold: { percentage: 33.5, value: true } });
    }
  });

  afterAll(async () => t?.close());

  it('gives the database export of named namespaces, in YAML and JSON', async () => {
    for (const format of ['yaml', 'json']) {
      const fromDatabase = await exportCommand(config, { namespaces: 'default,team', format });
      const overGrpc = await exportCommand(config, { namespaces: 'default,team', format, address });
      expect(overGrpc).toEqual(fromDatabase);
      expect(fromDatabase).toContain('colour');
    }
  });

  it('gives the database export of every namespace with --all-namespaces', async () => {
    const fromDatabase = await exportCommand(config, { allNamespaces: true });
    const overGrpc = await exportCommand(config, { allNamespaces: true, address });
    expect(overGrpc).toEqual(fromDatabase);
  });

  it('names the server and the call when a namespace does not exist', async () => {
    await expect(exportCommand(config, { namespaces: 'nope', address })).rejects.toThrow(
      /answered GetNamespace: namespace "nope" not found/,
    );
  });
});
