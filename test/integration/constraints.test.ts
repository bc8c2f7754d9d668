import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const CONSTRAINT_KEYS = [
  'id',
  'segmentKey',
  'type',
  'property',
  'operator',
  'value',
  'createdAt',
  'updatedAt',
  'namespaceKey',
  'description',
];

const OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'empty',
  'notempty',
  'true',
  'false',
  'present',
  'notpresent',
  'prefix',
  'suffix',
  'isoneof',
  'isnotoneof',
  'contains',
  'notcontains',
];
const NO_VALUE = new Set(['empty', 'notempty', 'true', 'false', 'present', 'notpresent']);

const TYPES: { type: string; label: string; property: string; allowed: string[]; value: string; list: string }[] = [
  {
    type: 'STRING_COMPARISON_TYPE',
    label: 'string',
    property: 'email',
    allowed: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
    value: 'x',
    list: '["a","b"]',
  },
  {
    type: 'NUMBER_COMPARISON_TYPE',
    label: 'number',
    property: 'age',
    allowed: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
    value: '42',
    list: '[1,2.5]',
  },
  {
    type: 'BOOLEAN_COMPARISON_TYPE',
    label: 'boolean',
    property: 'admin',
    allowed: ['true', 'false', 'present', 'notpresent'],
    value: 'true',
    list: '',
  },
  {
    type: 'DATETIME_COMPARISON_TYPE',
    label: 'datetime',
    property: 'signup',
    allowed: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
    value: '2024-01-02',
    // Datetime values are parsed before the list check, so a list value never passes (Flipt).
    list: '2024-01-02',
  },
  {
    type: 'ENTITY_ID_COMPARISON_TYPE',
    label: 'entityId',
    property: 'entityId',
    allowed: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
    value: 'user-1',
    list: '["u1","u2"]',
  },
];

describeEachBackend('constraints API', (backend) => {
  let t: TestApp;
  const ns = 'con';
  const seg = `/api/v1/namespaces/${ns}/segments/users`;
  const constraints = `${seg}/constraints`;

  beforeAll(async () => {
    t = await startTestApp(backend);
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'Constraints' })).status).toBe(200);
    expect(
      (await call(t.app, 'POST', `/api/v1/namespaces/${ns}/segments`, { key: 'users', name: 'Users' })).status,
    ).toBe(200);
  });
  afterAll(async () => t?.close());

  async function revision(key: string): Promise<number> {
    const row = await t.app.db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return Number(row.revision);
  }

  async function expectError(
    method: 'POST' | 'PUT' | 'DELETE',
    url: string,
    body: unknown,
    status: number,
    message: string,
  ) {
    const res = await call(t.app, method, url, body);
    expect({ body, status: res.status, error: res.body }).toEqual({
      body,
      status,
      error: { code: status === 404 ? 5 : 3, message, details: [] },
    });
  }

  it('creates a constraint with Flipt’s shape, lowercasing the operator', async () => {
    const res = await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'SUFFIX',
      value: '@example.com',
      description: 'company mail',
      segmentKey: 'ignored',
      namespaceKey: 'ignored',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(CONSTRAINT_KEYS);
    expect(res.body).toMatchObject({
      segmentKey: 'users',
      type: 'STRING_COMPARISON_TYPE',
      property: 'email',
      operator: 'suffix',
      value: '@example.com',
      namespaceKey: ns,
      description: 'company mail',
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.updatedAt).toBe(res.body.createdAt);

    const segment = await call(t.app, 'GET', seg);
    expect(segment.body.constraints).toEqual([res.body]);
  });

  it('accepts the type as a number, snake_case fields and a missing description', async () => {
    const res = await call(t.app, 'POST', constraints, { type: 2, property: 'age', operator: 'gte', value: '18' });
    expect(res.body).toMatchObject({ type: 'NUMBER_COMPARISON_TYPE', operator: 'gte', value: '18', description: '' });
    // Numeric values are not checked at create time; the evaluator parses them.
    const loose = await call(t.app, 'POST', constraints, {
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'age',
      operator: 'lt',
      value: 'abc',
    });
    expect(loose.body.value).toBe('abc');
    const snake = await t.app.http.inject({
      method: 'POST',
      url: constraints,
      payload: JSON.stringify({
        type: 'BOOLEAN_COMPARISON_TYPE',
        property: 'is_admin',
        operator: 'true',
        segment_key: 'x',
      }),
    });
    expect(snake.statusCode).toBe(200);
    expect(JSON.parse(snake.body)).toMatchObject({
      property: 'is_admin',
      operator: 'true',
      value: '',
      segmentKey: 'users',
    });
  });

  it('refuses every operator that is not valid for its type, with the original spelling', async () => {
    for (const { type, label, property, allowed } of TYPES) {
      for (const op of OPERATORS.filter((o) => !allowed.includes(o))) {
        const spelled = op.toUpperCase();
        await expectError(
          'POST',
          constraints,
          { type, property, operator: spelled, value: 'v' },
          400,
          `constraint operator "${spelled}" is not valid for type ${label}`,
        );
      }
      await expectError(
        'POST',
        constraints,
        { type, property, operator: 'between', value: 'v' },
        400,
        `constraint operator "between" is not valid for type ${label}`,
      );
    }
  });

  it('accepts every operator that is valid for its type, forcing "" for no-value operators', async () => {
    for (const { type, property, allowed, value, list } of TYPES) {
      for (const op of allowed) {
        const given = op === 'isoneof' || op === 'isnotoneof' ? list : value;
        const res = await call(t.app, 'POST', constraints, { type, property, operator: op, value: given });
        const expected = NO_VALUE.has(op) ? '' : given;
        expect({ type, op, status: res.status, operator: res.body.operator, value: res.body.value }).toEqual({
          type,
          op,
          status: 200,
          operator: op,
          value: expected,
        });
        if (NO_VALUE.has(op)) {
          const empty = await call(t.app, 'POST', constraints, { type, property, operator: op });
          expect({ type, op, status: empty.status, value: empty.body.value }).toEqual({
            type,
            op,
            status: 200,
            value: '',
          });
        }
      }
    }
  });

  it('requires a value unless the operator takes none', async () => {
    for (const { type, property, allowed } of TYPES) {
      for (const op of allowed.filter((o) => !NO_VALUE.has(o))) {
        await expectError(
          'POST',
          constraints,
          { type, property, operator: op, value: '' },
          400,
          'invalid field value: must not be empty',
        );
        await expectError(
          'POST',
          constraints,
          { type, property, operator: op },
          400,
          'invalid field value: must not be empty',
        );
      }
    }
  });

  it('refuses missing fields, unknown types and bad enums', async () => {
    await expectError(
      'POST',
      constraints,
      { type: 'STRING_COMPARISON_TYPE', operator: 'eq', value: 'v' },
      400,
      'invalid field property: must not be empty',
    );
    await expectError(
      'POST',
      constraints,
      { type: 'STRING_COMPARISON_TYPE', property: 'p', value: 'v' },
      400,
      'invalid field operator: must not be empty',
    );
    await expectError(
      'POST',
      constraints,
      { type: 'STRING_COMPARISON_TYPE', property: '', operator: '', value: 'v' },
      400,
      'invalid field property: must not be empty',
    );
    const unknown = 'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"';
    await expectError(
      'POST',
      constraints,
      { type: 'UNKNOWN_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' },
      400,
      unknown,
    );
    await expectError('POST', constraints, { type: 0, property: 'p', operator: 'eq', value: 'v' }, 400, unknown);
    await expectError('POST', constraints, { property: 'p', operator: 'eq', value: 'v' }, 400, unknown);
    await expectError('POST', constraints, {}, 400, 'invalid field property: must not be empty');
    for (const type of ['STRING', 6, 'string_comparison_type', true]) {
      const res = await call(t.app, 'POST', constraints, { type, property: 'p', operator: 'eq', value: 'v' });
      expect({ type, status: res.status, code: res.body.code }).toEqual({ type, status: 400, code: 3 });
    }
    const wrongValueType = await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 5,
    });
    expect(wrongValueType.status).toBe(400);
    await expectError(
      'POST',
      constraints,
      { type: 'STRING_COMPARISON_TYPE', property: 'p'.repeat(256), operator: 'eq', value: 'v' },
      400,
      'invalid field property: must not be longer than 255 characters',
    );
  });

  it('requires the entityId property for entity id constraints', async () => {
    await expectError(
      'POST',
      constraints,
      { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'userId', operator: 'eq', value: 'u' },
      400,
      'property is userId instead of "entityId"',
    );
    const ok = await call(t.app, 'POST', constraints, {
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      operator: 'EQ',
      value: 'u',
    });
    expect(ok.body).toMatchObject({
      type: 'ENTITY_ID_COMPARISON_TYPE',
      property: 'entityId',
      operator: 'eq',
      value: 'u',
    });
  });

  it('parses and normalises datetime values', async () => {
    const cases: [string, string][] = [
      ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
      ['2024-01-02T03:04:05.987654+02:00', '2024-01-02T01:04:05Z'],
      ['2024-01-02T23:30:00-01:00', '2024-01-03T00:30:00Z'],
      ['2024-02-29', '2024-02-29'],
    ];
    for (const [given, stored] of cases) {
      const res = await call(t.app, 'POST', constraints, {
        type: 'DATETIME_COMPARISON_TYPE',
        property: 'd',
        operator: 'gt',
        value: given,
      });
      expect({ given, status: res.status, value: res.body.value }).toEqual({ given, status: 200, value: stored });
    }
    for (const bad of ['yesterday', '2023-02-29', '2024-01-02 03:04:05', '2024-01-02t03:04:05z', '["2024-01-02"]']) {
      await expectError(
        'POST',
        constraints,
        { type: 'DATETIME_COMPARISON_TYPE', property: 'd', operator: 'isoneof', value: bad },
        400,
        `parsing datetime from ${JSON.stringify(bad)}`,
      );
    }
  });

  it('checks isoneof lists: JSON arrays of the right element type, at most 100', async () => {
    const ok = await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'ISONEOF',
      value: '["a", "b"]',
    });
    expect(ok.body).toMatchObject({ operator: 'isoneof', value: '["a", "b"]' });
    const hundred = JSON.stringify(Array.from({ length: 100 }, (_, i) => i));
    expect(
      (
        await call(t.app, 'POST', constraints, {
          type: 'NUMBER_COMPARISON_TYPE',
          property: 'n',
          operator: 'isnotoneof',
          value: hundred,
        })
      ).status,
    ).toBe(200);

    const cases: [string, string, string, string][] = [
      ['STRING_COMPARISON_TYPE', 'plan', '[1,2]', 'invalid value provided for property "plan" of type string'],
      ['STRING_COMPARISON_TYPE', 'plan', 'a,b', 'invalid value provided for property "plan" of type string'],
      ['NUMBER_COMPARISON_TYPE', 'n', '["1"]', 'invalid value provided for property "n" of type number'],
      ['NUMBER_COMPARISON_TYPE', 'n', '[1,', 'invalid value provided for property "n" of type number'],
      [
        'ENTITY_ID_COMPARISON_TYPE',
        'entityId',
        '[true]',
        'invalid value provided for property "entityId" of type entityId',
      ],
      [
        'STRING_COMPARISON_TYPE',
        'plan',
        JSON.stringify(Array.from({ length: 101 }, (_, i) => `v${i}`)),
        'too many values provided for property "plan" of type string (maximum 100)',
      ],
      [
        'NUMBER_COMPARISON_TYPE',
        'n',
        JSON.stringify(Array.from({ length: 101 }, (_, i) => i)),
        'too many values provided for property "n" of type number (maximum 100)',
      ],
      [
        'ENTITY_ID_COMPARISON_TYPE',
        'entityId',
        JSON.stringify(Array.from({ length: 101 }, (_, i) => `u${i}`)),
        'too many values provided for property "entityId" of type entityId (maximum 100)',
      ],
    ];
    for (const [type, property, value, message] of cases) {
      await expectError('POST', constraints, { type, property, operator: 'isoneof', value }, 400, message);
    }
  });

  it('updates a constraint with the same validation, and 404s unknown ones', async () => {
    const created = await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 'v',
      description: 'old',
    });
    const url = `${constraints}/${created.body.id}`;
    const updated = await call(t.app, 'PUT', url, {
      type: 'DATETIME_COMPARISON_TYPE',
      property: 'since',
      operator: 'LTE',
      value: '2025-06-01T12:00:00.5Z',
      id: 'ignored',
    });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.body)).toEqual(CONSTRAINT_KEYS);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      segmentKey: 'users',
      type: 'DATETIME_COMPARISON_TYPE',
      property: 'since',
      operator: 'lte',
      value: '2025-06-01T12:00:00Z',
      description: '',
      namespaceKey: ns,
      createdAt: created.body.createdAt,
    });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(created.body.createdAt));

    const toNoValue = await call(t.app, 'PUT', url, {
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'n',
      operator: 'present',
      value: '12',
    });
    expect(toNoValue.body).toMatchObject({ operator: 'present', value: '' });

    await expectError(
      'PUT',
      url,
      { type: 'BOOLEAN_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' },
      400,
      'constraint operator "eq" is not valid for type boolean',
    );
    await expectError(
      'PUT',
      url,
      { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq' },
      400,
      'invalid field value: must not be empty',
    );
    await expectError(
      'PUT',
      url,
      { property: 'p', operator: 'eq', value: 'v' },
      400,
      'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"',
    );
    const valid = { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' };
    await expectError('PUT', `${constraints}/no-such-id`, valid, 404, 'constraint "no-such-id" not found');
    // The constraint exists, but not under that segment.
    await call(t.app, 'POST', `/api/v1/namespaces/${ns}/segments`, { key: 'other', name: 'Other' });
    await expectError(
      'PUT',
      `/api/v1/namespaces/${ns}/segments/other/constraints/${created.body.id}`,
      valid,
      404,
      `constraint "${created.body.id}" not found`,
    );
    await expectError(
      'PUT',
      `/api/v1/namespaces/nope/segments/users/constraints/${created.body.id}`,
      valid,
      404,
      `constraint "${created.body.id}" not found`,
    );
  });

  it('404s a constraint on an unknown segment', async () => {
    const valid = { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'v' };
    await expectError(
      'POST',
      `/api/v1/namespaces/${ns}/segments/missing/constraints`,
      valid,
      404,
      `segment "${ns}/missing" not found`,
    );
    await expectError(
      'POST',
      '/api/v1/namespaces/nope/segments/users/constraints',
      valid,
      404,
      'segment "nope/users" not found',
    );
  });

  it('keeps constraints in creation order and deletes them idempotently', async () => {
    await call(t.app, 'POST', `/api/v1/namespaces/${ns}/segments`, { key: 'ordered', name: 'Ordered' });
    const url = `/api/v1/namespaces/${ns}/segments/ordered/constraints`;
    const ids: string[] = [];
    for (const value of ['1', '2', '3', '4']) {
      ids.push(
        (await call(t.app, 'POST', url, { type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value })).body
          .id,
      );
    }
    // Updating does not move a constraint.
    await call(t.app, 'PUT', `${url}/${ids[0]}`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: '1b',
    });
    const segment = await call(t.app, 'GET', `/api/v1/namespaces/${ns}/segments/ordered`);
    expect(segment.body.constraints.map((c: { value: string }) => c.value)).toEqual(['1b', '2', '3', '4']);

    expect(await call(t.app, 'DELETE', `${url}/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
    expect(await call(t.app, 'DELETE', `${url}/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
    expect(await call(t.app, 'DELETE', `${url}/never-existed`)).toMatchObject({ status: 200, body: {} });
    // A constraint is deleted only through its own segment.
    expect((await call(t.app, 'DELETE', `${seg}/constraints/${ids[2]}`)).status).toBe(200);
    const after = await call(t.app, 'GET', `/api/v1/namespaces/${ns}/segments/ordered`);
    expect(after.body.constraints.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[2], ids[3]]);
  });

  it('serves the legacy routes without the namespace prefix on the default namespace', async () => {
    await call(t.app, 'POST', '/api/v1/segments', { key: 'legacy', name: 'Legacy' });
    const created = await call(t.app, 'POST', '/api/v1/segments/legacy/constraints', {
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'age',
      operator: 'GT',
      value: '30',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ namespaceKey: 'default', segmentKey: 'legacy', operator: 'gt' });
    const updated = await call(t.app, 'PUT', `/api/v1/segments/legacy/constraints/${created.body.id}`, {
      type: 'NUMBER_COMPARISON_TYPE',
      property: 'age',
      operator: 'lt',
      value: '40',
    });
    expect(updated.body).toMatchObject({ id: created.body.id, operator: 'lt', value: '40', namespaceKey: 'default' });
    expect((await call(t.app, 'GET', '/api/v1/namespaces/default/segments/legacy')).body.constraints).toEqual([
      updated.body,
    ]);
    expect(await call(t.app, 'DELETE', `/api/v1/segments/legacy/constraints/${created.body.id}`)).toMatchObject({
      status: 200,
      body: {},
    });
    expect((await call(t.app, 'GET', '/api/v1/segments/legacy')).body.constraints).toEqual([]);
  });

  it('bumps the revision on writes only', async () => {
    let last = await revision(ns);
    const created = await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'eq',
      value: 'v',
    });
    expect(await revision(ns)).toBeGreaterThan(last);
    last = await revision(ns);
    await call(t.app, 'POST', constraints, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'lt',
      value: 'v',
    });
    expect(await revision(ns)).toBe(last);
    await call(t.app, 'PUT', `${constraints}/${created.body.id}`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'p',
      operator: 'neq',
      value: 'v',
    });
    expect(await revision(ns)).toBeGreaterThan(last);
    last = await revision(ns);
    await call(t.app, 'DELETE', `${constraints}/${created.body.id}`);
    expect(await revision(ns)).toBeGreaterThan(last);
  });
});
