// The server side of the dashboard's end-to-end tests: the real `vexil serve` on a SQLite file in a
// folder of its own, and the API calls the tests seed it with.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningVexil, startVexil } from '../helpers/process.js';

export interface E2eServer {
  vexil: RunningVexil;
  base: string;
  /** The folder holding its database (`vexil.db`); stop() removes it. */
  dir: string;
  stop(): Promise<void>;
}

/** Settings that make the server require a token, `token` being its bootstrap token. */
export function requireTokens(token: string): Record<string, string> {
  return {
    VEXIL_AUTHENTICATION_REQUIRED: 'true',
    VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
    VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: token,
  };
}

/** Starts `vexil serve` on a new SQLite file (`name` names its temporary folder). */
export async function startE2eServer(name: string, env: Record<string, string> = {}): Promise<E2eServer> {
  const dir = mkdtempSync(join(tmpdir(), `vexil-e2e-${name}-`));
  let vexil: RunningVexil;
  try {
    vexil = await startVexil({ VEXIL_DB_URL: `file:${join(dir, 'vexil.db')}`, ...env });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    vexil,
    base: vexil.baseUrl,
    dir,
    async stop() {
      await vexil.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Calls the API as a client would (`token`: sent as a bearer token) and answers the parsed body, `{}`
 * for an empty one; an error answer throws with its status and body.
 */
export async function callApi<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}
