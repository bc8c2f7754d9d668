import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const ROLLOUT_BASE_KEYS = ['id', 'namespaceKey', 'flagKey', 'type', 'rank', 'description', 'createdAt', 'updatedAt'];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describeEachBackend('rollouts API', (backend) => {
  let t: TestApp;
  const ns = 'ro';
  const nsUrl = `/api/v1/namespaces/${ns}`;

  async function createFlag(key: string, namespaceKey = ns) {
    const res = await call(t.app, 'POST', `/api/v1/namespaces/${namespaceKey}/flags`, {
      key,
      name: key,
      type: 'BOOLEAN_FLAG_TYPE',
    });
    expect(res.status).toBe(200);
  }

  async function createSegment(key: string, namespaceKey = ns) {
    const res = await call(t.app, 'POST', `/api/v1/namespaces/${namespaceKey}/segments`, { key, name: key });
    expect(res.status).toBe(200);
  }

  async function revision(key: string): Promise<number> {
    const row = await t.app.db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', key)
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
    expect({ body, status: res.status, error: res.body }).toEqual({
      body,
      status,
      error: { code: status === 404 ? 5 : 3, message, details: [] },
    });
  }

  async function ranks(flagKey: string): Promise<{ id: string; rank: number; description: string }[]> {
    const res = await call(t.app, 'GET', `${nsUrl}/flags/${flagKey}/rollouts`);
    expect(res.status).toBe(200);
    return res.body.rules.map((r: { id: string; rank: number; description: string }) => ({
      id: r.id,
      rank: r.rank,
      description: r.description,
    }));
  }

  beforeAll(async () => {
    t = await startTestApp(backend);
    expect((await call(t.app, 'POST', '/api/v1/namespaces', { key: ns, name: 'Rollouts' })).status).toBe(200);
    await createFlag('shape');
    for (const key of ['s1', 's2', 's3']) await createSegment(key);
  });
  afterAll(async () => t?.close());

  describe('create and get', () => {
    const url = `${nsUrl}/flags/shape/rollouts`;

    it('creates a threshold rollout with Flipt’s shape and key order', async () => {
      const res = await call(t.app, 'POST', url, {
        rank: 1,
        description: 'a third',
        threshold: { percentage: 33.33, value: true },
        type: 'THRESHOLD_ROLLOUT_TYPE',
        namespaceKey: 'ignored',
        flagKey: 'ignored',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([...ROLLOUT_BASE_KEYS, 'threshold']);
      expect(res.body).toMatchObject({
        namespaceKey: ns,
        flagKey: 'shape',
        type: 'THRESHOLD_ROLLOUT_TYPE',
        rank: 1,
        description: 'a third',
        threshold: { percentage: 33.33, value: true },
      });
      expect(Object.keys(res.body.threshold)).toEqual(['percentage', 'value']);
      expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.createdAt).toMatch(TIMESTAMP);
      expect(res.body.updatedAt).toBe(res.body.createdAt);

      const got = await call(t.app, 'GET', `${url}/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it('shows one segment in segmentKey and forces OR; several in segmentKeys', async () => {
      const single = await call(t.app, 'POST', url, {
        rank: 2,
        segment: { segmentKey: 's1', segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
      });
      expect(single.status).toBe(200);
      expect(Object.keys(single.body)).toEqual([...ROLLOUT_BASE_KEYS, 'segment']);
      expect(single.body).toMatchObject({ type: 'SEGMENT_ROLLOUT_TYPE', rank: 2, description: '' });
      expect(single.body.segment).toEqual({
        segmentKey: 's1',
        value: true,
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
      });
      expect(Object.keys(single.body.segment)).toEqual(['segmentKey', 'value', 'segmentKeys', 'segmentOperator']);
      expect((await call(t.app, 'GET', `${url}/${single.body.id}`)).body).toEqual(single.body);

      const multi = await call(t.app, 'POST', url, {
        rank: 3,
        segment: { segmentKeys: ['s2', 's1', 's2'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
      });
      expect(multi.body.segment).toEqual({
        segmentKey: '',
        value: false,
        segmentKeys: ['s2', 's1'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
      expect((await call(t.app, 'GET', `${url}/${multi.body.id}`)).body).toEqual(multi.body);

      // A list that de-duplicates to one segment reads as the single form, with OR.
      const deduped = await call(t.app, 'POST', url, {
        rank: 4,
        segment: { segmentKeys: ['s3', 's3'], segmentOperator: 1, value: true },
      });
      expect(deduped.body.segment).toEqual({
        segmentKey: 's3',
        value: true,
        segmentKeys: [],
        segmentOperator: 'OR_SEGMENT_OPERATOR',
      });
      const operatorByNumber = await call(t.app, 'POST', url, {
        rank: 5,
        segment: { segment_keys: ['s1', 's3'], segment_operator: 1 },
      });
      expect(operatorByNumber.body.segment).toMatchObject({
        segmentKeys: ['s1', 's3'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      });
    });

    it('accepts quoted numbers, and threshold wins when both rules are sent', async () => {
      const quoted = await call(t.app, 'POST', url, { rank: '6', threshold: { percentage: '50.5' } });
      expect(quoted.status).toBe(200);
      expect(quoted.body).toMatchObject({ rank: 6, threshold: { percentage: 50.5, value: false } });
      const both = await call(t.app, 'POST', url, {
        rank: 7,
        segment: { segmentKey: 's1' },
        threshold: { percentage: 10, value: true },
      });
      expect(both.body).toMatchObject({ type: 'THRESHOLD_ROLLOUT_TYPE', threshold: { percentage: 10, value: true } });
      expect(both.body.segment).toBeUndefined();
      const edges = [0, 100, 0.1, 99.99];
      for (const [i, percentage] of edges.entries()) {
        const res = await call(t.app, 'POST', url, { rank: 20 + i, threshold: { percentage } });
        expect(res.body.threshold.percentage).toBe(percentage);
        expect((await call(t.app, 'GET', `${url}/${res.body.id}`)).body.threshold.percentage).toBe(percentage);
      }
      // Rank 0 and negative ranks are not refused (Flipt).
      expect((await call(t.app, 'POST', url, { threshold: { percentage: 1 } })).body.rank).toBe(0);
      expect((await call(t.app, 'POST', url, { rank: -3, threshold: { percentage: 1 } })).body.rank).toBe(-3);
    });

    it('gets a rollout by namespace and id whatever flag the path names', async () => {
      const created = await call(t.app, 'POST', url, { rank: 30, threshold: { percentage: 5 } });
      const viaOther = await call(t.app, 'GET', `${nsUrl}/flags/other/rollouts/${created.body.id}`);
      expect(viaOther.body).toEqual(created.body);
      await expectError('GET', `${url}/missing-id`, undefined, 404, `rollout "${ns}/missing-id" not found`);
      await expectError(
        'GET',
        `/api/v1/namespaces/default/flags/shape/rollouts/${created.body.id}`,
        undefined,
        404,
        `rollout "default/${created.body.id}" not found`,
      );
    });
  });

  it('answers client mistakes with Flipt’s messages', async () => {
    await createFlag('errs');
    const url = `${nsUrl}/flags/errs/rollouts`;
    expect((await call(t.app, 'POST', url, { rank: 1, threshold: { percentage: 50 } })).status).toBe(200);

    await expectError('POST', url, { rank: 1, threshold: { percentage: 20 } }, 400, 'rank number: 1 already exists');
    await expectError('POST', url, { rank: 1 }, 400, 'rank number: 1 already exists');
    await expectError('POST', url, { rank: 2 }, 400, 'rollout rule is missing');
    await expectError('POST', url, { rank: 2, segment: null, threshold: null }, 400, 'rollout rule is missing');
    await expectError('POST', url, {}, 400, 'rollout rule is missing');
    const range = 'invalid field threshold.percentage: must be within range [0, 100]';
    await expectError('POST', url, { rank: 2, threshold: { percentage: 100.01 } }, 400, range);
    await expectError('POST', url, { rank: 2, threshold: { percentage: -0.5 } }, 400, range);
    await expectError(
      'POST',
      url,
      { rank: 2, segment: {} },
      400,
      'invalid field segmentKey or segmentKeys: must not be empty',
    );
    await expectError(
      'POST',
      url,
      { rank: 2, segment: { segmentKeys: [] } },
      400,
      'invalid field segmentKey or segmentKeys: must not be empty',
    );
    await expectError(
      'POST',
      url,
      { rank: 2, segment: { segmentKey: 's1', segmentKeys: ['s2'] } },
      400,
      'invalid field segmentKey or segmentKeys: only one can be present',
    );
    // Unknown flag or segment: Flipt's odd quoting, naming only the singular segmentKey.
    await expectError(
      'POST',
      `${nsUrl}/flags/nope/rollouts`,
      { rank: 1, segment: { segmentKey: 's1' } },
      404,
      `flag "${ns}/nope or segment s1" not found`,
    );
    await expectError(
      'POST',
      url,
      { rank: 2, segment: { segmentKey: 'ghost' } },
      404,
      `flag "${ns}/errs or segment ghost" not found`,
    );
    await expectError(
      'POST',
      url,
      { rank: 2, segment: { segmentKeys: ['s1', 'ghost'] } },
      404,
      `flag "${ns}/errs or segment " not found`,
    );
    await expectError(
      'POST',
      `${nsUrl}/flags/nope/rollouts`,
      { rank: 1, threshold: { percentage: 5 } },
      404,
      `flag "${ns}/nope" not found`,
    );
    await expectError(
      'POST',
      '/api/v1/namespaces/nons/flags/errs/rollouts',
      { rank: 1, threshold: { percentage: 5 } },
      404,
      'flag "nons/errs" not found',
    );

    for (const body of [
      { rank: 2, segment: { segmentKey: 's1', segmentOperator: 'XOR_SEGMENT_OPERATOR' } },
      { rank: 2, segment: { segmentKey: 's1', segmentOperator: 2 } },
      { rank: 'two', threshold: { percentage: 5 } },
      { rank: 1.5, threshold: { percentage: 5 } },
      { rank: 2, threshold: { percentage: 'half' } },
      { rank: 2, threshold: { percentage: 5, value: 'yes' } },
      { rank: 2, segment: { segmentKeys: 's1' } },
      { rank: 2 ** 31, threshold: { percentage: 5 } },
    ]) {
      const res = await call(t.app, 'POST', url, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 3 });
    }
    // Nothing was stored by the refused requests.
    expect(await ranks('errs')).toHaveLength(1);
  });

  it('updates description and rule of the same type; the rank stays', async () => {
    await createFlag('upd');
    const url = `${nsUrl}/flags/upd/rollouts`;
    const threshold = await call(t.app, 'POST', url, {
      rank: 1,
      description: 'before',
      threshold: { percentage: 10, value: false },
    });
    const segment = await call(t.app, 'POST', url, { rank: 2, segment: { segmentKey: 's1', value: false } });

    const t2 = await call(t.app, 'PUT', `${url}/${threshold.body.id}`, {
      rank: 9,
      description: 'after',
      threshold: { percentage: 75.5, value: true },
    });
    expect(t2.status).toBe(200);
    expect(Object.keys(t2.body)).toEqual([...ROLLOUT_BASE_KEYS, 'threshold']);
    expect(t2.body).toMatchObject({
      id: threshold.body.id,
      rank: 1,
      description: 'after',
      type: 'THRESHOLD_ROLLOUT_TYPE',
      threshold: { percentage: 75.5, value: true },
      createdAt: threshold.body.createdAt,
    });
    expect(Date.parse(t2.body.updatedAt)).toBeGreaterThan(Date.parse(threshold.body.createdAt));
    expect((await call(t.app, 'GET', `${url}/${threshold.body.id}`)).body).toEqual(t2.body);

    const s2 = await call(t.app, 'PUT', `${url}/${segment.body.id}`, {
      segment: { segmentKeys: ['s2', 's3'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
    });
    expect(s2.body).toMatchObject({
      rank: 2,
      description: '',
      segment: { segmentKey: '', segmentKeys: ['s2', 's3'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true },
    });
    const s3 = await call(t.app, 'PUT', `${url}/${segment.body.id}`, {
      segment: { segmentKeys: ['s3'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
    });
    expect(s3.body.segment).toEqual({
      segmentKey: 's3',
      value: false,
      segmentKeys: [],
      segmentOperator: 'OR_SEGMENT_OPERATOR',
    });
    expect((await call(t.app, 'GET', `${url}/${segment.body.id}`)).body).toEqual(s3.body);
    // The replaced references are gone: s2 can be deleted again.
    await createSegment('temp');
    await call(t.app, 'PUT', `${url}/${segment.body.id}`, { segment: { segmentKey: 'temp' } });
    await call(t.app, 'PUT', `${url}/${segment.body.id}`, { segment: { segmentKey: 's3' } });
    expect((await call(t.app, 'DELETE', `${nsUrl}/segments/temp`)).status).toBe(200);

    await expectError(
      'PUT',
      `${url}/${segment.body.id}`,
      { threshold: { percentage: 5 } },
      400,
      'cannot change type of rollout: have "SEGMENT_ROLLOUT_TYPE" attempted "THRESHOLD_ROLLOUT_TYPE"',
    );
    await expectError(
      'PUT',
      `${url}/${threshold.body.id}`,
      { segment: { segmentKey: 's1' } },
      400,
      'cannot change type of rollout: have "THRESHOLD_ROLLOUT_TYPE" attempted "SEGMENT_ROLLOUT_TYPE"',
    );
    await expectError(
      'PUT',
      `${url}/${threshold.body.id}`,
      { description: 'no rule' },
      400,
      'invalid field rule: invalid rollout rule type',
    );
    await expectError(
      'PUT',
      `${url}/${threshold.body.id}`,
      { threshold: { percentage: 101 } },
      400,
      'invalid field threshold.percentage: must be within range [0, 100]',
    );
    await expectError(
      'PUT',
      `${url}/${segment.body.id}`,
      { segment: {} },
      400,
      'invalid field segmentKey or segmentKeys: must not be empty',
    );
    await expectError(
      'PUT',
      `${url}/${segment.body.id}`,
      { segment: { segmentKeys: ['s1', 'ghost'] } },
      404,
      `segment "${ns}/ghost" not found`,
    );
    await expectError(
      'PUT',
      `${url}/missing`,
      { threshold: { percentage: 5 } },
      404,
      `rollout "${ns}/missing" not found`,
    );
    await expectError(
      'PUT',
      `${nsUrl}/flags/shape/rollouts/${threshold.body.id}`,
      { threshold: { percentage: 5 } },
      404,
      `rollout "${ns}/${threshold.body.id}" not found`,
    );
    // Refused updates changed nothing, not even the description.
    expect((await call(t.app, 'GET', `${url}/${threshold.body.id}`)).body).toEqual(t2.body);
    expect((await call(t.app, 'GET', `${url}/${segment.body.id}`)).body.segment.segmentKey).toBe('s3');
  });

  describe('listing', () => {
    const flag = 'listed';
    const url = `${nsUrl}/flags/${flag}/rollouts`;
    const ids: string[] = [];

    beforeAll(async () => {
      await createFlag(flag);
      for (const rank of [3, 1, 2, 5, 4]) {
        const res = await call(t.app, 'POST', url, {
          rank,
          description: `r${rank}`,
          threshold: { percentage: rank * 10 },
        });
        ids[rank] = res.body.id;
      }
    });

    it('lists in rank order under the key "rules"', async () => {
      const res = await call(t.app, 'GET', url);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['rules', 'nextPageToken', 'totalCount']);
      expect(res.body.rules.map((r: { description: string }) => r.description)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
      expect(res.body).toMatchObject({ nextPageToken: '', totalCount: 5 });
      expect(res.body.rules[0]).toEqual((await call(t.app, 'GET', `${url}/${ids[1]}`)).body);
    });

    it('pages with limit and pageToken; offset is not a rollout list parameter', async () => {
      const first = await call(t.app, 'GET', `${url}?limit=2`);
      expect(first.body.rules.map((r: { rank: number }) => r.rank)).toEqual([1, 2]);
      expect(first.body.totalCount).toBe(5);
      expect(JSON.parse(Buffer.from(first.body.nextPageToken, 'base64').toString())).toEqual({
        key: ids[3],
        offset: 2,
      });
      const second = await call(
        t.app,
        'GET',
        `${url}?limit=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(second.body.rules.map((r: { rank: number }) => r.rank)).toEqual([3, 4]);
      const third = await call(
        t.app,
        'GET',
        `${url}?limit=2&pageToken=${encodeURIComponent(second.body.nextPageToken)}`,
      );
      expect(third.body.rules.map((r: { rank: number }) => r.rank)).toEqual([5]);
      expect(third.body.nextPageToken).toBe('');
      // No "limit must be set" check for rollouts: a token alone returns the rest.
      const tokenOnly = await call(t.app, 'GET', `${url}?pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
      expect(tokenOnly.status).toBe(200);
      expect(tokenOnly.body.rules.map((r: { rank: number }) => r.rank)).toEqual([3, 4, 5]);
      const offsetIgnored = await call(t.app, 'GET', `${url}?limit=2&offset=3`);
      expect(offsetIgnored.body.rules.map((r: { rank: number }) => r.rank)).toEqual([1, 2]);
      await expectError('GET', `${url}?limit=2&pageToken=bad`, undefined, 400, 'pageToken is not valid: "bad"');
    });

    it('lists an unknown flag or namespace as empty', async () => {
      expect((await call(t.app, 'GET', `${nsUrl}/flags/nope/rollouts`)).body).toEqual({
        rules: [],
        nextPageToken: '',
        totalCount: 0,
      });
      expect((await call(t.app, 'GET', '/api/v1/namespaces/nons/flags/listed/rollouts')).body).toEqual({
        rules: [],
        nextPageToken: '',
        totalCount: 0,
      });
    });
  });

  it('deletes idempotently and renumbers the remaining rollouts 1..n', async () => {
    await createFlag('del');
    const url = `${nsUrl}/flags/del/rollouts`;
    const ids: string[] = [];
    for (const rank of [1, 2, 3, 4]) {
      ids.push(
        (await call(t.app, 'POST', url, { rank, description: `d${rank}`, threshold: { percentage: rank } })).body.id,
      );
    }
    expect(await call(t.app, 'DELETE', `${url}/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
    expect(await ranks('del')).toEqual([
      { id: ids[0], rank: 1, description: 'd1' },
      { id: ids[2], rank: 2, description: 'd3' },
      { id: ids[3], rank: 3, description: 'd4' },
    ]);
    expect(await call(t.app, 'DELETE', `${url}/${ids[1]}`)).toMatchObject({ status: 200, body: {} });
    expect(await call(t.app, 'DELETE', `${url}/${ids[0]}`)).toMatchObject({ status: 200, body: {} });
    expect((await ranks('del')).map((r) => r.rank)).toEqual([1, 2]);
    // Deleting through another flag's path deletes nothing.
    expect((await call(t.app, 'DELETE', `${nsUrl}/flags/shape/rollouts/${ids[2]}`)).status).toBe(200);
    expect(await ranks('del')).toHaveLength(2);
    expect(await call(t.app, 'DELETE', `/api/v1/namespaces/nons/flags/del/rollouts/${ids[2]}`)).toMatchObject({
      status: 200,
      body: {},
    });
    // The rule tables went with the rollout.
    const thresholds = await t.app.db.kysely
      .selectFrom('rollout_thresholds')
      .select('id')
      .where('rollout_id', 'in', [ids[0] as string, ids[1] as string])
      .execute();
    expect(thresholds).toEqual([]);
  });

  it('orders rollouts: rank = position + 1, unlisted ones keep theirs', async () => {
    await createFlag('ord');
    const url = `${nsUrl}/flags/ord/rollouts`;
    const ids: string[] = [];
    for (const rank of [1, 2, 3]) {
      ids.push(
        (await call(t.app, 'POST', url, { rank, description: `o${rank}`, segment: { segmentKey: 's1' } })).body.id,
      );
    }
    const [a, b, c] = ids as [string, string, string];
    expect(await call(t.app, 'PUT', `${url}/order`, { rolloutIds: [c, a, b] })).toMatchObject({
      status: 200,
      body: {},
    });
    expect((await ranks('ord')).map((r) => r.id)).toEqual([c, a, b]);
    expect((await ranks('ord')).map((r) => r.rank)).toEqual([1, 2, 3]);
    // Snake case, and only two listed: the unlisted one keeps its rank 1, so ranks repeat (Flipt).
    expect((await call(t.app, 'PUT', `${url}/order`, { rollout_ids: [b, a] })).status).toBe(200);
    const rows = await ranks('ord');
    expect(rows.find((r) => r.id === c)?.rank).toBe(1);
    expect(rows.find((r) => r.id === b)?.rank).toBe(1);
    expect(rows.find((r) => r.id === a)?.rank).toBe(2);

    const message = 'invalid field rolloutIds: must contain atleast 2 elements';
    await expectError('PUT', `${url}/order`, { rolloutIds: [a] }, 400, message);
    await expectError('PUT', `${url}/order`, { rolloutIds: [] }, 400, message);
    await expectError('PUT', `${url}/order`, {}, 400, message);
    // Unknown ids are skipped, as in Flipt.
    expect((await call(t.app, 'PUT', `${url}/order`, { rolloutIds: ['x', 'y'] })).status).toBe(200);
  });

  it('cascades from the flag and keeps referenced segments from being deleted', async () => {
    await createFlag('casc');
    await createSegment('held');
    const url = `${nsUrl}/flags/casc/rollouts`;
    const r = await call(t.app, 'POST', url, { rank: 1, segment: { segmentKeys: ['held', 's1'] } });
    expect(r.status).toBe(200);
    await expectError('DELETE', `${nsUrl}/segments/held`, undefined, 400, `segment "${ns}/held" is in use`);
    expect((await call(t.app, 'DELETE', `${nsUrl}/flags/casc`)).status).toBe(200);
    const db = t.app.db.kysely;
    expect(await db.selectFrom('rollouts').select('id').where('id', '=', r.body.id).execute()).toEqual([]);
    expect(await db.selectFrom('rollout_segments').select('id').where('rollout_id', '=', r.body.id).execute()).toEqual(
      [],
    );
    expect(
      await db
        .selectFrom('rollout_segment_references')
        .select('segment_key')
        .where('segment_key', '=', 'held')
        .execute(),
    ).toEqual([]);
    expect((await call(t.app, 'DELETE', `${nsUrl}/segments/held`)).status).toBe(200);
  });

  it('has no legacy routes without the namespace prefix', async () => {
    const res = await call(t.app, 'GET', '/api/v1/flags/shape/rollouts');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 5, message: 'Not Found', details: [] });
    expect(
      (await call(t.app, 'POST', '/api/v1/flags/shape/rollouts', { rank: 1, threshold: { percentage: 1 } })).status,
    ).toBe(404);
  });

  it('bumps the namespace revision on every write, and not on a refused one', async () => {
    await createFlag('rev');
    const url = `${nsUrl}/flags/rev/rollouts`;
    let last = await revision(ns);
    const expectBump = async () => {
      const now = await revision(ns);
      expect(now).toBeGreaterThan(last);
      last = now;
    };
    const a = await call(t.app, 'POST', url, { rank: 1, threshold: { percentage: 1 } });
    await expectBump();
    const b = await call(t.app, 'POST', url, { rank: 2, segment: { segmentKey: 's1' } });
    await expectBump();
    await call(t.app, 'POST', url, { rank: 2, segment: { segmentKey: 's1' } });
    expect(await revision(ns)).toBe(last);
    await call(t.app, 'PUT', `${url}/${a.body.id}`, { threshold: { percentage: 2 } });
    await expectBump();
    await call(t.app, 'PUT', `${url}/order`, { rolloutIds: [b.body.id, a.body.id] });
    await expectBump();
    await call(t.app, 'DELETE', `${url}/${a.body.id}`);
    await expectBump();
  });

  it('documents the rollout routes in the OpenAPI document', async () => {
    const doc = await call(t.app, 'GET', '/openapi.json');
    const paths = Object.keys(doc.body.paths);
    expect(paths).toContain('/api/v1/namespaces/{namespaceKey}/flags/{flagKey}/rollouts/{id}');
    expect(paths).toContain('/api/v1/namespaces/{namespaceKey}/flags/{flagKey}/rollouts/order');
  });
});
