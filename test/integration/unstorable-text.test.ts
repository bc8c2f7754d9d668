// Text no database stores as given — NUL (PostgreSQL refuses it) and unpaired UTF-16 surrogates (every
// driver turns them into U+FFFD) — gets the same answer on every backend: a lookup by it finds
// nothing (the 404 SQLite always gave; a delete of nothing succeeds, as in Flipt), and storing it is
// a 400 naming the field, never a 500 and never a silently changed value. HTTP bodies read an escaped
// unpaired surrogate as U+FFFD, as Flipt (Go) does, so only imported documents can still carry one.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const NS = '/api/v1/namespaces/default';
const REASON = 'contains a NUL character or an unpaired surrogate, which cannot be stored';

describeEachBackend('text the database cannot store', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend);
    await call(t.app, 'POST', `${NS}/flags`, { key: 'f1', name: 'f1', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    await call(t.app, 'POST', `${NS}/segments`, { key: 's1', name: 's1', matchType: 'ALL_MATCH_TYPE' });
  });
  afterAll(async () => t?.close());

  it.each([
    [
      'an evaluation in a namespace with NUL',
      'POST',
      '/evaluate/v1/boolean',
      { namespaceKey: 'a\u0000b', flagKey: 'f1', entityId: 'e' },
    ],
    ['an evaluation of a flag key with NUL', 'POST', '/evaluate/v1/variant', { flagKey: 'f\u0000', entityId: 'e' }],
    ['a namespace with NUL', 'GET', '/api/v1/namespaces/a%00b', undefined],
    ['a flag with NUL', 'GET', `${NS}/flags/f%001`, undefined],
    ['a flag in a namespace with NUL', 'GET', '/api/v1/namespaces/a%00b/flags/f1', undefined],
    ['a rule id with NUL', 'GET', `${NS}/flags/f1/rules/r%00`, undefined],
  ] as const)('%s is not found', async (_what, method, url, body) => {
    const res = await call(t.app, method, url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body.code).toBe(5);
  });

  it('deletes nothing by a key with NUL, and answers as for any missing flag', async () => {
    expect((await call(t.app, 'DELETE', `${NS}/flags/f%00`)).status).toBe(200);
    expect((await call(t.app, 'GET', `${NS}/flags/f1`)).status).toBe(200);
  });

  it('refuses a URL whose path is not UTF-8 (an unpaired surrogate) at the router', async () => {
    const res = await call(t.app, 'GET', `${NS}/segments/s%ED%A0%801`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
  });

  it.each([
    ['a flag name', 'POST', `${NS}/flags`, { key: 'n1', name: 'a\u0000b', type: 'BOOLEAN_FLAG_TYPE' }, 'name'],
    ['a flag description', 'POST', `${NS}/flags`, { key: 'n2', name: 'n', description: 'x\u0000' }, 'description'],
    ['a namespace name', 'POST', '/api/v1/namespaces', { key: 'n3', name: '\u0000' }, 'name'],
    [
      'a segment description',
      'PUT',
      `${NS}/segments/s1`,
      { name: 's1', description: '\u0000', matchType: 'ALL_MATCH_TYPE' },
      'description',
    ],
    [
      'a constraint value',
      'POST',
      `${NS}/segments/s1/constraints`,
      { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'a\u0000' },
      'value',
    ],
    [
      'a constraint property',
      'POST',
      `${NS}/segments/s1/constraints`,
      { type: 'STRING_COMPARISON_TYPE', property: 'p\u0000', operator: 'eq', value: 'v' },
      'property',
    ],
    ['a variant name', 'POST', `${NS}/flags/f1/variants`, { key: 'v1', name: 'v\u0000' }, 'name'],
    [
      'a rollout description',
      'POST',
      `${NS}/flags/f1/rollouts`,
      { rank: 1, description: '\u0000', threshold: { percentage: 5, value: true } },
      'description',
    ],
  ] as const)('%s is refused as an invalid field', async (_what, method, url, body, field) => {
    const res = await call(t.app, method, url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ code: 3, message: `invalid field ${field}: ${REASON}`, details: [] });
  });

  it('stores metadata holding NUL unchanged (metadata is stored as JSON text, where NUL is escaped)', async () => {
    const metadata = { note: 'a\u0000b' };
    const created = await call(t.app, 'POST', `${NS}/flags`, {
      key: 'meta',
      name: 'm',
      type: 'BOOLEAN_FLAG_TYPE',
      metadata,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await call(t.app, 'GET', `${NS}/flags/meta`)).body.metadata).toEqual(metadata);
  });

  it('reads an escaped unpaired surrogate in a body as U+FFFD and stores that, as Flipt does', async () => {
    const created = await call(t.app, 'POST', `${NS}/flags`, {
      key: 'odd',
      name: 'x\ud800',
      type: 'BOOLEAN_FLAG_TYPE',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await call(t.app, 'GET', `${NS}/flags/odd`)).body.name).toBe('x\ufffd');
  });

  it('refuses an imported document holding an unpaired surrogate, naming the field', async () => {
    const document =
      'namespace: default\nflags:\n  - key: imported\n    name: "odd \\ud800"\n    type: BOOLEAN_FLAG_TYPE\n';
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/import',
      headers: { 'content-type': 'application/x-yaml' },
      payload: document,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.parse(res.body).message).toContain(REASON);
    expect((await call(t.app, 'GET', `${NS}/flags/imported`)).status).toBe(404);
  });
});
