// The one place Vexil reaches into grpc-js (docs/adr/0032-grpc-bad-input.md): a gate before grpc-js's
// own 'stream' listener on the HTTP/2 servers it creates. grpc-js builds its call object, and answers
// some faults from it (a malformed grpc-timeout, a message that does not inflate: INTERNAL), before any
// interceptor or handler runs; and Node's HTTP/2 hands it a header object that keeps only the first
// `authorization`. A listener of our own added beside grpc-js's cannot keep grpc-js from answering too,
// so the gate replaces grpc-js's listener with one that asks `gate` first and calls grpc-js's only for
// the streams the gate did not take.
//
// grpc-js exposes neither its HTTP/2 servers nor a hook before its call object: this reads the private
// `http2Servers` map of grpc-js 1.14 (server.ts) and expects exactly one 'stream' listener on each
// server. When either is not so, `gateStreams` throws (stream-gate.test.ts fails with it), so an
// upgrade of grpc-js that moves them is noticed at once rather than silently losing the gate.

import {
  constants,
  type Http2SecureServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Server } from '@grpc/grpc-js';

/**
 * Looks at a new stream first; true when it took the stream (answered it, or will), so grpc-js never
 * sees it. `rawHeaders` is Node's flat name/value list, repeated fields included.
 */
export type StreamGate = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]) => boolean;

type StreamListener = (
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  flags: number,
  rawHeaders: string[],
) => void;

const gated = new WeakSet<Http2Server | Http2SecureServer>();

/** The HTTP/2 servers grpc-js made for `server`'s bound ports (after bindAsync has called back). */
function http2ServersOf(server: Server): (Http2Server | Http2SecureServer)[] {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) throw new Error('grpc-js changed: Server#http2Servers is not a Map (stream-gate.ts)');
  return [...servers.keys()] as (Http2Server | Http2SecureServer)[];
}

/** Puts `gate` before grpc-js on every HTTP/2 server of `server` not gated yet; call after each bind. */
export function gateStreams(server: Server, gate: StreamGate): void {
  for (const http2Server of http2ServersOf(server)) {
    if (gated.has(http2Server)) continue;
    const listeners = http2Server.listeners('stream') as StreamListener[];
    const grpcJs = listeners[0];
    if (listeners.length !== 1 || grpcJs === undefined) {
      throw new Error(`grpc-js changed: expected one 'stream' listener, found ${listeners.length} (stream-gate.ts)`);
    }
    http2Server.removeListener('stream', grpcJs);
    const gatedListener: StreamListener = (stream, headers, flags, rawHeaders) => {
      let taken: boolean;
      try {
        taken = gate(stream, headers, rawHeaders ?? []);
      } catch {
        // A gate's fault must not end the process (this runs in an event of the HTTP/2 server): the
        // stream is reset, as grpc-js resets one it cannot handle.
        stream.close(constants.NGHTTP2_INTERNAL_ERROR);
        return;
      }
      if (!taken) grpcJs(stream, headers, flags, rawHeaders);
    };
    http2Server.on('stream', gatedListener);
    gated.add(http2Server);
  }
}
