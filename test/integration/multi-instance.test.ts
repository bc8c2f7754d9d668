// Two real Vexil processes on ONE PostgreSQL database, started at once (so they also race to migrate
// it). Writes go through one, evaluations through the other: once a write has returned, the other
// instance answers from the revision that write left within 2 seconds — it learns of it by polling the
// namespace revision, not through a cache TTL (the TTL is set to an hour here). Concurrent writes
// through both lose and duplicate nothing.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../src/storage/db.js';
import { revisionTag } from '../../src/storage/revision-tag.js';
import { type Backend, createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

/** How long after a write returns the other instance may still answer from before it. */
const VISIBILITY_BOUND_MS = 2_000;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  revision: string | null;
}

async function request(instance: RunningVexil, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${instance.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : undefined,
    revision: res.headers.get('x-vexil-revision'),
  };
}

const postgres = testBackends().find((b) => b.name === 'postgres' && !b.skipReason);

describe.skipIf(!postgres)(
  `two instances on one database [postgres]${postgres ? '' : ' (skipped: VEXIL_TEST_POSTGRES_URL is not set)'}`,
  () => {
    let database: TestDatabase;
    let db: Db;
    let a: RunningVexil;
    let b: RunningVexil;

    beforeAll(async () => {
      database = await createTestDatabase(postgres as Backend);
      // The cache TTL is far beyond the test: only the revision poll (1s) can refresh a held snapshot.
      const env = { VEXIL_DB_URL: database.url, VEXIL_CACHE_TTL: '1h', VEXIL_CACHE_POLL_INTERVAL: '1s' };
      [a, b] = await Promise.all([startVexil(env), startVexil(env)]);
      db = openDb({ url: database.url });
    }, 90_000);

    afterAll(async () => {
      await Promise.allSettled([a?.stop(), b?.stop()]);
      await db?.close();
      await database?.drop();
    });

    /** The default namespace's revision tag as stored: what an up-to-date snapshot carries. */
    async function storedRevision(): Promise<string> {
      const row = await db.kysely
        .selectFrom('namespaces')
        .select(['created_at', 'revision'])
        .where('key', '=', 'default')
        .executeTakeFirstOrThrow();
      return revisionTag(row.created_at, row.revision);
    }

    function evaluate(instance: RunningVexil, kind: 'boolean' | 'variant', flagKey: string): Promise<Answer> {
      return request(instance, 'POST', `/evaluate/v1/${kind}`, {
        namespaceKey: 'default',
        flagKey,
        entityId: 'entity-1',
        context: {},
      });
    }

    /**
     * Makes the write (through one instance), then polls `reader` until it answers from the revision the write
     * left and `reflects` its answer; fails when that takes longer than the bound.
     */
    async function writeThenRead(
      write: () => Promise<Answer>,
      reader: RunningVexil,
      read: () => Promise<Answer>,
      reflects: (answer: Answer) => boolean,
    ): Promise<Answer> {
      const written = await write();
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      const returnedAt = Date.now();
      const revision = await storedRevision();
      if (written.revision !== null) expect(written.revision).toBe(revision);
      let last: Answer | undefined;
      for (;;) {
        last = await read();
        if (last.revision === revision && reflects(last)) break;
        if (Date.now() - returnedAt > VISIBILITY_BOUND_MS) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const waited = Date.now() - returnedAt;
      expect(last.revision, `instance ${reader === a ? 'A' : 'B'} still answers from an older revision`).toBe(revision);
      expect(reflects(last), JSON.stringify(last.body)).toBe(true);
      expect(waited).toBeLessThanOrEqual(VISIBILITY_BOUND_MS);
      return last;
    }

    it('migrated the shared database exactly once while both started', async () => {
      const rows = await db.kysely.selectFrom('namespaces').select('key').execute();
      expect(rows.map((r) => r.key)).toEqual(['default']);
      const migrations = await sql<{ name: string }>`select name from vexil_migrations`.execute(db.kysely);
      expect(migrations.rows.map((r) => r.name)).toEqual([
        '001-initial-schema',
        '002-foreign-key-indexes',
        '003-seed-state',
        '004-changes',
        '005-audit-delivery',
        '006-change-revisions',
        '007-login-states',
        '008-token-roles',
        '009-role-bindings',
      ]);
    });

    it('shows every write made through one instance in the other within 2 seconds', async () => {
      // Both instances hold a snapshot of the namespace before the first write.
      expect((await evaluate(b, 'boolean', 'switch')).status).toBe(404);
      expect((await evaluate(a, 'boolean', 'switch')).status).toBe(404);

      // A boolean flag, created and then switched off through A, evaluated through B.
      await writeThenRead(
        () =>
          request(a, 'POST', '/api/v1/namespaces/default/flags', {
            key: 'switch',
            name: 'Switch',
            type: 'BOOLEAN_FLAG_TYPE',
            enabled: true,
          }),
        b,
        () => evaluate(b, 'boolean', 'switch'),
        (answer) => answer.status === 200 && answer.body.enabled === true,
      );
      await writeThenRead(
        () => request(a, 'PUT', '/api/v1/namespaces/default/flags/switch', { name: 'Switch', enabled: false }),
        b,
        () => evaluate(b, 'boolean', 'switch'),
        (answer) => answer.status === 200 && answer.body.enabled === false,
      );

      // A variant flag built up through B, evaluated through A, one write at a time.
      await writeThenRead(
        () =>
          request(b, 'POST', '/api/v1/namespaces/default/flags', {
            key: 'color',
            name: 'Color',
            type: 'VARIANT_FLAG_TYPE',
            enabled: true,
          }),
        a,
        () => evaluate(a, 'variant', 'color'),
        (answer) => answer.status === 200 && answer.body.match === false,
      );
      let variantId = '';
      await writeThenRead(
        async () => {
          const created = await request(b, 'POST', '/api/v1/namespaces/default/flags/color/variants', {
            key: 'red',
            name: 'Red',
          });
          variantId = created.body?.id ?? '';
          return created;
        },
        a,
        () => evaluate(a, 'variant', 'color'),
        (answer) => answer.status === 200 && answer.body.match === false,
      );
      await writeThenRead(
        () =>
          request(b, 'POST', '/api/v1/namespaces/default/segments', {
            key: 'everyone',
            name: 'Everyone',
            matchType: 'ALL_MATCH_TYPE',
          }),
        a,
        () => evaluate(a, 'variant', 'color'),
        (answer) => answer.status === 200 && answer.body.match === false,
      );
      let ruleId = '';
      await writeThenRead(
        async () => {
          const created = await request(b, 'POST', '/api/v1/namespaces/default/flags/color/rules', {
            segmentKey: 'everyone',
            rank: 1,
          });
          ruleId = created.body?.id ?? '';
          return created;
        },
        a,
        () => evaluate(a, 'variant', 'color'),
        // A matching rule without distributions matches with no variant.
        (answer) => answer.status === 200 && answer.body.match === true && answer.body.variantKey === '',
      );
      await writeThenRead(
        () =>
          request(b, 'POST', `/api/v1/namespaces/default/flags/color/rules/${ruleId}/distributions`, {
            variantId,
            rollout: 100,
          }),
        a,
        () => evaluate(a, 'variant', 'color'),
        (answer) => answer.status === 200 && answer.body.match === true && answer.body.variantKey === 'red',
      );

      // And back the other way: a delete through A is seen by B.
      await writeThenRead(
        () => request(a, 'DELETE', '/api/v1/namespaces/default/flags/color'),
        b,
        () => evaluate(b, 'variant', 'color'),
        (answer) => answer.status === 404 || answer.body?.reason === 'FLAG_NOT_FOUND_EVALUATION_REASON',
      );
    });

    it('lets exactly one of 50 concurrent creates of one key through both instances succeed', async () => {
      const before = await storedRevision();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          request(i % 2 === 0 ? a : b, 'POST', '/api/v1/namespaces/default/flags', {
            key: 'k',
            name: 'K',
            enabled: true,
          }),
        ),
      );
      const created = answers.filter((x) => x.status === 200);
      expect(created).toHaveLength(1);
      const refused = answers.filter((x) => x.status !== 200);
      expect(refused).toHaveLength(49);
      for (const answer of refused) {
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ code: 3, message: 'flag "default/k" is not unique', details: [] });
      }
      for (const instance of [a, b]) {
        const list = await request(instance, 'GET', '/api/v1/namespaces/default/flags?limit=1000');
        expect(list.body.flags.filter((f: { key: string }) => f.key === 'k')).toHaveLength(1);
      }
      // One write landed, so the revision moved by exactly one.
      const [, revisionBefore] = before.split('.');
      const [, revisionAfter] = (await storedRevision()).split('.');
      expect(Number(revisionAfter) - Number(revisionBefore)).toBe(1);
    });

    it('loses nothing when both instances write different keys at once', async () => {
      const before = Number((await storedRevision()).split('.')[1]);
      const keys = Array.from({ length: 50 }, (_, i) => `parallel-${i}`);
      const answers = await Promise.all(
        keys.map((key, i) =>
          request(i % 2 === 0 ? a : b, 'POST', '/api/v1/namespaces/default/flags', { key, name: key, enabled: true }),
        ),
      );
      expect(answers.map((x) => x.status)).toEqual(keys.map(() => 200));
      for (const instance of [a, b]) {
        const list = await request(instance, 'GET', '/api/v1/namespaces/default/flags?limit=1000');
        const listed = list.body.flags
          .map((f: { key: string }) => f.key)
          .filter((k: string) => k.startsWith('parallel-'));
        expect(listed.sort()).toEqual([...keys].sort());
      }
      // Every write bumped the revision once: no bump was lost to a concurrent one.
      expect(Number((await storedRevision()).split('.')[1]) - before).toBe(50);
    });
  },
);
