// CONNECT asks a server to become a tunnel, which Vexil never is. Node's HTTP server hands a CONNECT
// request to 'connect' listeners instead of the request handler, and with none it destroys the socket
// without a word; Go's server (Flipt) answers it like any other method. This answers it with Flipt's
// error body for a method a path does not have, and closes the connection, since whatever the client
// sends next would be tunnel bytes.

import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GrpcCode } from '../../domain/errors.js';

const BODY = JSON.stringify({ code: GrpcCode.UNIMPLEMENTED, message: 'Method Not Allowed', details: [] });

const ANSWER =
  'HTTP/1.1 405 Method Not Allowed\r\n' +
  'Content-Type: application/json\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  `Content-Length: ${Buffer.byteLength(BODY)}\r\n` +
  'Connection: close\r\n\r\n' +
  BODY;

export function answerConnect(server: Pick<Server, 'on'>): void {
  server.on('connect', (_request: unknown, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    if (socket.writable) socket.end(ANSWER);
    else socket.destroy();
  });
}
