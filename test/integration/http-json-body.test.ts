// Request bodies decoded as Go's encoding/json decodes Flipt's: an unpaired UTF-16 surrogate escape
// ("\ud800") reads as U+FFFD, in keys and values, so an evaluation matches what it matches in Flipt.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { Seeder } from './evaluation-seed.js';

const sqlite = { name: 'sqlite' as const };
const FFFD = '\uFFFD';

describe('lone surrogate escapes in request bodies', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(sqlite);
    const seeder = new Seeder((method, url, body) => call(t.app, method, url, body));
    const segments = {
      entity: { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'entityId', operator: 'eq', value: `u${FFFD}` },
      // The list is JSON text, decoded as Go does (go-json.ts): its element is U+FFFD.
      value: { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'isoneof', value: '["\\ud800"]' },
      key: { type: 'STRING_COMPARISON_TYPE', property: FFFD, operator: 'eq', value: 'x' },
    };
    for (const [name, constraint] of Object.entries(segments)) {
      await seeder.segment({ key: `by-${name}`, constraints: [constraint] });
      await seeder.variantFlag({
        key: `variant-by-${name}`,
        variants: [{ key: 'hit' }],
        rules: [{ segments: [`by-${name}`], distributions: [['hit', 100]] }],
      });
      await seeder.booleanFlag({
        key: `boolean-by-${name}`,
        rollouts: [{ segment: { segments: [`by-${name}`], value: true } }],
      });
    }
  });
  afterAll(async () => t?.close());

  /** The request bodies as raw text: the escapes are what the client sends. */
  const bodies: [string, string][] = [
    ['entity', '"entityId":"u\\ud800","context":{}'],
    ['value', '"entityId":"e","context":{"p":"\\ud800"}'],
    ['key', '"entityId":"e","context":{"\\udfff":"x"}'],
  ];

  for (const [name, fields] of bodies) {
    it(`a lone surrogate in the ${name} reads as U+FFFD (variant)`, async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/variant', `{"flagKey":"variant-by-${name}",${fields}}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ match: true, variantKey: 'hit', segmentKeys: [`by-${name}`] });
    });

    it(`a lone surrogate in the ${name} reads as U+FFFD (boolean)`, async () => {
      const res = await call(t.app, 'POST', '/evaluate/v1/boolean', `{"flagKey":"boolean-by-${name}",${fields}}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ enabled: true, reason: 'MATCH_EVALUATION_REASON' });
    });
  }

  it('management bodies too; a surrogate pair stays the character it encodes', async () => {
    const res = await call(
      t.app,
      'POST',
      '/api/v1/namespaces/default/flags',
      '{"key":"named","name":"a\\ud800b\\ud83d\\ude00","type":"BOOLEAN_FLAG_TYPE"}',
    );
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(`a${FFFD}b😀`);
  });
});
