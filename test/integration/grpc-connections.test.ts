// Flipt's server.grpc_conn_* limits on the real gRPC server: with grpc_conn_max_idle_time a client's
// idle connection is closed by the server (the channel falls back to IDLE); without it, it stays open.
// The evaluation fast path is off with an idle limit set, on without one.

import { connectivityState } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionLimits } from '../../src/api/grpc/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testBackends } from '../helpers/backends.js';
import { check, healthClient } from '../helpers/grpc.js';

const sqlite = testBackends().find((b) => b.name === 'sqlite') ?? { name: 'sqlite' as const };

/** Connects, makes one call, then reports the channel's state after `waitMs` of idleness. */
async function stateAfterIdle(port: number, waitMs: number): Promise<connectivityState> {
  const client = healthClient(port);
  try {
    await check(client);
    const channel = client.getChannel();
    expect(channel.getConnectivityState(false)).toBe(connectivityState.READY);
    await new Promise<void>((resolve) =>
      channel.watchConnectivityState(connectivityState.READY, Date.now() + waitMs, () => resolve()),
    );
    return channel.getConnectivityState(false);
  } finally {
    client.close();
  }
}

describe('gRPC connection limits', () => {
  let running: TestApp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function listen(server: Record<string, unknown>): Promise<number> {
    running = await startTestApp(sqlite, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0, ...server } });
    return (await running.app.listen()).grpcPort;
  }

  it('closes a connection idle for server.grpc_conn_max_idle_time', async () => {
    const port = await listen({ grpc_conn_max_idle_time: '300ms' });
    expect(await stateAfterIdle(port, 3_000)).toBe(connectivityState.IDLE);
    // grpc-js counts only the streams it handles as activity: every evaluation stays with it (ADR 0043).
    expect(running?.app.grpc.fastPath).toBeUndefined();
  });

  it('keeps an idle connection open by default', async () => {
    const port = await listen({});
    expect(await stateAfterIdle(port, 1_000)).toBe(connectivityState.READY);
    expect(running?.app.grpc.fastPath).toBeDefined();
  });

  it('passes only the limits that are set to grpc-js', () => {
    expect(connectionLimits({})).toEqual({});
    expect(connectionLimits({ connMaxIdleMs: 0, connMaxAgeMs: 60_000, connMaxAgeGraceMs: 5_000 })).toEqual({
      'grpc.max_connection_age_ms': 60_000,
      'grpc.max_connection_age_grace_ms': 5_000,
    });
    // Keepalive (change streams' heartbeat): a PING that often, answered within as long, 5 to 20 s.
    expect(connectionLimits({ keepaliveMs: 0 })).toEqual({});
    expect(connectionLimits({ keepaliveMs: 100 })).toEqual({
      'grpc.keepalive_time_ms': 100,
      'grpc.keepalive_timeout_ms': 5_000,
    });
    expect(connectionLimits({ keepaliveMs: 15_000 })).toEqual({
      'grpc.keepalive_time_ms': 15_000,
      'grpc.keepalive_timeout_ms': 15_000,
    });
    expect(connectionLimits({ keepaliveMs: 60_000 })).toEqual({
      'grpc.keepalive_time_ms': 60_000,
      'grpc.keepalive_timeout_ms': 20_000,
    });
  });
});
