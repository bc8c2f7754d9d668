// Flipt's official server-side Node client (@flipt-io/flipt) against the real `vexil serve` program.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FliptClient } from '@flipt-io/flipt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { fetchHttp, Seeder, seedRichNamespace } from '../integration/evaluation-seed.js';

describe('@flipt-io/flipt against vexil serve', () => {
  let vexil: RunningVexil;
  let dir: string;
  let client: FliptClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vexil-client-'));
    vexil = await startVexil({ VEXIL_DB_URL: `file:${join(dir, 'vexil.db')}` });
    const http = fetchHttp(vexil.baseUrl);
    await seedRichNamespace(new Seeder(http));
    const b = new Seeder(http, 'team-b');
    await b.namespaceExists();
    await b.booleanFlag({ key: 'only-in-b', enabled: true });
    client = new FliptClient({ url: vexil.baseUrl, timeout: 10 });
  }, 90_000);
  afterAll(async () => {
    await vexil?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('evaluates a boolean flag', async () => {
    const res = await client.evaluation.boolean({
      namespaceKey: 'default',
      flagKey: 'new-ui',
      entityId: 'user-3',
      context: { plan: 'pro' },
    });
    expect(res).toMatchObject({
      enabled: true,
      reason: 'MATCH_EVALUATION_REASON',
      flagKey: 'new-ui',
      segmentKeys: ['pro'],
    });
    // The client's type omits requestId; the answer carries it.
    expect((res as unknown as { requestId: string }).requestId).not.toBe('');
    expect(typeof res.requestDurationMillis).toBe('number');
    expect(Number.isNaN(Date.parse(res.timestamp))).toBe(false);
  });

  it('evaluates a variant flag', async () => {
    const res = await client.evaluation.variant({
      namespaceKey: 'default',
      flagKey: 'color',
      entityId: 'user-3',
      context: { plan: 'pro', region: 'eu' },
    });
    expect(res).toMatchObject({
      match: true,
      reason: 'MATCH_EVALUATION_REASON',
      variantKey: 'blue',
      variantAttachment: '{"hex":"#00f","dark":true}',
      flagKey: 'color',
    });
    expect(JSON.parse(res.variantAttachment)).toEqual({ hex: '#00f', dark: true });
  });

  it('evaluates a batch across namespaces, with error items for missing flags', async () => {
    const res = await client.evaluation.batch({
      requests: [
        { namespaceKey: 'default', flagKey: 'kill-switch', entityId: 'u', context: {} },
        { namespaceKey: 'default', flagKey: 'size', entityId: 'u', context: {} },
        { namespaceKey: 'team-b', flagKey: 'only-in-b', entityId: 'u', context: {} },
        { namespaceKey: 'default', flagKey: 'missing', entityId: 'u', context: {} },
      ],
    });
    expect(res.requestId).not.toBe('');
    expect(res.responses.map((r) => r.type)).toEqual([
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'VARIANT_EVALUATION_RESPONSE_TYPE',
      'BOOLEAN_EVALUATION_RESPONSE_TYPE',
      'ERROR_EVALUATION_RESPONSE_TYPE',
    ]);
    expect(res.responses[0]?.booleanResponse).toMatchObject({ enabled: true, reason: 'DEFAULT_EVALUATION_REASON' });
    expect(res.responses[1]?.variantResponse).toMatchObject({
      variantKey: 'l',
      reason: 'FLAG_DISABLED_EVALUATION_REASON',
    });
    expect(res.responses[2]?.booleanResponse).toMatchObject({ enabled: true, flagKey: 'only-in-b' });
    expect(res.responses[3]?.errorResponse).toEqual({
      flagKey: 'missing',
      namespaceKey: 'default',
      reason: 'NOT_FOUND_ERROR_EVALUATION_REASON',
    });
  });

  it("surfaces the server's error message for a missing flag", async () => {
    await expect(
      client.evaluation.boolean({ namespaceKey: 'default', flagKey: 'missing', entityId: 'u', context: {} }),
    ).rejects.toThrow('flag "default/missing" not found');
  });
});
