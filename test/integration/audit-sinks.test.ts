// Flipt's audit sinks delivered from the changes table, on every backend: a webhook receiver in the
// test checks each body against Flipt's event shape and verifies the signature; a receiver that is
// down (503, then not listening) gets every event once it is back, in order; templates render; the log
// sink writes one JSON line per event; `audit.events` filters; an id that commits after a larger one is
// still delivered (PostgreSQL, MySQL); two instances on one database deliver each event once; a
// change a person makes through the API (a JWT with their claims) carries Flipt's actor fields.
// The change rows are written straight into the table here, as the write path records them.

import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { flagState, insertChanges, Receiver, type ChangeRow as Row, waitFor } from '../helpers/audit.js';
import { createTestDatabase, describeEachBackend } from '../helpers/backends.js';
import { FliptGrpc } from '../helpers/flipt-grpc.js';

const SECRET = 'audit-signing-secret';
const STAMP = '2026-11-27T10:00:00.000Z';
const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const EVENT_KEYS = ['version', 'type', 'action', 'metadata', 'payload', 'timestamp', 'status'];
const ACTOR = { authentication: 'token', ip: '127.0.0.1', name: 'ci' };

const listening = { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } };

function webhookConfig(url: string, extra: Record<string, unknown> = {}) {
  return {
    ...listening,
    audit: {
      sinks: { webhook: { enabled: true, url, signing_secret: SECRET, max_backoff_duration: '200ms' } },
      ...extra,
    },
  };
}

/** Writes, and the Flipt event each must become (type, action, payload). */
const WRITES: { row: Row; type: string; action: string; payload: unknown }[] = [
  {
    row: {
      resourceType: 'flag',
      resourceKey: 'dark-mode',
      action: 'created',
      after: flagState('dark-mode', { enabled: true }),
    },
    type: 'flag',
    action: 'created',
    payload: {
      key: 'dark-mode',
      name: 'Flag dark-mode',
      description: 'made by a test',
      enabled: true,
      namespace_key: 'default',
    },
  },
  {
    row: {
      resourceType: 'variant',
      resourceKey: 'on',
      parentKey: 'dark-mode',
      action: 'created',
      after: {
        id: 'v-1',
        flagKey: 'dark-mode',
        key: 'on',
        name: 'On',
        description: '',
        createdAt: STAMP,
        updatedAt: STAMP,
        attachment: '{"color":"dark"}',
        namespaceKey: 'default',
      },
    },
    type: 'variant',
    action: 'created',
    payload: {
      id: 'v-1',
      flag_key: 'dark-mode',
      key: 'on',
      name: 'On',
      description: '',
      attachment: '{"color":"dark"}',
      namespace_key: 'default',
    },
  },
  {
    row: {
      resourceType: 'flag',
      resourceKey: 'dark-mode',
      action: 'updated',
      before: flagState('dark-mode', { enabled: true }),
      after: flagState('dark-mode', {
        enabled: false,
        defaultVariant: { id: 'v-1', key: 'on', flagKey: 'dark-mode', name: 'On', namespaceKey: 'default' },
      }),
    },
    type: 'flag',
    action: 'updated',
    payload: {
      key: 'dark-mode',
      name: 'Flag dark-mode',
      description: 'made by a test',
      enabled: false,
      namespace_key: 'default',
      default_variant: 'on',
    },
  },
  {
    row: {
      resourceType: 'segment',
      resourceKey: 'beta',
      action: 'created',
      after: {
        key: 'beta',
        name: 'Beta',
        description: '',
        createdAt: STAMP,
        updatedAt: STAMP,
        constraints: [
          {
            id: 'c-1',
            segmentKey: 'beta',
            type: 'STRING_COMPARISON_TYPE',
            property: 'plan',
            operator: 'eq',
            value: 'beta',
            createdAt: STAMP,
            updatedAt: STAMP,
            namespaceKey: 'default',
            description: '',
          },
        ],
        matchType: 'ALL_MATCH_TYPE',
        namespaceKey: 'default',
      },
    },
    type: 'segment',
    action: 'created',
    payload: {
      key: 'beta',
      name: 'Beta',
      description: '',
      constraints: [
        {
          id: 'c-1',
          segment_key: 'beta',
          type: 'STRING_COMPARISON_TYPE',
          property: 'plan',
          operator: 'eq',
          value: 'beta',
          namespace_key: 'default',
        },
      ],
      match_type: 'ALL_MATCH_TYPE',
      namespace_key: 'default',
    },
  },
  {
    row: {
      resourceType: 'rule',
      resourceKey: 'r-1',
      parentKey: 'dark-mode',
      action: 'created',
      after: {
        id: 'r-1',
        flagKey: 'dark-mode',
        segmentKey: '',
        distributions: [
          { id: 'd-1', ruleId: 'r-1', variantId: 'v-1', rollout: 50, createdAt: STAMP, updatedAt: STAMP },
        ],
        rank: 1,
        createdAt: STAMP,
        updatedAt: STAMP,
        namespaceKey: 'default',
        segmentKeys: ['beta', 'staff'],
        segmentOperator: 'AND_SEGMENT_OPERATOR',
      },
    },
    type: 'rule',
    action: 'created',
    payload: {
      id: 'r-1',
      flag_key: 'dark-mode',
      segment_key: 'beta,staff',
      distributions: [{ id: 'd-1', rule_id: 'r-1', variant_id: 'v-1', rollout: 50 }],
      rank: 1,
      namespace_key: 'default',
      segment_operator: 'AND_SEGMENT_OPERATOR',
    },
  },
  {
    row: {
      resourceType: 'rollout',
      resourceKey: 'ro-1',
      parentKey: 'kill-switch',
      action: 'created',
      after: {
        id: 'ro-1',
        namespaceKey: 'default',
        flagKey: 'kill-switch',
        type: 'THRESHOLD_ROLLOUT_TYPE',
        rank: 1,
        description: 'half',
        createdAt: STAMP,
        updatedAt: STAMP,
        threshold: { percentage: 50, value: true },
      },
    },
    type: 'rollout',
    action: 'created',
    payload: {
      namespace_key: 'default',
      flag_key: 'kill-switch',
      rank: 1,
      description: 'half',
      threshold: { percentage: 50, value: true },
      id: 'ro-1',
    },
  },
  {
    row: {
      resourceType: 'variant',
      resourceKey: 'on',
      parentKey: 'dark-mode',
      action: 'deleted',
      before: { id: 'v-1', flagKey: 'dark-mode', key: 'on', name: 'On', namespaceKey: 'default' },
    },
    type: 'variant',
    action: 'deleted',
    payload: { id: 'v-1', flag_key: 'dark-mode', namespace_key: 'default' },
  },
  {
    row: { resourceType: 'flag', resourceKey: 'dark-mode', action: 'deleted', before: flagState('dark-mode') },
    type: 'flag',
    action: 'deleted',
    payload: { key: 'dark-mode', namespace_key: 'default' },
  },
  {
    row: {
      namespaceKey: null,
      resourceType: 'token',
      resourceKey: 'tok-2',
      action: 'created',
      after: {
        id: 'tok-2',
        method: 'METHOD_TOKEN',
        createdAt: STAMP,
        updatedAt: STAMP,
        metadata: { 'io.flipt.auth.token.name': 'deploy', 'io.flipt.auth.token.description': 'for CI' },
      },
    },
    type: 'token',
    action: 'created',
    payload: { 'io.flipt.auth.token.description': 'for CI', 'io.flipt.auth.token.name': 'deploy' },
  },
];

/** `count` writes to flags flag-0 … flag-(resources-1), each flag created, updated and deleted in turn. */
function lifecycleRows(resources: number): Row[] {
  const rows: Row[] = [];
  for (const action of ['created', 'updated', 'deleted'] as const) {
    for (let i = 0; i < resources; i++) {
      const key = `flag-${i}`;
      rows.push({
        resourceType: 'flag',
        resourceKey: key,
        action,
        ...(action !== 'created' ? { before: flagState(key) } : {}),
        ...(action !== 'deleted' ? { after: flagState(key, { enabled: action === 'updated' }) } : {}),
      });
    }
  }
  return rows;
}

function sequenceOf(receiver: Receiver): string[] {
  return receiver.received.map((r) => `${r.json.payload.key}:${r.json.action}`);
}

async function metricsText(app: App): Promise<string> {
  return app.metrics.render();
}

describeEachBackend('audit sinks', (backend) => {
  let receiver: Receiver;
  let t: TestApp | undefined;
  const extraApps: App[] = [];

  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
  });

  afterEach(async () => {
    for (const app of extraApps.splice(0)) await app.close();
    await t?.close();
    t = undefined;
    await receiver.stop();
  });

  it("sends each change as Flipt's event JSON, signed with X-Flipt-Webhook-Signature", async () => {
    t = await startTestApp(backend, webhookConfig(receiver.url));
    await t.app.listen();
    await insertChanges(
      t.app.db.kysely,
      WRITES.map((w) => w.row),
    );
    await waitFor('every event', () => receiver.received.length >= WRITES.length);
    expect(receiver.received).toHaveLength(WRITES.length);
    receiver.received.forEach((request, i) => {
      const want = WRITES[i] as (typeof WRITES)[number];
      expect(Object.keys(request.json)).toEqual(EVENT_KEYS);
      expect(request.json).toEqual({
        version: '0.2',
        type: want.type,
        action: want.action,
        metadata: { actor: ACTOR },
        payload: want.payload,
        timestamp: expect.stringMatching(RFC3339_SECONDS),
        status: 'success',
      });
      expect(request.headers['content-type']).toBe('application/json');
      const signature = createHmac('sha256', SECRET).update(request.body).digest('hex');
      expect(request.headers['x-flipt-webhook-signature']).toBe(signature);
    });
    // A body altered by one byte would not verify.
    const first = receiver.received[0] as (typeof receiver.received)[number];
    expect(createHmac('sha256', SECRET).update(`${first.body} `).digest('hex')).not.toBe(
      first.headers['x-flipt-webhook-signature'],
    );
    // The counter moves when the sender has read the receiver's answer, a moment after the
    // receiver saw the body: wait for it rather than read it once.
    const app = t.app;
    await waitFor('nine deliveries counted', async () =>
      /vexil_audit_webhook_deliveries_total\{sink="webhook",result="delivered"\} 9\n/.test(await metricsText(app)),
    );
    expect(await metricsText(app)).toMatch(
      /vexil_audit_webhook_deliveries_total\{sink="webhook",result="delivered"\} 9\n/,
    );
  });

  it.each(['HTTP', 'gRPC'] as const)(
    "a change made over %s by a person signed in with a JWT arrives with Flipt's actor fields",
    async (transport) => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const dir = mkdtempSync(join(tmpdir(), 'vexil-audit-jwt-'));
      let grpc: FliptGrpc | undefined;
      try {
        const keyFile = join(dir, 'jwt.pem');
        writeFileSync(keyFile, await exportSPKI(publicKey));
        t = await startTestApp(backend, {
          ...webhookConfig(receiver.url),
          authentication: { required: true, methods: { jwt: { enabled: true, public_key_file: keyFile } } },
        });
        const { httpPort, grpcPort } = await t.app.listen();
        const person = { email: 'ada@corp.test', name: 'Ada Lovelace', image: 'https://pics.test/ada.png' };
        const token = await new SignJWT({ sub: 'u-ada', user: person })
          .setProtectedHeader({ alg: 'ES256' })
          .setExpirationTime('10m')
          .sign(privateKey);
        const flag = { key: 'by-ada', name: 'By Ada', type: 'BOOLEAN_FLAG_TYPE' };
        if (transport === 'HTTP') {
          const created = await fetch(`http://127.0.0.1:${httpPort}/api/v1/namespaces/default/flags`, {
            method: 'POST',
            headers: { authorization: `JWT ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(flag),
          });
          expect(created.status).toBe(200);
        } else {
          grpc = new FliptGrpc(grpcPort);
          await grpc.call('flipt.Flipt', 'CreateFlag', flag, { metadata: { authorization: `JWT ${token}` } });
        }
        await waitFor('the event', () => receiver.received.length >= 1);
        expect(receiver.received).toHaveLength(1);
        expect(receiver.received[0]?.json).toMatchObject({
          type: 'flag',
          action: 'created',
          metadata: {
            actor: {
              authentication: 'jwt',
              ip: '127.0.0.1',
              email: 'ada@corp.test',
              name: 'Ada Lovelace',
              picture: 'https://pics.test/ada.png',
            },
          },
        });
        // Exactly Flipt's actor fields: nothing else about the caller (no token, no subject) goes out.
        expect(Object.keys(receiver.received[0]?.json.metadata.actor)).toEqual([
          'authentication',
          'ip',
          'email',
          'name',
          'picture',
        ]);
      } finally {
        grpc?.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('delivers every event once the receiver is back (503, then not listening), in order per resource', async () => {
    t = await startTestApp(backend, webhookConfig(receiver.url));
    await t.app.listen();
    const app = t.app;
    receiver.status = 503;
    const rows = lifecycleRows(3);
    await insertChanges(app.db.kysely, rows.slice(0, 4));
    await waitFor('retries against the 503', () => receiver.attempts >= 3);
    await waitFor('the lag to show', async () =>
      /vexil_audit_delivery_lag_seconds\{sink="webhook"\} [1-9]/.test(await metricsText(app)),
    );
    // Now not even listening: connections are refused.
    const port = receiver.port;
    await receiver.stop();
    await insertChanges(app.db.kysely, rows.slice(4));
    await new Promise((r) => setTimeout(r, 500));
    receiver.status = 200;
    await receiver.start(port);
    await waitFor('every event after the receiver came back', () => receiver.received.length >= rows.length);
    const expected = rows.map((r) => `${r.resourceKey}:${r.action}`);
    expect(sequenceOf(receiver)).toEqual(expected);
    for (let i = 0; i < 3; i++) {
      expect(sequenceOf(receiver).filter((s) => s.startsWith(`flag-${i}:`))).toEqual([
        `flag-${i}:created`,
        `flag-${i}:updated`,
        `flag-${i}:deleted`,
      ]);
    }
    const text = await metricsText(app);
    expect(text).toMatch(/vexil_audit_webhook_deliveries_total\{sink="webhook",result="retry"\} [1-9]/);
    await waitFor('the lag back to 0', async () =>
      /vexil_audit_delivery_lag_seconds\{sink="webhook"\} 0\n/.test(await metricsText(app)),
    );
  });

  it('renders webhook templates (Go text/template with toJson) and sends them with their headers', async () => {
    const templates = [
      {
        url: `${receiver.url}/slack`,
        headers: { 'X-Team': 'flags' },
        body: '{"text": "{{ .Type }} {{ .Action }} by {{ .Metadata.Actor.Name }}{{ if .Payload.enabled }} (on){{ end }}", "payload": {{ toJson .Payload }}}',
      },
      {
        url: `${receiver.url}/keys`,
        body: '{"keys": [{{ range .Payload.constraints }}"{{ .property }}",{{ end }}"end"], "ip": {{ .Metadata.Actor.IP | toJson }}}',
      },
    ];
    t = await startTestApp(backend, {
      ...listening,
      audit: { sinks: { webhook: { enabled: true, templates, max_backoff_duration: '200ms' } } },
    });
    await t.app.listen();
    await insertChanges(t.app.db.kysely, [
      (WRITES[0] as (typeof WRITES)[number]).row,
      (WRITES[3] as (typeof WRITES)[number]).row,
    ]);
    await waitFor('both events at both templates', () => receiver.received.length >= 4);
    const slack = receiver.received.filter((r) => r.path === '/slack');
    const keys = receiver.received.filter((r) => r.path === '/keys');
    expect(slack.map((r) => r.json)).toEqual([
      { text: 'flag created by ci (on)', payload: WRITES[0]?.payload },
      { text: 'segment created by ci', payload: WRITES[3]?.payload },
    ]);
    expect(slack[0]?.headers['x-team']).toBe('flags');
    expect(slack[0]?.headers['content-type']).toBe('application/json');
    // Templates are not signed (Flipt signs only the plain webhook).
    expect(slack[0]?.headers['x-flipt-webhook-signature']).toBeUndefined();
    expect(keys.map((r) => r.json)).toEqual([
      { keys: ['end'], ip: '127.0.0.1' },
      { keys: ['plan', 'end'], ip: '127.0.0.1' },
    ]);
  });

  it('writes one JSON line per event to the log sink file, in the order of Flipt’s log sink', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-audit-'));
    const file = join(dir, 'nested', 'audit.log');
    try {
      t = await startTestApp(backend, { ...listening, audit: { sinks: { log: { enabled: true, file } } } });
      await t.app.listen();
      await insertChanges(
        t.app.db.kysely,
        WRITES.slice(0, 3).map((w) => w.row),
      );
      const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean);
      await waitFor('three lines', () => lines().length >= 3);
      expect(lines()).toHaveLength(3);
      lines().forEach((line, i) => {
        const json = JSON.parse(line);
        expect(Object.keys(json)).toEqual(['version', 'type', 'action', 'status', 'metadata', 'payload', 'timestamp']);
        expect(json).toMatchObject({
          version: '0.2',
          type: WRITES[i]?.type,
          action: WRITES[i]?.action,
          status: 'success',
        });
        expect(json.payload).toEqual(WRITES[i]?.payload);
      });
    } finally {
      await t?.close();
      t = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes AUDIT lines to the log when the log sink has no file, whatever log.level says', async () => {
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const database = await createTestDatabase(backend);
    const config = loadConfig({
      env: {},
      overrides: { db: { url: database.url }, ...listening, audit: { sinks: { log: { enabled: true } } } },
    });
    const app = await buildApp(config, { logger: pino({ level: 'warn' }, stream) });
    try {
      await app.listen();
      await insertChanges(app.db.kysely, [(WRITES[0] as (typeof WRITES)[number]).row]);
      await waitFor('the AUDIT line', () => lines.some((l) => l.includes('"AUDIT"')));
      const line = JSON.parse(lines.find((l) => l.includes('"AUDIT"')) as string);
      expect(line).toMatchObject({
        level: 30,
        msg: 'AUDIT',
        version: '0.2',
        type: 'flag',
        action: 'created',
        status: 'success',
      });
      expect(line.payload).toEqual(WRITES[0]?.payload);
      expect(line.metadata).toEqual({ actor: ACTOR });
    } finally {
      await app.close();
      await database.drop();
    }
  });

  it('sends only the events audit.events selects (flag:*, *:deleted)', async () => {
    t = await startTestApp(backend, webhookConfig(receiver.url, { events: ['flag:*', '*:deleted'] }));
    await t.app.listen();
    const segment = (action: 'created' | 'deleted'): Row => ({
      resourceType: 'segment',
      resourceKey: 's',
      action,
      ...(action === 'created' ? { after: { key: 's', name: 'S', constraints: [] } } : { before: { key: 's' } }),
    });
    await insertChanges(t.app.db.kysely, [
      { resourceType: 'flag', resourceKey: 'a', action: 'created', after: flagState('a') },
      segment('created'),
      { resourceType: 'variant', resourceKey: 'v', parentKey: 'a', action: 'created', after: { id: 'v', key: 'v' } },
      segment('deleted'),
      { resourceType: 'flag', resourceKey: 'a', action: 'updated', before: flagState('a'), after: flagState('a') },
      { resourceType: 'flag', resourceKey: 'last', action: 'created', after: flagState('last') },
    ]);
    await waitFor('the last event', () => receiver.received.some((r) => r.json.payload.key === 'last'));
    expect(receiver.received.map((r) => `${r.json.type}:${r.json.action}:${r.json.payload.key}`)).toEqual([
      'flag:created:a',
      'segment:deleted:s',
      'flag:updated:a',
      'flag:created:last',
    ]);
  });

  // Two SQLite connections in one process block each other's event loop (better-sqlite3 waits in place).
  it.skipIf(backend.name === 'sqlite')('with two instances on one database, delivers each event once', async () => {
    t = await startTestApp(backend, webhookConfig(receiver.url));
    const config = loadConfig({ env: {}, overrides: { db: { url: t.database.url }, ...webhookConfig(receiver.url) } });
    const second = await buildApp(config, { logger: pino({ level: 'silent' }) });
    extraApps.push(second);
    await Promise.all([t.app.listen(), second.listen()]);
    const rows = lifecycleRows(7);
    // Written half through each instance's connection.
    await insertChanges(t.app.db.kysely, rows.slice(0, 10));
    await insertChanges(second.db.kysely, rows.slice(10));
    await waitFor('every event', () => receiver.received.length >= rows.length);
    // Give a second deliverer the time to send anything twice.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(sequenceOf(receiver)).toEqual(rows.map((r) => `${r.resourceKey}:${r.action}`));
  });

  it.skipIf(backend.name === 'sqlite')(
    'delivers a change whose id committed after a larger one (the gap is watched, not skipped)',
    async () => {
      t = await startTestApp(backend, webhookConfig(receiver.url));
      await t.app.listen();
      const db = t.app.db.kysely;
      let release: () => void = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      let inserted: () => void = () => {};
      const insertedEarly = new Promise<void>((r) => {
        inserted = r;
      });
      const slow = db.transaction().execute(async (trx) => {
        await insertChanges(trx, [
          { resourceType: 'flag', resourceKey: 'early', action: 'created', after: flagState('early') },
        ]);
        inserted();
        await held;
      });
      await insertedEarly;
      await insertChanges(db, [
        { resourceType: 'flag', resourceKey: 'later', action: 'created', after: flagState('later') },
      ]);
      await waitFor('the later change', () => receiver.received.length >= 1);
      expect(sequenceOf(receiver)).toEqual(['later:created']);
      release();
      await slow;
      await waitFor('the earlier id, committed last', () => receiver.received.length >= 2);
      expect(sequenceOf(receiver)).toEqual(['later:created', 'early:created']);
      // And nothing more arrives twice.
      await insertChanges(db, [
        { resourceType: 'flag', resourceKey: 'end', action: 'created', after: flagState('end') },
      ]);
      await waitFor('the end marker', () => receiver.received.length >= 3);
      expect(sequenceOf(receiver)).toEqual(['later:created', 'early:created', 'end:created']);
    },
  );
});
