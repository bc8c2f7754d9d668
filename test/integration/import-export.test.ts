// Export → import into an empty database → export gives the same document, and every flag evaluates
// the same for 1,000 entities before and after; bad documents fail with one exact error and leave the
// database as it was; the HTTP routes with and without authentication, and refused in read mode.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/build-app.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { namespaceView, withoutHeader } from '../helpers/documents.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/documents/${name}`, import.meta.url), 'utf8');
const FIXTURES: [string, 'yaml' | 'json'][] = [
  ['v1.0.yml', 'yaml'],
  ['v1.1.yml', 'yaml'],
  ['v1.2.yml', 'yaml'],
  ['v1.3.yml', 'yaml'],
  ['v1.4.json', 'json'],
];

async function exportAll(app: App, format: 'yaml' | 'json'): Promise<string> {
  const res = await app.http.inject({
    method: 'GET',
    url: `/api/v1/namespaces/default/export?all=true&format=${format}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

async function importText(app: App, text: string, contentType: string, query = '') {
  const res = await app.http.inject({
    method: 'POST',
    url: `/api/v1/import${query}`,
    headers: { 'content-type': contentType },
    payload: text,
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** Every flag of every namespace for 1,000 entities with varied contexts: the comparable part of each result. */
async function evaluateEverything(app: App): Promise<unknown[]> {
  const out: unknown[] = [];
  const namespaces = await app.services.documents.namespaceKeys();
  for (const ns of namespaces) {
    const snapshot = await app.services.evaluation.snapshot(ns);
    const flagKeys = (await app.services.flags.list(ns, { limit: 0, offset: 0, pageToken: '' })).items.map(
      (f) => f.key,
    );
    for (let i = 0; i < 1000; i++) {
      const context = {
        plan: i % 3 === 0 ? 'beta' : 'free',
        age: String(i % 60),
        staff: i % 7 === 0 ? 'true' : 'false',
        region: ['de', 'fr', 'us'][i % 3] as string,
        email: i % 5 === 0 ? `u${i}@example.com` : `u${i}@mail.test`,
        group: i % 4 === 0 ? 'qa' : '',
        signup: `2024-0${1 + (i % 9)}-15T00:00:00Z`,
        searches: String(i % 250),
        joined: `2025-0${1 + (i % 9)}-10`,
      };
      const evaluator = app.services.evaluation.entityEvaluator(snapshot, `entity-${i}`, context);
      for (const key of flagKeys) {
        const r = app.services.evaluation.flag(evaluator, key);
        if (r.type === 'VARIANT_EVALUATION_RESPONSE_TYPE') {
          const v = r.variantResponse;
          out.push([ns, key, i, v.match, v.variantKey, v.reason, v.segmentKeys, v.variantAttachment]);
        } else if (r.type === 'BOOLEAN_EVALUATION_RESPONSE_TYPE') {
          out.push([ns, key, i, r.booleanResponse.enabled, r.booleanResponse.reason]);
        }
      }
    }
  }
  return out;
}

describeEachBackend('import and export', (backend) => {
  let source: TestApp;
  let target: TestApp;

  beforeAll(async () => {
    [source, target] = await Promise.all([startTestApp(backend), startTestApp(backend)]);
    for (const [name, format] of FIXTURES) {
      await source.app.services.documents.importSources([{ name, text: fixture(name), format }]);
    }
    // State made through the management API as well: a flag in default, a changed rule order.
    expect(
      (await call(source.app, 'POST', '/api/v1/flags', { key: 'plain', name: 'Plain', enabled: true })).status,
    ).toBe(200);
    const rules = (await call(source.app, 'GET', '/api/v1/namespaces/v11/flags/colour/rules')).body.rules;
    await call(source.app, 'PUT', '/api/v1/namespaces/v11/flags/colour/rules/order', {
      ruleIds: [rules[1].id, rules[0].id],
    });
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it('round trip: export, import into an empty database, export again gives the same document', async () => {
    const first = await exportAll(source.app, 'yaml');
    // As Flipt's export to stdout: no header line, `version` in the first document only.
    expect(first.startsWith('version: "1.4"\nnamespace:\n')).toBe(true);
    expect(first).toContain('\n---\nnamespace:\n');
    expect(first.match(/version:/g)).toHaveLength(1);
    const imported = await importText(target.app, first, 'application/yaml');
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const second = await exportAll(target.app, 'yaml');
    expect(second).toBe(first);
    expect(await exportAll(target.app, 'json')).toBe(await exportAll(source.app, 'json'));
    for (const ns of ['v10', 'v11', 'v12', 'v13', 'v14', 'default']) {
      expect(await namespaceView(target.app, ns)).toEqual(await namespaceView(source.app, ns));
    }
  });

  it('every flag evaluates the same for 1,000 entities before and after', async () => {
    const before = await evaluateEverything(source.app);
    const after = await evaluateEverything(target.app);
    expect(before.length).toBeGreaterThan(10_000);
    expect(after).toEqual(before);
  });

  it('export of one namespace: the document, Content-Disposition, JSON on request, sorted by key', async () => {
    const res = await source.app.http.inject({ method: 'GET', url: '/api/v1/namespaces/v12/export' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="vexil-export-v12.yml"');
    expect(res.body.startsWith('version: "1.4"\nnamespace:\n  key: v12\n  name: v12\nflags:\n- key: checkout\n')).toBe(
      true,
    );
    const json = await source.app.http.inject({
      method: 'GET',
      url: '/api/v1/namespaces/v12/export?format=json&sort_by_key=true',
    });
    expect(json.headers['content-disposition']).toBe('attachment; filename="vexil-export-v12.json"');
    const doc = JSON.parse(json.body);
    expect(doc.flags.map((f: { key: string }) => f.key)).toEqual(['banner', 'checkout']);
    const missing = await call(source.app, 'GET', '/api/v1/namespaces/nope/export');
    expect(missing).toMatchObject({ status: 404, body: { code: 5, message: 'namespace "nope" not found' } });
  });

  it('--skip-existing leaves existing flags and segments; without it an existing key is an error', async () => {
    const text = fixture('v1.3.yml');
    const again = await importText(source.app, text, 'application/yaml');
    expect(again).toEqual({
      status: 400,
      body: {
        code: 3,
        message: 'request body: document 1: flags[0] (theme).key at line 5: flag "v13/theme" is not unique',
        details: [],
      },
    });
    const skipped = await importText(source.app, text, 'application/yaml', '?skip_existing=true');
    expect(skipped.status).toBe(200);
    expect(skipped.body.created).toEqual([]);
    expect(skipped.body.skipped).toEqual([
      { namespace: 'v13', type: 'flag', key: 'theme' },
      { namespace: 'v13', type: 'flag', key: 'beta' },
      { namespace: 'v13', type: 'segment', key: 'staff' },
      { namespace: 'v13', type: 'segment', key: 'testers' },
    ]);
  });

  it('--dry-run reports and changes nothing; --drop deletes every namespace inside the same run', async () => {
    const before = await exportAll(target.app, 'yaml');
    const revision = await target.app.db.kysely.selectFrom('namespaces').select(['key', 'revision']).execute();
    const doc = 'version: "1.4"\nnamespace: fresh\nflags:\n  - key: f\n    name: F\n';
    const dry = await importText(target.app, doc, 'application/yaml', '?drop=true&dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body.dropped.map((e: { key: string }) => e.key).sort()).toEqual(
      ['default', 'v10', 'v11', 'v12', 'v13', 'v14', 'v14-b'].sort(),
    );
    expect(dry.body.created).toEqual([
      { namespace: 'fresh', type: 'namespace', key: 'fresh' },
      { namespace: 'fresh', type: 'flag', key: 'f' },
    ]);
    expect(withoutHeader(await exportAll(target.app, 'yaml'))).toBe(withoutHeader(before));
    expect(await target.app.db.kysely.selectFrom('namespaces').select(['key', 'revision']).execute()).toEqual(revision);

    // A failing import with --drop drops nothing.
    const bad = await importText(target.app, `${doc}    type: NOPE\n`, 'application/yaml', '?drop=true');
    expect(bad.status).toBe(400);
    expect(withoutHeader(await exportAll(target.app, 'yaml'))).toBe(withoutHeader(before));

    const dropped = await importText(target.app, doc, 'application/yaml', '?drop=true');
    expect(dropped.status).toBe(200);
    const namespaces = (await call(target.app, 'GET', '/api/v1/namespaces')).body.namespaces;
    expect(namespaces.map((n: { key: string; protected: boolean }) => [n.key, n.protected])).toEqual([
      ['default', true],
      ['fresh', false],
    ]);
  });

  it('an import bumps the revision of every namespace it touched and drops their snapshots', async () => {
    const revisionOf = async (key: string) =>
      Number(
        (
          await source.app.db.kysely
            .selectFrom('namespaces')
            .select('revision')
            .where('key', '=', key)
            .executeTakeFirstOrThrow()
        ).revision,
      );
    const snapshot = await source.app.services.evaluation.snapshot('v10');
    const before = { v10: await revisionOf('v10'), v11: await revisionOf('v11') };
    const doc =
      'namespace: v10\nflags:\n  - key: extra\n    name: Extra\n---\nnamespace: v11\nsegments:\n  - key: extra\n    name: Extra\n';
    expect((await importText(source.app, doc, 'text/yaml')).status).toBe(200);
    expect([await revisionOf('v10'), await revisionOf('v11')]).toEqual([before.v10 + 1, before.v11 + 1]);
    const fresh = await source.app.services.evaluation.snapshot('v10');
    expect(fresh.revision).not.toBe(snapshot.revision);
  });
});

describeEachBackend('bad documents', (backend) => {
  let t: TestApp;
  let before: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    await t.app.services.documents.importSources([{ name: 'v1.3.yml', text: fixture('v1.3.yml'), format: 'yaml' }]);
    before = withoutHeader(await exportAll(t.app, 'yaml'));
  });
  afterAll(async () => t?.close());

  const flag = (body: string) =>
    `version: "1.4"\nnamespace: bad\nflags:\n  - key: ok\n    name: OK\n  - key: colour\n    name: Colour\n${body}`;
  const variants = '    variants:\n      - key: red\n      - key: blue\n';

  // Issue 42, item 5: an error names the flag or segment by key as well as by index, and in YAML the line.
  const keyedYaml =
    'namespace: bad\nflags:\n  - key: ok\n    name: OK\n  - key: pricing-page\n    name: Pricing\n    rules:\n      - segment: ""\n';
  const keyedSegmentYaml =
    'namespace: bad\nsegments:\n  - key: beta\n    name: Beta\n    constraints:\n      - type: STRING_COMPARISON_TYPE\n        property: plan\n        operator: near\n        value: x\n';
  const keyedJson = JSON.stringify({
    namespace: 'bad',
    flags: [
      { key: 'ok', name: 'OK' },
      { key: 'pricing-page', name: 'Pricing', rules: [{ segment: '' }] },
    ],
  });
  const keyedSegmentJson = JSON.stringify({
    namespace: 'bad',
    segments: [
      {
        key: 'beta',
        name: 'Beta',
        constraints: [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'near', value: 'x' }],
      },
    ],
  });

  const cases: [string, string, string, string][] = [
    [
      'a flag error in YAML: the flag key and the line',
      'application/yaml',
      keyedYaml,
      'request body: document 1: flags[1] (pricing-page).rules[0].segment at line 8: must not be empty',
    ],
    [
      'a segment error in YAML: the segment key and the line',
      'application/yaml',
      keyedSegmentYaml,
      'request body: document 1: segments[0] (beta).constraints[0] at line 6: constraint operator "near" is not valid for type string',
    ],
    [
      'a flag error in JSON: the flag key, no line',
      'application/json',
      keyedJson,
      'request body: document 1: flags[1] (pricing-page).rules[0].segment: must not be empty',
    ],
    [
      'a segment error in JSON: the segment key, no line',
      'application/json',
      keyedSegmentJson,
      'request body: document 1: segments[0] (beta).constraints[0]: constraint operator "near" is not valid for type string',
    ],
    [
      'an unknown variant in a distribution',
      'application/yaml',
      flag(
        `${variants}    rules:\n      - segment: s\n        distributions:\n          - variant: red\n            rollout: 50\n          - variant: blu\n            rollout: 50\nsegments:\n  - key: s\n    name: S\n`,
      ),
      'request body: document 1: flags[1] (colour).rules[0].distributions[1] at line 16: variant "blu" not found for flag "colour"',
    ],
    [
      'a rule on an unknown segment',
      'application/yaml',
      flag(`${variants}    rules:\n      - segment: nowhere\n`),
      'request body: document 1: flags[1] (colour).rules[0].segment at line 12: segment "nowhere" not found in namespace "bad"',
    ],
    [
      'a rollout with both segment and threshold',
      'application/yaml',
      flag(
        '    type: BOOLEAN_FLAG_TYPE\n    rollouts:\n      - segment: {key: s, value: true}\n        threshold: {percentage: 5, value: true}\nsegments:\n  - key: s\n    name: S\n',
      ),
      'request body: document 1: flags[1] (colour).rollouts[0] at line 10: cannot have both segment and threshold',
    ],
    [
      'an unknown constraint operator',
      'application/yaml',
      'namespace: bad\nsegments:\n  - key: s\n    name: S\n    constraints:\n      - {type: STRING_COMPARISON_TYPE, property: p, operator: near, value: x}\n',
      'request body: document 1: segments[0] (s).constraints[0] at line 6: constraint operator "near" is not valid for type string',
    ],
    [
      'an unknown comparison type',
      'application/yaml',
      'namespace: bad\nsegments:\n  - key: s\n    name: S\n    constraints:\n      - {type: COLOUR_COMPARISON_TYPE, property: p, operator: eq, value: x}\n',
      'request body: document 1: segments[0] (s).constraints[0].type at line 6: unknown comparison type "COLOUR_COMPARISON_TYPE"',
    ],
    [
      'distributions over 100',
      'application/yaml',
      flag(
        `${variants}    rules:\n      - segment: s\n        distributions:\n          - {variant: red, rollout: 60}\n          - {variant: blue, rollout: 50}\nsegments:\n  - key: s\n    name: S\n`,
      ),
      'request body: document 1: flags[1] (colour).rules[0].distributions at line 13: rollouts add up to 110, more than 100',
    ],
    [
      'a flag key twice in one document',
      'application/yaml',
      flag('  - key: ok\n    name: Again\n'),
      'request body: document 1: flags[2] (ok).key at line 8: flag "ok" is given twice (also flags[0])',
    ],
    [
      'a segment key twice in one document',
      'application/yaml',
      'namespace: bad\nsegments:\n  - key: s\n    name: S\n  - key: s\n    name: T\n',
      'request body: document 1: segments[1] (s).key at line 5: segment "s" is given twice (also segments[0])',
    ],
    [
      'invalid YAML',
      'application/yaml',
      'namespace: bad\nflags:\n  - key: a\n   name: [unclosed\n',
      'request body: document 1: invalid YAML at line 4, column 4: bad indentation of a sequence entry',
    ],
    [
      'a key given twice in one YAML mapping, in the second document of a stream',
      'application/yaml',
      'namespace: bad\n---\nnamespace: bad\nflags:\n  - key: a\n    name: A\n    name: B\n',
      'request body: document 2: invalid YAML at line 7, column 5: duplicated mapping key',
    ],
    [
      'an unknown version',
      'application/yaml',
      'version: "2.0"\nnamespace: bad\n',
      'request body: document 1: version at line 1: unsupported version "2.0" (supported: 1.0, 1.1, 1.2, 1.3, 1.4)',
    ],
    [
      'a JSON number where a string belongs',
      'application/json',
      '{"namespace": "bad", "flags": [{"key": "ok", "name": "OK"}, {"key": 42, "name": "N"}]}',
      'request body: document 1: flags[1].key: must be a string, not a number',
    ],
    [
      'a field newer than the document version',
      'application/yaml',
      'version: "1.2"\nnamespace: bad\nflags:\n  - key: a\n    name: A\n    metadata: {x: 1}\n',
      'request body: document 1: flags[0] (a).metadata at line 6: is supported from version 1.3, this document is 1.2',
    ],
    [
      'the second document of a stream is bad: the first is not written either',
      'application/yaml',
      'namespace: bad\nflags:\n  - key: a\n    name: A\n---\nnamespace: bad2\nflags:\n  - key: b\n',
      'request body: document 2: flags[0] (b).name at line 8: must not be empty',
    ],
    [
      'an existing key (checked against the database)',
      'application/yaml',
      'namespace: bad\nflags:\n  - key: a\n    name: A\n---\nnamespace: v13\nflags:\n  - key: theme\n    name: T\n',
      'request body: document 2: flags[0] (theme).key at line 8: flag "v13/theme" is not unique',
    ],
  ];

  for (const [title, contentType, text, message] of cases) {
    it(`${title}: one exact error, the database unchanged`, async () => {
      const res = await importText(t.app, text, contentType);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
      expect(res.body.message).toBe(message);
      expect(withoutHeader(await exportAll(t.app, 'yaml'))).toBe(before);
    });
  }
});

describe('import and export routes: authentication and tiers', () => {
  describe('with authentication required', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(
        { name: 'sqlite' },
        {
          authentication: {
            required: true,
            methods: { token: { enabled: true, bootstrap: { token: 'secret-token' } } },
          },
        },
      );
    });
    afterAll(async () => t?.close());

    it('refuses requests without a token and serves them with one', async () => {
      expect((await call(t.app, 'GET', '/api/v1/namespaces/default/export')).status).toBe(401);
      const anon = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/yaml' },
        payload: 'flags:\n  - key: a\n    name: A\n',
      });
      expect(anon.statusCode).toBe(401);
      const ok = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/yaml', ...bearer('secret-token') },
        payload: 'flags:\n  - key: a\n    name: A\n',
      });
      expect(ok.statusCode, ok.body).toBe(200);
      const exported = await call(t.app, 'GET', '/api/v1/namespaces/default/export', undefined, bearer('secret-token'));
      expect(exported.status).toBe(200);
      expect(exported.body).toContain('\n- key: a\n');
    });

    it('a token restricted to a namespace exports and imports that namespace only', async () => {
      const created = await call(
        t.app,
        'POST',
        '/auth/v1/method/token',
        { name: 'scoped', namespaceKey: 'team' },
        bearer('secret-token'),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const scoped = bearer(created.body.clientToken);
      const yaml = { 'content-type': 'application/yaml', ...scoped };
      const into = (ns: string, query = '') =>
        t.app.http.inject({
          method: 'POST',
          url: `/api/v1/import?namespace_key=team${query}`,
          headers: yaml,
          payload: `namespace: ${ns}\nflags:\n  - key: t\n    name: T\n`,
        });
      expect((await into('team')).statusCode).toBe(200);
      expect((await into('default')).statusCode).toBe(403);
      expect((await into('team', '&drop=true')).statusCode).toBe(403);
      const all = await call(t.app, 'GET', '/api/v1/namespaces/team/export?all=true', undefined, scoped);
      expect(all.status).toBe(200);
      expect(all.body).toContain('key: team');
      expect(all.body).not.toContain('key: default');
      expect((await call(t.app, 'GET', '/api/v1/namespaces/default/export', undefined, scoped)).status).toBe(403);
    });
  });

  it('read mode serves the export and refuses the import', async () => {
    const t = await startTestApp({ name: 'sqlite' }, { server: { mode: 'read' } });
    try {
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/yaml' },
        payload: 'flags:\n  - key: a\n    name: A\n',
      });
      expect(res.statusCode).toBe(405);
      expect((await call(t.app, 'GET', '/api/v1/namespaces/default/export')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('read-only storage refuses the import', async () => {
    const t = await startTestApp({ name: 'sqlite' }, { storage: { read_only: true } });
    try {
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/yaml' },
        payload: 'flags:\n  - key: a\n    name: A\n',
      });
      expect(res.statusCode).not.toBe(200);
      expect((await call(t.app, 'GET', '/api/v1/namespaces/default/export')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('other routes still read JSON bodies as before', async () => {
    const t = await startTestApp({ name: 'sqlite' });
    try {
      const res = await call(
        t.app,
        'POST',
        '/api/v1/flags',
        { key: 'j', name: 'J' },
        { 'content-type': 'application/yaml' },
      );
      expect(res.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
