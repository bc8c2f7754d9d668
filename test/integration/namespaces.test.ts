import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

describeEachBackend('namespaces API', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t?.close());

  it('lists the seeded default namespace', async () => {
    const res = await call(t.app, 'GET', '/api/v1/namespaces');
    expect(res.status).toBe(200);
    expect(res.body.totalCount).toBe(1);
    expect(res.body.nextPageToken).toBe('');
    expect(res.body.namespaces[0]).toMatchObject({ key: 'default', name: 'Default', protected: true });
  });

  it('creates, reads, updates and deletes a namespace', async () => {
    const created = await call(t.app, 'POST', '/api/v1/namespaces', {
      key: 'staging',
      name: 'Staging',
      description: 'S',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ key: 'staging', name: 'Staging', description: 'S', protected: false });
    expect(created.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

    const got = await call(t.app, 'GET', '/api/v1/namespaces/staging');
    expect(got.body).toEqual(created.body);

    const updated = await call(t.app, 'PUT', '/api/v1/namespaces/staging', { name: 'Stage 2', key: 'ignored' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ key: 'staging', name: 'Stage 2', description: '' });

    expect((await call(t.app, 'DELETE', '/api/v1/namespaces/staging')).body).toEqual({});
    expect((await call(t.app, 'GET', '/api/v1/namespaces/staging')).status).toBe(404);
  });

  it('accepts snake_case and any content type', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/namespaces',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ key: 'plain', name: 'Plain', unknown_field: 1 }),
    });
    expect(res.statusCode).toBe(200);
  });

  it('pages with limit and pageToken', async () => {
    for (const key of ['p1', 'p2', 'p3']) await call(t.app, 'POST', '/api/v1/namespaces', { key, name: key });
    const first = await call(t.app, 'GET', '/api/v1/namespaces?limit=2');
    expect(first.body.namespaces).toHaveLength(2);
    expect(first.body.nextPageToken).not.toBe('');
    const token = encodeURIComponent(first.body.nextPageToken);
    const second = await call(t.app, 'GET', `/api/v1/namespaces?limit=2&pageToken=${token}`);
    expect(second.body.namespaces.map((n: { key: string }) => n.key)).toEqual(['p1', 'p2']);
    const bad = await call(t.app, 'GET', '/api/v1/namespaces?limit=2&pageToken=zzz');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 3, message: 'pageToken is not valid: "zzz"', details: [] });
  });

  it('answers client mistakes with 4xx and the Flipt error body', async () => {
    const cases: [string, string, unknown, number, string][] = [
      [
        'POST',
        '/api/v1/namespaces',
        { key: 'bad key', name: 'x' },
        400,
        'invalid field key: contains invalid characters',
      ],
      ['POST', '/api/v1/namespaces', { name: 'x' }, 400, 'invalid field key: must not be empty'],
      ['POST', '/api/v1/namespaces', { key: 'nn' }, 400, 'invalid field name: must not be empty'],
      ['POST', '/api/v1/namespaces', { key: 'default', name: 'x' }, 400, 'namespace "default" is not unique'],
      [
        'POST',
        '/api/v1/namespaces',
        { key: 'x'.repeat(256), name: 'x' },
        400,
        'invalid field key: must not be longer than 255 characters',
      ],
      ['POST', '/api/v1/namespaces', '{"key":', 400, 'request body is not valid JSON'],
      ['POST', '/api/v1/namespaces', { key: 12, name: 'x' }, 400, 'invalid field key: must be string'],
      ['GET', '/api/v1/namespaces/missing', undefined, 404, 'namespace "missing" not found'],
      ['PUT', '/api/v1/namespaces/missing', { name: 'x' }, 404, 'namespace "missing" not found'],
      ['DELETE', '/api/v1/namespaces/missing', undefined, 404, 'namespace "missing" not found'],
      ['DELETE', '/api/v1/namespaces/default', undefined, 400, 'namespace "default" is protected'],
      ['GET', '/api/v1/nothing-here', undefined, 404, 'Not Found'],
      ['PATCH', '/api/v1/namespaces/default', {}, 501, 'Method Not Allowed'],
    ];
    for (const [method, url, body, status, message] of cases) {
      const res = await call(t.app, method as 'GET', url, body);
      expect({ url, method, status: res.status, body: res.body }).toEqual({
        url,
        method,
        status,
        body: { code: expect.any(Number), message, details: [] },
      });
    }
  });

  it('rejects bodies over the limit with 413', async () => {
    const res = await call(t.app, 'POST', '/api/v1/namespaces', {
      key: 'big',
      name: 'x',
      description: 'x'.repeat(1024 * 1024 + 10),
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 8, details: [] });
  });

  it('ignores one trailing slash and serves the OpenAPI document', async () => {
    expect((await call(t.app, 'GET', '/api/v1/namespaces/')).status).toBe(200);
    const doc = await call(t.app, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/namespaces/{key}');
  });

  it('reports health', async () => {
    expect(await call(t.app, 'GET', '/health')).toMatchObject({ status: 200, body: { status: 'SERVING' } });
  });
});
