// gRPC calls as raw HTTP/2 frames (node:http2), for what a gRPC library never sends but an attacker can:
// bytes that are not the method's message, a malformed `grpc-timeout`, a compressed flag with an encoding
// the server lacks, a truncated frame. Answers the HTTP status and the call's gRPC status and message,
// from the trailers or from a trailers-only answer's headers.

import { type ClientHttp2Session, connect, type OutgoingHttpHeaders } from 'node:http2';

export interface RawGrpcAnswer {
  httpStatus: number;
  /** grpc-status; undefined when the server sent none (a reset stream). */
  code: number | undefined;
  message: string;
}

/** One length-prefixed gRPC message: flag byte (1 = compressed), 4-byte big-endian length, the bytes. */
export function grpcFrame(message: Uint8Array, compressed = false): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt8(compressed ? 1 : 0, 0);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** A plaintext HTTP/2 connection to the gRPC server on 127.0.0.1:port; the caller closes it. */
export function rawGrpcSession(port: number): ClientHttp2Session {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  return session;
}

/** POSTs `body` (frames, or any bytes) to `path` (`/flipt.Flipt/GetFlag`) with gRPC's headers and `headers`. */
export function rawGrpcCall(
  session: ClientHttp2Session,
  path: string,
  body: Uint8Array,
  headers: OutgoingHttpHeaders = {},
): Promise<RawGrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let httpStatus = 0;
    let status: { code: number | undefined; message: string } | undefined;
    const read = (fields: Record<string, unknown>) => {
      const code = fields['grpc-status'];
      if (code === undefined) return;
      status = { code: Number(code), message: decodeURIComponent(String(fields['grpc-message'] ?? '')) };
    };
    stream.on('response', (fields) => {
      httpStatus = Number(fields[':status']);
      read(fields);
    });
    stream.on('trailers', read);
    stream.on('data', () => {});
    stream.on('error', reject);
    stream.on('close', () => resolve({ httpStatus, code: status?.code, message: status?.message ?? '' }));
    stream.end(body);
  });
}
