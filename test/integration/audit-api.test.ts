// The audit webhook end to end: writes through the REST API (each records its change in its own
// transaction) arrive at a receiver as Flipt's events, in the order they were made, signed; and a write
// acknowledged just before a kill -9 of the real program is delivered after the restart. These need
// the write path's recording (issue 28 item 1): where writes record no change yet, they are skipped.

import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDb } from '../../src/storage/db.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { Receiver, waitFor } from '../helpers/audit.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

const BOOT = 'audit-api-bootstrap-token';
const SECRET = 'api-secret';

async function recordsChanges(t: TestApp): Promise<boolean> {
  const row = await t.app.db.kysely.selectFrom('changes').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

describeEachBackend('audit webhook through the API', (backend) => {
  let receiver: Receiver;
  let t: TestApp | undefined;

  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
  });

  afterEach(async () => {
    await t?.close();
    t = undefined;
    await receiver.stop();
  });

  it('sends every API write as a signed Flipt event, in the order of the writes', async (ctx) => {
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
      audit: {
        sinks: { webhook: { enabled: true, url: receiver.url, signing_secret: SECRET, max_backoff_duration: '200ms' } },
      },
    });
    await t.app.listen();
    const app = t.app;
    const api = (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
      call(app, method, url, body, bearer(BOOT));
    const ns = '/api/v1/namespaces/default';
    expect(
      (await api('POST', `${ns}/flags`, { key: 'checkout', name: 'Checkout', type: 'VARIANT_FLAG_TYPE' })).status,
    ).toBe(200);
    if (!(await recordsChanges(t))) ctx.skip();
    const variant = await api('POST', `${ns}/flags/checkout/variants`, { key: 'new', name: 'New' });
    await api('PUT', `${ns}/flags/checkout`, { name: 'Checkout', enabled: true, defaultVariantId: variant.body.id });
    await api('POST', `${ns}/segments`, { key: 'beta', name: 'Beta', matchType: 'ALL_MATCH_TYPE' });
    await api('POST', `${ns}/segments/beta/constraints`, {
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'beta',
    });
    const r1 = await api('POST', `${ns}/flags/checkout/rules`, { segmentKey: 'beta', rank: 1 });
    const r2 = await api('POST', `${ns}/flags/checkout/rules`, { segmentKey: 'beta', rank: 2 });
    expect((await api('PUT', `${ns}/flags/checkout/rules/order`, { ruleIds: [r2.body.id, r1.body.id] })).status).toBe(
      200,
    );
    await api('DELETE', `${ns}/flags/checkout/variants/${variant.body.id}`);
    await api('DELETE', `${ns}/flags/checkout`);
    const token = await api('POST', '/auth/v1/method/token', { name: 'deploy', description: 'for CI' });
    expect(token.status).toBe(200);

    const expected = [
      ['flag', 'created'],
      ['variant', 'created'],
      ['flag', 'updated'],
      ['segment', 'created'],
      ['constraint', 'created'],
      ['rule', 'created'],
      ['rule', 'created'],
      ['rule', 'updated'],
      ['variant', 'deleted'],
    ];
    const isDeployToken = (e: { type: string; payload: Record<string, string> }) =>
      e.type === 'token' && e.payload['io.flipt.auth.token.name'] === 'deploy';
    await waitFor('the new token event', () => receiver.received.some((r) => isDeployToken(r.json)));
    // The bootstrap token, made at start after the sink was set up, is the first event.
    expect(receiver.received[0]?.json).toMatchObject({
      type: 'token',
      action: 'created',
      metadata: { actor: { authentication: 'bootstrap' } },
    });
    const events = receiver.received.slice(1).map((r) => r.json);
    // A flag's delete may also record the deletes of what went with it; the writes above come in order.
    const main = events.filter((e) => !(e.action === 'deleted' && e.type !== 'flag' && e.type !== 'variant'));
    expect(main.slice(0, expected.length).map((e) => [e.type, e.action])).toEqual(expected);
    expect(events.find((e) => e.type === 'flag' && e.action === 'deleted')?.payload).toEqual({
      key: 'checkout',
      namespace_key: 'default',
    });
    expect(events.find((e) => e.type === 'rule' && e.action === 'updated')?.payload).toEqual({
      flag_key: 'checkout',
      rule_ids: [r2.body.id, r1.body.id],
      namespace_key: 'default',
    });
    expect(events.find((e) => e.type === 'flag' && e.action === 'updated')?.payload).toEqual({
      key: 'checkout',
      name: 'Checkout',
      description: '',
      enabled: true,
      namespace_key: 'default',
      default_variant: 'new',
    });
    expect(events.find(isDeployToken)?.payload).toMatchObject({ 'io.flipt.auth.token.description': 'for CI' });
    for (const event of events) {
      expect(event.metadata.actor.authentication).toBe('token');
      expect(event.status).toBe('success');
    }
    for (const request of receiver.received) {
      expect(request.headers['x-flipt-webhook-signature']).toBe(
        createHmac('sha256', SECRET).update(request.body).digest('hex'),
      );
    }
  });
});

let dir: string | undefined;
let running: RunningVexil | undefined;
let restartReceiver: Receiver | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
  await restartReceiver?.stop();
  restartReceiver = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('delivers an API write acknowledged right before a kill -9, after the restart', async (ctx) => {
  dir = mkdtempSync(join(tmpdir(), 'vexil-audit-api-'));
  restartReceiver = new Receiver();
  await restartReceiver.start();
  // Down while the write is made: the event cannot have left before the kill.
  restartReceiver.status = 503;
  const env = {
    VEXIL_DB_URL: `file:${join(dir, 'vexil.db')}`,
    VEXIL_AUDIT_SINKS_WEBHOOK_ENABLED: 'true',
    VEXIL_AUDIT_SINKS_WEBHOOK_URL: restartReceiver.url,
    VEXIL_AUDIT_SINKS_WEBHOOK_MAX_BACKOFF_DURATION: '200ms',
  };
  running = await startVexil(env);
  const res = await fetch(`${running.baseUrl}/api/v1/namespaces/default/flags`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'crash', name: 'Crash', type: 'BOOLEAN_FLAG_TYPE' }),
  });
  expect(res.status).toBe(200);
  running.process.kill('SIGKILL');
  await running.stop('SIGKILL');
  // Only when the write path records nothing yet (issue 28 item 1) is there nothing to deliver.
  const db = openDb({ url: env.VEXIL_DB_URL });
  const recorded = await db.kysely.selectFrom('changes').select('id').executeTakeFirst();
  await db.close();
  if (!recorded) ctx.skip();
  restartReceiver.status = 200;
  running = await startVexil(env);
  const receiver = restartReceiver;
  await waitFor('the event after the restart', () => receiver.received.length >= 1, 90_000);
  expect(receiver.received.map((r) => [r.json.type, r.json.action, r.json.payload.key])).toEqual([
    ['flag', 'created', 'crash'],
  ]);
}, 180_000);
