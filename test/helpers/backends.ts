// The databases the integration suite runs on, taken from the environment, and a fresh database per
// test file on each. SQLite always runs; PostgreSQL and MySQL run when their URL is set, otherwise
// their tests are reported as skipped with the reason (never as passed).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe } from 'vitest';

export type BackendName = 'sqlite' | 'postgres' | 'mysql';

export interface Backend {
  name: BackendName;
  /** Admin URL for the server; undefined when the backend is not configured. */
  adminUrl?: string;
  skipReason?: string;
}

const ALL: BackendName[] = ['sqlite', 'postgres', 'mysql'];

export function testBackends(env: NodeJS.ProcessEnv = process.env): Backend[] {
  const wanted = env.VEXIL_TEST_BACKENDS
    ? env.VEXIL_TEST_BACKENDS.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : ALL;
  return ALL.map((name): Backend => {
    if (!wanted.includes(name)) return { name, skipReason: `not in VEXIL_TEST_BACKENDS=${env.VEXIL_TEST_BACKENDS}` };
    if (name === 'sqlite') return { name };
    const variable = name === 'postgres' ? 'VEXIL_TEST_POSTGRES_URL' : 'VEXIL_TEST_MYSQL_URL';
    const adminUrl = env[variable];
    return adminUrl ? { name, adminUrl } : { name, skipReason: `${variable} is not set` };
  });
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A new, empty database on the backend (a temp file for SQLite). */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const name = `vexil_t_${randomBytes(6).toString('hex')}`;
  if (backend.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-test-'));
    return { url: `file:${join(dir, 'vexil.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!backend.adminUrl) throw new Error(`${backend.name} is not configured`);
  const adminUrl = backend.adminUrl;
  if (backend.name === 'postgres') {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    return {
      url: withDatabase(adminUrl, name),
      drop: async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const conn = await mysql.createConnection({ uri: adminUrl });
  await conn.query(`create database ${name}`);
  await conn.end();
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const c = await mysql.createConnection({ uri: adminUrl });
      await c.query(`drop database if exists ${name}`);
      await c.end();
    },
  };
}

/**
 * `describe` once per backend. Unconfigured backends appear as skipped suites whose title says why.
 */
export function describeEachBackend(title: string, body: (backend: Backend) => void): void {
  for (const backend of testBackends()) {
    if (backend.skipReason) {
      describe.skip(`${title} [${backend.name}] (skipped: ${backend.skipReason})`, () => body(backend));
    } else {
      describe(`${title} [${backend.name}]`, () => body(backend));
    }
  }
}
