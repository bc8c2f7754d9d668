import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const SEGMENT_KEYS = [
  'key',
  'name',
  'description',
  'createdAt',
  'updatedAt',
  'constraints',
  'matchType',
  'namespaceKey',
];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describeEachBackend('segments API', (backend) => {
  let t: TestApp;
  const base = '/api/v1/namespaces/seg/segments';

  beforeAll(async () => {
    t = await startTestApp(backend);
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: 'seg', name: 'Segments' })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  async function revision(ns: string): Promise<number> {
    const row = await t.app.db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', ns)
      .executeTakeFirstOrThrow();
    return Number(row.revision);
  }

  async function expectError(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body: unknown,
    status: number,
    message: string,
  ) {
    const res = await call(t.app, method, url, body);
    expect({ method, url, status: res.status, body: res.body }).toEqual({
      method,
      url,
      status,
      body: { code: status === 404 ? 5 : 3, message, details: [] },
    });
  }

  it('creates a segment with Flipt’s shape and key order', async () => {
    const res = await call(t.app, 'POST', base, {
      key: 'beta',
      name: 'Beta users',
      description: 'd',
      namespaceKey: 'ignored',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(SEGMENT_KEYS);
    expect(res.body).toMatchObject({
      key: 'beta',
      name: 'Beta users',
      description: 'd',
      constraints: [],
      matchType: 'ALL_MATCH_TYPE',
      namespaceKey: 'seg',
    });
    expect(res.body.createdAt).toMatch(TIMESTAMP);
    expect(res.body.updatedAt).toBe(res.body.createdAt);

    const got = await call(t.app, 'GET', `${base}/beta`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('accepts match types by name, by number, in snake_case, and an empty description', async () => {
    const byName = await call(t.app, 'POST', base, { key: 'any-name', name: 'n', matchType: 'ANY_MATCH_TYPE' });
    expect(byName.body).toMatchObject({ matchType: 'ANY_MATCH_TYPE', description: '' });
    const byNumber = await call(t.app, 'POST', base, { key: 'any-number', name: 'n', matchType: 1 });
    expect(byNumber.body.matchType).toBe('ANY_MATCH_TYPE');
    const snake = await call(t.app, 'POST', base, { key: 'any_snake,1', name: 'n', match_type: 'ANY_MATCH_TYPE' });
    expect(snake.status).toBe(200);
    expect(snake.body).toMatchObject({ key: 'any_snake,1', matchType: 'ANY_MATCH_TYPE' });
    const nulls = await call(t.app, 'POST', base, { key: 'nulls', name: 'n', description: null, matchType: null });
    expect(nulls.body).toMatchObject({ description: '', matchType: 'ALL_MATCH_TYPE' });
  });

  it('updates name, description and match type; the path key wins', async () => {
    await call(t.app, 'POST', base, { key: 'upd', name: 'Before', description: 'x', matchType: 'ANY_MATCH_TYPE' });
    const before = await call(t.app, 'GET', `${base}/upd`);
    const res = await call(t.app, 'PUT', `${base}/upd`, {
      key: 'other',
      name: 'After',
      description: 'y',
      matchType: 'ANY_MATCH_TYPE',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(SEGMENT_KEYS);
    expect(res.body).toMatchObject({
      key: 'upd',
      name: 'After',
      description: 'y',
      matchType: 'ANY_MATCH_TYPE',
      namespaceKey: 'seg',
    });
    expect(res.body.createdAt).toBe(before.body.createdAt);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(before.body.createdAt));
    // matchType left out is the proto default: ALL.
    const reset = await call(t.app, 'PUT', `${base}/upd`, { name: 'After' });
    expect(reset.body).toMatchObject({ matchType: 'ALL_MATCH_TYPE', description: '' });
    expect((await call(t.app, 'GET', `${base}/other`)).status).toBe(404);
  });

  it('answers client mistakes with Flipt’s messages', async () => {
    await call(t.app, 'POST', base, { key: 'dup', name: 'Dup' });
    await expectError('POST', base, { name: 'x' }, 400, 'invalid field key: must not be empty');
    await expectError('POST', base, { key: '', name: 'x' }, 400, 'invalid field key: must not be empty');
    await expectError(
      'POST',
      base,
      { key: 'bad key', name: 'x' },
      400,
      'invalid field key: contains invalid characters',
    );
    await expectError('POST', base, { key: 'k' }, 400, 'invalid field name: must not be empty');
    await expectError('POST', base, {}, 400, 'invalid field key: must not be empty');
    await expectError('POST', base, { key: 'dup', name: 'again' }, 400, 'segment "seg/dup" is not unique');
    await expectError(
      'POST',
      base,
      { key: 'x'.repeat(256), name: 'x' },
      400,
      'invalid field key: must not be longer than 255 characters',
    );
    await expectError(
      'POST',
      base,
      { key: 'longname', name: 'x'.repeat(256) },
      400,
      'invalid field name: must not be longer than 255 characters',
    );
    await expectError(
      'POST',
      '/api/v1/namespaces/nope/segments',
      { key: 'k', name: 'x' },
      404,
      'namespace "nope" not found',
    );
    await expectError('GET', `${base}/missing`, undefined, 404, 'segment "seg/missing" not found');
    await expectError('PUT', `${base}/missing`, { name: 'x' }, 404, 'segment "seg/missing" not found');
    await expectError('PUT', `${base}/dup`, { description: 'no name' }, 400, 'invalid field name: must not be empty');
    await expectError('GET', '/api/v1/namespaces/nope/segments/dup', undefined, 404, 'segment "nope/dup" not found');

    for (const matchType of ['FOO', 2, -1, true]) {
      const res = await call(t.app, 'POST', base, { key: 'enum', name: 'x', matchType });
      expect({ matchType, status: res.status, code: res.body.code }).toEqual({ matchType, status: 400, code: 3 });
    }
    const wrongType = await call(t.app, 'POST', base, { key: 12, name: 'x' });
    expect(wrongType.status).toBe(400);
    const badJson = await call(t.app, 'POST', base, '{"key":');
    expect(badJson.status).toBe(400);
    expect((await call(t.app, 'GET', `${base}/enum`)).status).toBe(404);
  });

  it('deletes idempotently and cascades to constraints', async () => {
    await call(t.app, 'POST', base, { key: 'gone', name: 'Gone' });
    const c = await call(t.app, 'POST', `${base}/gone/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'suffix',
      value: '@example.com',
    });
    expect(c.status).toBe(200);
    const del = await call(t.app, 'DELETE', `${base}/gone`);
    expect(del).toMatchObject({ status: 200, body: {} });
    expect((await call(t.app, 'GET', `${base}/gone`)).status).toBe(404);
    const left = await t.app.db.kysely.selectFrom('constraints').select('id').where('id', '=', c.body.id).execute();
    expect(left).toEqual([]);
    expect(await call(t.app, 'DELETE', `${base}/gone`)).toMatchObject({ status: 200, body: {} });
    expect(await call(t.app, 'DELETE', '/api/v1/namespaces/nope/segments/gone')).toMatchObject({
      status: 200,
      body: {},
    });
  });

  it('refuses to delete a segment a rule or a rollout uses, until they are gone', async () => {
    const ns = 'inuse';
    await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'In use' });
    const segs = `/api/v1/namespaces/${ns}/segments`;
    for (const key of ['by-rule', 'by-rollout', 'by-both']) {
      expect((await call(t.app, 'POST', segs, { key, name: key })).status).toBe(200);
      await call(t.app, 'POST', `${segs}/${key}/constraints`, {
        type: 'STRING_COMPARISON_TYPE',
        property: 'p',
        operator: 'eq',
        value: 'v',
      });
    }
    const flag = await call(t.app, 'POST', `/api/v1/namespaces/${ns}/flags`, {
      key: 'f',
      name: 'F',
      type: 'BOOLEAN_FLAG_TYPE',
    });
    expect(flag.status).toBe(200);

    // A rule through rule_segments (written directly: this suite tests segments, not the rules API).
    const now = new Date();
    await t.app.db.kysely
      .insertInto('rules')
      .values({
        id: 'rule-1',
        namespace_key: ns,
        flag_key: 'f',
        rank: 1,
        segment_operator: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await t.app.db.kysely
      .insertInto('rule_segments')
      .values([
        { rule_id: 'rule-1', namespace_key: ns, segment_key: 'by-rule', position: 0 },
        { rule_id: 'rule-1', namespace_key: ns, segment_key: 'by-both', position: 1 },
      ])
      .execute();
    const rollout = await call(t.app, 'POST', `/api/v1/namespaces/${ns}/flags/f/rollouts`, {
      rank: 1,
      segment: { segmentKeys: ['by-rollout', 'by-both'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
    });
    expect(rollout.status).toBe(200);

    const before = await revision(ns);
    for (const key of ['by-rule', 'by-rollout', 'by-both']) {
      await expectError('DELETE', `${segs}/${key}`, undefined, 400, `segment "${ns}/${key}" is in use`);
      // Nothing was half-deleted: the segment and its constraints are still there.
      const seg = await call(t.app, 'GET', `${segs}/${key}`);
      expect(seg.status).toBe(200);
      expect(seg.body.constraints).toHaveLength(1);
    }
    expect(await revision(ns)).toBe(before);

    await t.app.db.kysely.deleteFrom('rules').where('id', '=', 'rule-1').execute();
    expect((await call(t.app, 'DELETE', `${segs}/by-rule`)).status).toBe(200);
    await expectError('DELETE', `${segs}/by-both`, undefined, 400, `segment "${ns}/by-both" is in use`);

    expect((await call(t.app, 'DELETE', `/api/v1/namespaces/${ns}/flags/f/rollouts/${rollout.body.id}`)).status).toBe(
      200,
    );
    expect((await call(t.app, 'DELETE', `${segs}/by-both`)).status).toBe(200);
    expect((await call(t.app, 'DELETE', `${segs}/by-rollout`)).status).toBe(200);
    expect((await call(t.app, 'GET', segs)).body.totalCount).toBe(0);
  });

  describe('listing', () => {
    const ns = 'listing';
    const list = `/api/v1/namespaces/${ns}/segments`;
    const keys = ['s1', 's2', 's3', 's4', 's5'];

    beforeAll(async () => {
      await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'Listing' });
      for (const key of keys) await call(t.app, 'POST', list, { key, name: key.toUpperCase() });
      for (const value of ['a', 'b', 'c']) {
        await call(t.app, 'POST', `${list}/s2/constraints`, {
          type: 'STRING_COMPARISON_TYPE',
          property: 'p',
          operator: 'eq',
          value,
        });
      }
    });

    it('lists everything in creation order without a limit, with constraints', async () => {
      const res = await call(t.app, 'GET', list);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['segments', 'nextPageToken', 'totalCount']);
      expect(res.body.segments.map((s: { key: string }) => s.key)).toEqual(keys);
      expect(res.body).toMatchObject({ nextPageToken: '', totalCount: 5 });
      expect(Object.keys(res.body.segments[0])).toEqual(SEGMENT_KEYS);
      expect(res.body.segments[1].constraints.map((c: { value: string }) => c.value)).toEqual(['a', 'b', 'c']);
      expect(res.body.segments[0].constraints).toEqual([]);
    });

    it('pages with limit, offset and pageToken exactly as Flipt', async () => {
      const first = await call(t.app, 'GET', `${list}?limit=2`);
      expect(first.body.segments.map((s: { key: string }) => s.key)).toEqual(['s1', 's2']);
      expect(first.body.totalCount).toBe(5);
      expect(first.body.segments[1].constraints).toHaveLength(3);
      expect(JSON.parse(Buffer.from(first.body.nextPageToken, 'base64').toString())).toEqual({ key: 's3', offset: 2 });

      const second = await call(
        t.app,
        'GET',
        `${list}?limit=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(second.body.segments.map((s: { key: string }) => s.key)).toEqual(['s3', 's4']);
      const third = await call(
        t.app,
        'GET',
        `${list}?limit=2&page_token=${encodeURIComponent(second.body.nextPageToken)}`,
      );
      expect(third.body.segments.map((s: { key: string }) => s.key)).toEqual(['s5']);
      expect(third.body.nextPageToken).toBe('');

      const byOffset = await call(t.app, 'GET', `${list}?limit=2&offset=3`);
      expect(byOffset.body.segments.map((s: { key: string }) => s.key)).toEqual(['s4', 's5']);
      // The token wins over the offset.
      const both = await call(
        t.app,
        'GET',
        `${list}?limit=1&offset=4&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(both.body.segments.map((s: { key: string }) => s.key)).toEqual(['s3']);
      const big = await call(t.app, 'GET', `${list}?limit=10000`);
      expect(big.body.segments).toHaveLength(5);
    });

    it('refuses bad paging input', async () => {
      await expectError('GET', `${list}?limit=2&pageToken=zzz`, undefined, 400, 'pageToken is not valid: "zzz"');
      await expectError('GET', `${list}?offset=1`, undefined, 400, 'limit must be set when offset or pageToken is set');
      await expectError(
        'GET',
        `${list}?pageToken=abc`,
        undefined,
        400,
        'limit must be set when offset or pageToken is set',
      );
      expect((await call(t.app, 'GET', `${list}?limit=abc`)).status).toBe(400);
    });

    it('lists an unknown namespace as empty', async () => {
      const res = await call(t.app, 'GET', '/api/v1/namespaces/unknown-ns/segments');
      expect(res).toMatchObject({ status: 200, body: { segments: [], nextPageToken: '', totalCount: 0 } });
    });
  });

  it('serves the legacy routes without the namespace prefix on the default namespace', async () => {
    const created = await call(t.app, 'POST', '/api/v1/segments', { key: 'legacy', name: 'Legacy' });
    expect(created.status).toBe(200);
    expect(created.body.namespaceKey).toBe('default');
    expect((await call(t.app, 'GET', '/api/v1/namespaces/default/segments/legacy')).body).toEqual(created.body);
    expect((await call(t.app, 'GET', '/api/v1/segments/legacy')).body).toEqual(created.body);
    const listed = await call(t.app, 'GET', '/api/v1/segments');
    expect(listed.body.segments.map((s: { key: string }) => s.key)).toContain('legacy');
    const updated = await call(t.app, 'PUT', '/api/v1/segments/legacy', {
      name: 'Renamed',
      matchType: 'ANY_MATCH_TYPE',
    });
    expect(updated.body).toMatchObject({
      key: 'legacy',
      name: 'Renamed',
      matchType: 'ANY_MATCH_TYPE',
      namespaceKey: 'default',
    });
    // The legacy routes read a namespace named in the body or query, like grpc-gateway binds it.
    const other = await call(t.app, 'POST', '/api/v1/segments', { key: 'legacy', name: 'In seg', namespaceKey: 'seg' });
    expect(other.body.namespaceKey).toBe('seg');
    expect((await call(t.app, 'GET', '/api/v1/segments/legacy?namespaceKey=seg')).body.name).toBe('In seg');
    expect(await call(t.app, 'DELETE', '/api/v1/segments/legacy')).toMatchObject({ status: 200, body: {} });
    expect((await call(t.app, 'GET', '/api/v1/segments/legacy')).status).toBe(404);
    expect((await call(t.app, 'GET', '/api/v1/namespaces/seg/segments/legacy')).status).toBe(200);
  });

  it('bumps the namespace revision on every write, and not on a refused one', async () => {
    const ns = 'revs';
    await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'Revisions' });
    const segs = `/api/v1/namespaces/${ns}/segments`;
    let last = await revision(ns);
    const expectBump = async () => {
      const now = await revision(ns);
      expect(now).toBeGreaterThan(last);
      last = now;
    };
    expect((await call(t.app, 'POST', segs, { key: 'r', name: 'R' })).status).toBe(200);
    await expectBump();
    expect((await call(t.app, 'PUT', `${segs}/r`, { name: 'R2' })).status).toBe(200);
    await expectBump();
    const c = await call(t.app, 'POST', `${segs}/r/constraints`, {
      type: 'BOOLEAN_COMPARISON_TYPE',
      property: 'p',
      operator: 'true',
    });
    expect(c.status).toBe(200);
    await expectBump();
    expect(
      (
        await call(t.app, 'PUT', `${segs}/r/constraints/${c.body.id}`, {
          type: 'BOOLEAN_COMPARISON_TYPE',
          property: 'p',
          operator: 'false',
        })
      ).status,
    ).toBe(200);
    await expectBump();
    expect((await call(t.app, 'DELETE', `${segs}/r/constraints/${c.body.id}`)).status).toBe(200);
    await expectBump();
    expect((await call(t.app, 'POST', segs, { key: 'r', name: 'dup' })).status).toBe(400);
    expect(await revision(ns)).toBe(last);
    expect((await call(t.app, 'DELETE', `${segs}/r`)).status).toBe(200);
    await expectBump();
    // Other namespaces are not touched.
    const defaultBefore = await revision('default');
    await call(t.app, 'POST', segs, { key: 'r2', name: 'R2' });
    expect(await revision('default')).toBe(defaultBefore);
  });

  it('documents the namespaced routes in the OpenAPI document', async () => {
    const doc = await call(t.app, 'GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths);
    expect(paths).toContain('/api/v1/namespaces/{namespaceKey}/segments/{key}');
    expect(paths).toContain('/api/v1/namespaces/{namespaceKey}/segments/{segmentKey}/constraints/{id}');
  });
});
