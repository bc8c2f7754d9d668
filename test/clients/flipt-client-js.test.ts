// Flipt's client-side evaluation SDK (@flipt-io/flipt-client-js: a Rust engine compiled to WASM and
// shipped inside the package, nothing downloaded) loads Vexil's snapshot and must answer what the
// server answers, for every flag, over 1,000 entities with varied contexts.
//
// The engine itself departs from Flipt's server in a few places (checked in the last test, so a
// new client version that changes them is noticed); the equivalence fixture stays clear of them:
// - rollouts summing to less than 100 % (or rounding to 999 buckets): the server answers no match,
//   the engine scales the rollouts to their sum and always matches;
// - decimal numbers ("18.5") and date-only datetimes ("2024-02-01") in the context: the server
//   reads them, the engine parses integers and RFC 3339 only.
// Representation differences are normalised: the engine reports no segment keys for boolean flags,
// and `null` for an empty attachment.

import { FliptClient } from '@flipt-io/flipt-client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contextFor,
  RICH_BOOLEAN_FLAGS,
  RICH_VARIANT_FLAGS,
  seedRichNamespace,
} from '../integration/evaluation-seed.js';
import { type ListeningServer, startListeningServer } from './server.js';

const ENTITIES = 1_000;

interface ServerItem {
  type: string;
  booleanResponse?: { enabled: boolean; reason: string; segmentKeys: string[] };
  variantResponse?: {
    match: boolean;
    reason: string;
    variantKey: string;
    variantAttachment: string;
    segmentKeys: string[];
  };
}

describe('@flipt-io/flipt-client-js against Vexil', () => {
  let server: ListeningServer;
  let client: FliptClient;

  const serverBatch = async (
    namespaceKey: string,
    flags: string[],
    entityId: string,
    context: Record<string, string>,
  ) => {
    const res = await fetch(`${server.baseUrl}/evaluate/v1/batch`, {
      method: 'POST',
      body: JSON.stringify({ requests: flags.map((flagKey) => ({ namespaceKey, flagKey, entityId, context })) }),
    });
    return ((await res.json()) as { responses: ServerItem[] }).responses;
  };

  beforeAll(async () => {
    server = await startListeningServer();
    await seedRichNamespace(server.seeder(), { gaps: false });
    client = await FliptClient.init({ namespace: 'default', url: server.baseUrl });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('loads every flag of the snapshot', () => {
    expect(
      client
        .listFlags()
        .map((f: { key: string }) => f.key)
        .sort(),
    ).toEqual([...RICH_VARIANT_FLAGS, ...RICH_BOOLEAN_FLAGS].sort());
  });

  it(`answers locally what the server answers, for ${ENTITIES} entities and every flag`, async () => {
    const flags = [...RICH_VARIANT_FLAGS, ...RICH_BOOLEAN_FLAGS];
    const mismatches: string[] = [];
    const seen = new Set<string>();
    let compared = 0;
    for (let i = 0; i < ENTITIES; i++) {
      // Some entity ids the `vip` entityId constraint lists; the rest spread over every bucket.
      const entityId = i % 50 === 7 ? `user-${[1, 7, 42][i % 3]}` : `user-${i}`;
      const context = contextFor(i, true);
      const responses = await serverBatch('default', flags, entityId, context);
      responses.forEach((item, j) => {
        const flagKey = flags[j] as string;
        let local: unknown;
        let remote: unknown;
        if (item.variantResponse) {
          const l = client.evaluateVariant({ flagKey, entityId, context });
          local = [l.match, l.reason, l.variantKey, l.variantAttachment ?? '', [...l.segmentKeys].sort()];
          const r = item.variantResponse;
          remote = [r.match, r.reason, r.variantKey, r.variantAttachment, [...r.segmentKeys].sort()];
        } else if (item.booleanResponse) {
          const l = client.evaluateBoolean({ flagKey, entityId, context });
          local = [l.enabled, l.reason];
          remote = [item.booleanResponse.enabled, item.booleanResponse.reason];
        } else {
          throw new Error(`server failed to evaluate ${flagKey}: ${JSON.stringify(item)}`);
        }
        compared++;
        seen.add(`${flagKey} ${JSON.stringify(remote)}`);
        if (JSON.stringify(local) !== JSON.stringify(remote) && mismatches.length < 20) {
          mismatches.push(
            `${flagKey} ${entityId} ${JSON.stringify(context)}: local ${JSON.stringify(local)} server ${JSON.stringify(remote)}`,
          );
        }
      });
    }
    expect(compared).toBe(ENTITIES * flags.length);
    expect(mismatches).toEqual([]);
    // The fixture reaches every kind of outcome, not one answer per flag.
    const reasons = new Set([...seen].map((s) => s.match(/"([A-Z_]+_EVALUATION_REASON)"/)?.[1]));
    expect(reasons).toEqual(
      new Set([
        'MATCH_EVALUATION_REASON',
        'DEFAULT_EVALUATION_REASON',
        'UNKNOWN_EVALUATION_REASON',
        'FLAG_DISABLED_EVALUATION_REASON',
      ]),
    );
    expect(seen.size).toBeGreaterThan(15);
  }, 120_000);

  it('refresh: nothing new while unchanged (ETag, 304), the new snapshot after a write', async () => {
    expect(await client.refresh()).toBe(false);
    await server.http('PUT', '/api/v1/namespaces/default/flags/kill-switch', { name: 'kill-switch', enabled: false });
    expect(await client.refresh()).toBe(true);
    expect(client.evaluateBoolean({ flagKey: 'kill-switch', entityId: 'u', context: {} })).toMatchObject({
      enabled: false,
      reason: 'DEFAULT_EVALUATION_REASON',
    });
  });

  it("where the client engine departs from Flipt's server (and so from Vexil)", async () => {
    const seeder = server.seeder('engine-gaps');
    await seeder.namespaceExists();
    await seeder.segment({ key: 'all' });
    await seeder.segment({
      key: 'grown',
      constraints: [{ type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' }],
    });
    await seeder.variantFlag({
      key: 'partial',
      variants: [{ key: 'on' }],
      rules: [{ segments: ['all'], distributions: [['on', 30]] }],
    });
    await seeder.variantFlag({ key: 'by-age', variants: [{ key: 'adult' }], rules: [{ segments: ['grown'] }] });
    const local = await FliptClient.init({ namespace: 'engine-gaps', url: server.baseUrl });
    try {
      // user-4: bucket crc32("partialuser-4") % 1000 = 906, past the 300 buckets the 30 % rollout covers.
      const [partial, byAge] = await serverBatch('engine-gaps', ['partial', 'by-age'], 'user-4', { age: '18.5' });
      expect(partial?.variantResponse).toMatchObject({ match: false, variantKey: '' });
      expect(local.evaluateVariant({ flagKey: 'partial', entityId: 'user-4', context: {} })).toMatchObject({
        match: true,
        variantKey: 'on',
      });
      expect(byAge?.variantResponse).toMatchObject({ match: true, segmentKeys: ['grown'] });
      expect(local.evaluateVariant({ flagKey: 'by-age', entityId: 'user-4', context: { age: '18.5' } })).toMatchObject({
        match: false,
      });
    } finally {
      local.close();
    }
  });
});
