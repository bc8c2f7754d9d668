// The stored bindings' in-memory copy on a real SQLite database: its generation moves when the set
// changes and only then, refreshes asked at once share one read, and a RoleResolver reading it gives a
// person the role a new binding grants (and takes it away) without a new authentication object.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../app/migrations.js';
import { RoleResolver } from '../../auth/roles/resolver.js';
import type { Authentication } from '../../domain/authentication.js';
import { type Db, openDb } from '../../storage/db.js';
import type { StoredRoleBinding } from './binding.js';
import { deleteBinding, insertBinding } from './store.js';
import { StoredBindingRules } from './stored-rules.js';

let dir: string;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vexil-stored-rules-'));
  db = openDb({ url: `file:${join(dir, 'vexil.db')}` });
  await migrateToLatest(db.kysely, db.dialect);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const binding = (id: string, pattern: string): StoredRoleBinding => ({
  id,
  match: { metadata: 'io.flipt.auth.email', pattern },
  role: 'editor',
  namespace: 'staging',
  createdAt: new Date(),
  updatedAt: new Date(),
});

const person: Authentication = {
  id: 'p',
  method: 'METHOD_OIDC',
  metadata: { 'io.flipt.auth.email': 'ada@corp.test' },
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('StoredBindingRules', () => {
  it('moves its generation when the set changes, and only then', async () => {
    const stored = new StoredBindingRules(db.kysely);
    await stored.refresh();
    expect(stored.generation).toBe(0);
    expect(stored.rules()).toEqual([]);
    await insertBinding(db.kysely, binding('00000000-0000-4000-8000-000000000001', '*@corp.test'));
    await stored.refresh();
    expect(stored.generation).toBe(1);
    expect(stored.rules()).toEqual([
      { match: { metadata: 'io.flipt.auth.email', pattern: '*@corp.test' }, role: 'editor', namespace: 'staging' },
    ]);
    await stored.refresh();
    expect(stored.generation).toBe(1);
    await deleteBinding(db.kysely, '00000000-0000-4000-8000-000000000001');
    await stored.refresh();
    expect(stored.generation).toBe(2);
    expect(stored.rules()).toEqual([]);
  });

  it('reads again after a refresh asked while one was under way, so a write just made is not missed', async () => {
    const stored = new StoredBindingRules(db.kysely);
    const first = stored.refresh();
    await insertBinding(db.kysely, binding('00000000-0000-4000-8000-000000000002', 'late@corp.test'));
    const second = stored.refresh();
    await Promise.all([first, second]);
    expect(stored.rules().map((rule) => rule.match.pattern)).toContain('late@corp.test');
    await deleteBinding(db.kysely, '00000000-0000-4000-8000-000000000002');
  });

  it('gives a resolver the stored role, and takes it away, for the same authentication object', async () => {
    const stored = new StoredBindingRules(db.kysely);
    const resolver = new RoleResolver({ rules: [], default: 'none' });
    resolver.useStored(stored);
    await stored.refresh();
    expect(resolver.resolve(person).roles).toEqual([]);
    await insertBinding(db.kysely, binding('00000000-0000-4000-8000-000000000003', '*@corp.test'));
    await stored.refresh();
    expect(resolver.resolve(person).roles).toEqual([{ role: 'editor', namespace: 'staging' }]);
    await deleteBinding(db.kysely, '00000000-0000-4000-8000-000000000003');
    await stored.refresh();
    expect(resolver.resolve(person).roles).toEqual([]);
  });

  it("only adds: a stored binding does not take the config's default away from those it matches", async () => {
    const stored = new StoredBindingRules(db.kysely);
    const resolver = new RoleResolver({ rules: [], default: 'viewer' });
    resolver.useStored(stored);
    await insertBinding(db.kysely, binding('00000000-0000-4000-8000-000000000004', '*'));
    await stored.refresh();
    expect(resolver.resolve(person).roles).toEqual([
      { role: 'viewer', namespace: '*' },
      { role: 'editor', namespace: 'staging' },
    ]);
    await deleteBinding(db.kysely, '00000000-0000-4000-8000-000000000004');
  });
});
