// A real Vexil app on a fresh database of the given backend, for route tests through Fastify inject.

import pino from 'pino';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { checkpointsSettled } from '../../src/storage/sqlite-checkpoint.js';
import { type Backend, createTestDatabase, type TestDatabase } from './backends.js';

export interface TestApp {
  app: App;
  database: TestDatabase;
  close(): Promise<void>;
}

export type ConfigOverrides = Record<string, unknown>;

/** Builds an app (not listening) on a new database; `overrides` are config values (snake_case paths). */
export async function startTestApp(backend: Backend, overrides: ConfigOverrides = {}): Promise<TestApp> {
  const database = await createTestDatabase(backend);
  const base = { db: { url: database.url }, log: { level: 'warn' } };
  const config = loadConfig({ env: {}, overrides: deepMerge(base, overrides) });
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) });
  return {
    app,
    database,
    async close() {
      await app.close();
      // A checkpoint after an import opens the SQLite file from a worker, and shutdown does not wait
      // for it (sqlite-checkpoint.ts): removing the directory meanwhile failed with ENOTEMPTY.
      await checkpointsSettled(app.db.kysely);
      await database.drop();
    },
  };
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      typeof v === 'object' && v && !Array.isArray(v) && typeof prev === 'object' && prev && !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** The Authorization header that presents `token`. */
export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

/** JSON request through inject; returns status, parsed body and headers. */
export async function call(
  app: App,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await app.http.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  let json: unknown;
  try {
    json = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    json = response.body;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: response.statusCode, body: json as any, headers: response.headers };
}
