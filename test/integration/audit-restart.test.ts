// At least once across a crash: the real program is killed with SIGKILL right after a change is stored
// while its webhook receiver is down, and the event arrives after a restart (the next instance takes the
// dead one's lease once it runs out, and delivers from the position saved in the database).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/app/migrations.js';
import { openDb } from '../../src/storage/db.js';
import { flagState, insertChanges, Receiver, waitFor } from '../helpers/audit.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

let dir: string | undefined;
let receiver: Receiver | undefined;
let running: RunningVexil | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  await receiver?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('delivers a change stored just before a kill -9, after the restart', async () => {
  dir = mkdtempSync(join(tmpdir(), 'vexil-audit-restart-'));
  const url = `file:${join(dir, 'vexil.db')}`;
  receiver = new Receiver();
  await receiver.start();
  receiver.status = 503;
  const env = {
    VEXIL_DB_URL: url,
    VEXIL_AUDIT_SINKS_WEBHOOK_ENABLED: 'true',
    VEXIL_AUDIT_SINKS_WEBHOOK_URL: receiver.url,
    VEXIL_AUDIT_SINKS_WEBHOOK_MAX_BACKOFF_DURATION: '200ms',
  };
  running = await startVexil(env);
  const db = openDb({ url });
  try {
    await migrateToLatest(db.kysely, db.dialect);
    await insertChanges(db.kysely, [
      { resourceType: 'flag', resourceKey: 'crash', action: 'created', after: flagState('crash') },
    ]);
    // The program has seen it and failed to send it at least once: it is in flight when the kill comes.
    await waitFor('a first attempt', () => receiver?.attempts !== undefined && receiver.attempts >= 1);
    expect(await running.stop('SIGKILL')).toBe(null);
    expect(receiver.received).toHaveLength(0);

    receiver.status = 200;
    running = await startVexil(env);
    await waitFor('the event after the restart', () => (receiver?.received.length ?? 0) >= 1, 90_000);
    expect(receiver.received.map((r) => [r.json.type, r.json.action, r.json.payload.key])).toEqual([
      ['flag', 'created', 'crash'],
    ]);
  } finally {
    await db.close();
  }
}, 180_000);
