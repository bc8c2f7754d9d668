// Helpers for the audit sink tests: a webhook receiver on 127.0.0.1 that records what it is sent (and
// can answer 503 or stop listening to play a receiver that is down), change rows written straight into
// the changes table as the recording would write them, and a liveness wait.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { ChangeActor } from '../../src/domain/changes.js';
import type { Database } from '../../src/storage/schema.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  json: any;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Status answered to every request; 503 plays a receiver that is down but listening. */
  status = 200;
  attempts = 0;
  #server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.attempts += 1;
        const body = Buffer.concat(chunks).toString('utf8');
        if (this.status < 300) {
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          this.received.push({ path: req.url ?? '', headers: req.headers, body, json });
        }
        res.writeHead(this.status).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.#server?.once('error', reject);
      this.#server?.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening: connections are refused until start(port) again. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export interface ChangeRow {
  namespaceKey?: string | null;
  resourceType: string;
  resourceKey: string;
  parentKey?: string;
  action: 'created' | 'updated' | 'deleted';
  actor?: ChangeActor;
  before?: unknown;
  after?: unknown;
  batch?: string;
}

export const TOKEN_ACTOR: ChangeActor = { authentication: 'token', ip: '127.0.0.1', tokenId: 'tok-1', name: 'ci' };

/** Inserts change rows (one statement each) as the write path records them. */
export async function insertChanges(db: Kysely<Database>, rows: ChangeRow[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('changes')
      .values({
        created_at: new Date(),
        batch: row.batch ?? null,
        namespace_key: row.namespaceKey === undefined ? 'default' : row.namespaceKey,
        resource_type: row.resourceType,
        resource_key: row.resourceKey,
        parent_key: row.parentKey ?? null,
        action: row.action,
        actor: JSON.stringify(row.actor ?? TOKEN_ACTOR),
        before_state: row.before === undefined ? null : JSON.stringify(row.before),
        after_state: row.after === undefined ? null : JSON.stringify(row.after),
        reverts: null,
      })
      .execute();
  }
}

/** Polls `check` until it holds; fails after a generous deadline (a liveness bound, not a timing assertion). */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, deadlineMs = 60_000) {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const STAMP = '2026-11-27T10:00:00.000Z';

/** A flag as the API shows it. */
export function flagState(key: string, extra: Record<string, unknown> = {}) {
  return {
    key,
    name: `Flag ${key}`,
    description: 'made by a test',
    enabled: false,
    createdAt: STAMP,
    updatedAt: STAMP,
    variants: [],
    namespaceKey: 'default',
    type: 'VARIANT_FLAG_TYPE',
    ...extra,
  };
}
