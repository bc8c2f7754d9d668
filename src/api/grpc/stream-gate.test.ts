// The gate relies on grpc-js internals (stream-gate.ts): these rows fail loudly when an upgrade of
// grpc-js moves them, instead of the gate silently going missing.

import { connect } from 'node:http2';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { gateStreams } from './stream-gate.js';

function bound(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

/** The HTTP status of a POST to `path` on the server at `port` (grpc-js answers 200 for gRPC calls). */
function post(port: number, path: string): Promise<{ status: number; grpcStatus: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc' });
    stream.on('response', (headers) => {
      resolve({ status: Number(headers[':status']), grpcStatus: headers['grpc-status'] as string | undefined });
      session.close();
    });
    stream.on('error', reject);
    stream.end();
  });
}

describe('the stream gate before grpc-js', () => {
  let server: Server | undefined;
  afterEach(() => server?.forceShutdown());

  it.each([
    { gate: 'takes the stream', taken: true, grpcStatus: '7' },
    { gate: 'leaves the stream', taken: false, grpcStatus: '12' },
  ])('a gate that $gate: its answer, or grpc-js’s', async ({ taken, grpcStatus }) => {
    server = new Server();
    const port = await bound(server);
    const seen: string[] = [];
    gateStreams(server, (stream, headers) => {
      seen.push(String(headers[':path']));
      if (!taken) return false;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': 7 }, { endStream: true });
      return true;
    });
    // No such method: grpc-js answers UNIMPLEMENTED (12) when the gate leaves the stream to it.
    expect(await post(port, '/no.Such/Method')).toEqual({ status: 200, grpcStatus });
    expect(seen).toEqual(['/no.Such/Method']);
  });

  it('gating twice keeps one gate', async () => {
    server = new Server();
    const port = await bound(server);
    let calls = 0;
    const gate = () => {
      calls++;
      return false;
    };
    gateStreams(server, gate);
    gateStreams(server, gate);
    await post(port, '/no.Such/Method');
    expect(calls).toBe(1);
  });

  it('fails loudly when grpc-js keeps its HTTP/2 servers elsewhere', () => {
    const changed = Object.assign(Object.create(Server.prototype), { http2Servers: undefined }) as Server;
    expect(() => gateStreams(changed, () => false)).toThrow(/grpc-js changed/);
  });
});
