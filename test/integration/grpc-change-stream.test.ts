// vexil.changes.v1.ChangeService/WatchNamespace (issue 29), Vexil's gRPC extension, through a real
// grpc-js client built from proto/vexil/changes/v1/changes.proto: the current revision, then each
// write's; last_revision honoured; authentication as for the unary RPCs; the stream ends when its
// token is deleted and when the server drains; server reflection lists the service; with change
// streams off the method answers UNIMPLEMENTED. Per backend. While change streams are on the server
// PINGs every connection each heartbeat_interval, and drops a peer whose path has gone silent.

import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { credentials, status } from '@grpc/grpc-js';
import { GrpcReflection } from 'grpc-js-reflection-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { type ChangeClient, changeClient, watch } from '../helpers/change-watch.js';

const BOOT = 'grpc-change-stream-token';

describeEachBackend('gRPC change stream', (backend) => {
  let t: TestApp;
  let client: ChangeClient;
  let base: string;

  const put = async (key: string) => {
    const res = await fetch(`${base}/api/v1/namespaces/default/flags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BOOT}` },
      body: JSON.stringify({ key, name: key, type: 'BOOLEAN_FLAG_TYPE' }),
    });
    expect(res.status).toBe(200);
    return res.headers.get('x-vexil-revision') as string;
  };

  beforeAll(async () => {
    t = await startTestApp(backend, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
      ofrep: { event_streams: { enabled: true } },
    });
    const ports = await t.app.listen();
    base = `http://127.0.0.1:${ports.httpPort}`;
    client = changeClient(ports.grpcPort);
    await put('first');
  });
  afterAll(async () => {
    client?.close();
    await t?.close();
  });

  it('sends the current revision, then every write’s, as OFREP refetchEvaluation messages', async () => {
    const w = watch(client, { namespace_key: '' }, BOOT);
    try {
      await w.until(1);
      const current = t.app.eventStreams?.watch.latest('default')?.revision;
      expect(w.changes[0]).toMatchObject({ type: 'refetchEvaluation', namespace_key: 'default', etag: current });
      const revisions = [await put('a'), await put('b')];
      await w.until(3);
      expect(w.changes.slice(1).map((c) => c.etag)).toEqual(revisions);
      expect(Math.abs((w.changes[2]?.last_modified ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    } finally {
      w.cancel();
    }
  });

  it('last_revision naming the current revision: nothing until the next write', async () => {
    const current = (
      await fetch(`${base}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BOOT}` },
        body: '{}',
      })
    ).headers.get('x-vexil-revision') as string;
    const w = watch(client, { namespace_key: 'default', last_revision: current }, BOOT);
    try {
      const next = await put('c');
      await w.until(1);
      expect(w.changes.map((c) => c.etag)).toEqual([next]);
    } finally {
      w.cancel();
    }
  });

  it('no token: UNAUTHENTICATED; a deleted token ends its stream', async () => {
    expect((await watch(client, { namespace_key: 'default' }).ended).code).toBe(status.UNAUTHENTICATED);
    const created = await fetch(`${base}/auth/v1/method/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BOOT}` },
      body: JSON.stringify({ name: 'watcher' }),
    }).then((r) => r.json() as Promise<{ clientToken: string; authentication: { id: string } }>);
    const w = watch(client, { namespace_key: 'default' }, created.clientToken);
    await w.until(1);
    const deleted = await fetch(`${base}/auth/v1/tokens/${created.authentication.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${BOOT}` },
    });
    expect(deleted.status).toBe(200);
    expect((await w.ended).code).toBe(status.OK);
  });

  it('a drain ends the stream with OK', async () => {
    const w = watch(client, { namespace_key: 'default' }, BOOT);
    await w.until(1);
    expect(t.app.streams.size).toBeGreaterThan(0);
    t.app.streams.endAll();
    expect((await w.ended).code).toBe(status.OK);
  });
});

describe('gRPC change stream: off, and reflection', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    const { testBackends } = await import('../helpers/backends.js');
    const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
    if (!sqlite) throw new Error('sqlite backend missing');
    t = await startTestApp(sqlite, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    port = (await t.app.listen()).grpcPort;
  });
  afterAll(async () => t?.close());

  it('answers UNIMPLEMENTED while change streams are off', async () => {
    const client = changeClient(port);
    try {
      const ended = await watch(client, { namespace_key: 'default' }).ended;
      expect(ended).toEqual({
        code: status.UNIMPLEMENTED,
        details: 'change streams are off (ofrep.event_streams.enabled)',
      });
    } finally {
      client.close();
    }
  });

  it('server reflection lists vexil.changes.v1.ChangeService', async () => {
    const reflection = new GrpcReflection(`127.0.0.1:${port}`, credentials.createInsecure());
    try {
      expect(await reflection.listServices()).toContain('vexil.changes.v1.ChangeService');
    } finally {
      (reflection as unknown as { client: { close(): void } }).client.close();
    }
  });
});

/**
 * A TCP relay between client and server that can go silent: both sockets stay open but nothing
 * crosses any more, as when a network path dies without a FIN or RST (a NAT entry gone, a cable
 * pulled), which the kernel takes many minutes to notice.
 */
async function silenceableRelay(target: number): Promise<{ port: number; silence(): void; close(): void }> {
  const sockets: Socket[] = [];
  const pairs: [Socket, Socket][] = [];
  const server = createNetServer((inbound) => {
    const outbound = connect(target, '127.0.0.1');
    sockets.push(inbound, outbound);
    inbound.on('error', () => {});
    outbound.on('error', () => {});
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    pairs.push([inbound, outbound]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    silence() {
      for (const [inbound, outbound] of pairs) {
        inbound.unpipe(outbound);
        outbound.unpipe(inbound);
        inbound.pause();
        outbound.pause();
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('gRPC change stream: keepalive', () => {
  const start = async (heartbeat: string) => {
    const { testBackends } = await import('../helpers/backends.js');
    const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
    if (!sqlite) throw new Error('sqlite backend missing');
    const t = await startTestApp(sqlite, {
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      ofrep: { event_streams: { enabled: true, heartbeat_interval: heartbeat } },
    });
    return { t, port: (await t.app.listen()).grpcPort };
  };

  const openStreamsWithin = async (t: TestApp, want: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (t.app.streams.size !== want) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  };

  // Each row: the heartbeat, whether the path goes silent, and how many streams are open 7.5 s later.
  const rows = [
    {
      heartbeat: '1s',
      silent: true,
      open: 0,
      why: 'the PING goes unanswered: the connection and its stream are dropped',
    },
    { heartbeat: '1s', silent: false, open: 1, why: 'a client that answers its PINGs keeps its stream' },
    { heartbeat: '0s', silent: true, open: 1, why: 'heartbeats off: nothing notices the silent path' },
  ];
  it.each(rows)(
    'heartbeat $heartbeat, silent path $silent: $why',
    async ({ heartbeat, silent, open }) => {
      const { t, port } = await start(heartbeat);
      const relay = await silenceableRelay(port);
      const client = changeClient(relay.port);
      try {
        const w = watch(client, { namespace_key: 'default' });
        await w.until(1);
        expect(t.app.streams.size).toBe(1);
        if (silent) relay.silence();
        // Within 1 s of PING interval and 5 s of answer timeout (the shortest) a dead peer is gone, and
        // a live one has answered several PINGs; 7.5 s leaves room.
        await new Promise((r) => setTimeout(r, 7_500));
        if (open === 0) expect(await openStreamsWithin(t, 0, 5_000)).toBe(true);
        else expect(t.app.streams.size).toBe(open);
      } finally {
        client.close();
        relay.close();
        await t.close();
      }
    },
    30_000,
  );

  it('a client answering PINGs late (a busy event loop) keeps its stream, even with a 100 ms heartbeat', async () => {
    // Client and server share this process: each pause below runs after the server sent a PING and
    // before it read the answer, so the answer is as late as the pause (150 ms, past the heartbeat).
    const { t, port } = await start('100ms');
    const client = changeClient(port);
    let ended: { code: number } | undefined;
    try {
      const w = watch(client, { namespace_key: 'default' });
      void w.ended.then((e) => {
        ended = e;
      });
      await w.until(1);
      const until = Date.now() + 2_000;
      await new Promise<void>((resolve) => {
        const pause = () => {
          const busy = Date.now() + 150;
          while (Date.now() < busy) {}
          if (Date.now() < until) setImmediate(pause);
          else setTimeout(resolve, 200);
        };
        setImmediate(pause);
      });
      expect(ended).toBeUndefined();
      expect(t.app.streams.size).toBe(1);
    } finally {
      client.close();
      await t.close();
    }
  }, 30_000);
});
