// gRPC calls as raw HTTP/2 frames (node:http2), for what a gRPC library never sends but an attacker can:
// bytes that are not the method's message, a malformed `grpc-timeout`, a compressed flag with an encoding
// the server lacks, a truncated frame. Answers the HTTP status and the call's gRPC status and message,
// from the trailers or from a trailers-only answer's headers.

import { type ClientHttp2Session, connect, type OutgoingHttpHeaders } from 'node:http2';
import { connect as connectTcp } from 'node:net';
import { Duplex } from 'node:stream';

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

/**
 * POSTs `body` (frames, or any bytes) to `path` (`/flipt.Flipt/GetFlag`) with gRPC's headers and `headers`;
 * a list of pieces is written one DATA frame each, a turn apart (a message split across frames).
 */
export function rawGrpcCall(
  session: ClientHttp2Session,
  path: string,
  body: Uint8Array | readonly Uint8Array[],
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
    if (!Array.isArray(body)) return void stream.end(body);
    const pieces = [...(body as readonly Uint8Array[])];
    const next = () => {
      const piece = pieces.shift();
      if (piece === undefined) return void stream.end();
      stream.write(piece, () => setImmediate(next));
    };
    next();
  });
}

/** An HPACK integer with an n-bit prefix, after the prefix's flag bits (RFC 7541 5.1). */
function hpackInteger(value: number, prefixBits: number, flags: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const bytes = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

/** A header block of literal fields without indexing and without Huffman coding, repeats as given. */
function headerBlock(fields: readonly (readonly [string, string])[]): Buffer {
  const bytes: number[] = [];
  for (const [name, value] of fields) {
    bytes.push(0x00);
    for (const text of [name, value]) {
      const raw = Buffer.from(text, 'latin1');
      bytes.push(...hpackInteger(raw.length, 7, 0x00), ...raw);
    }
  }
  return Buffer.from(bytes);
}

/**
 * A call on a connection of its own whose headers are exactly `fields` after gRPC's own, repeats
 * included (Node's client refuses to send a second `authorization`): a Node client session over a
 * socket that swaps the header block of the client's HEADERS frame for one written here. The session
 * makes this one call, so the encoder state the swap bypasses is never used again.
 */
export function rawGrpcCallWithFields(
  port: number,
  path: string,
  body: Uint8Array,
  fields: readonly (readonly [string, string])[],
): Promise<RawGrpcAnswer> {
  const block = headerBlock([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', path],
    [':authority', `127.0.0.1:${port}`],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ...fields,
  ]);
  const tcp = connectTcp(port, '127.0.0.1');
  // Client bytes: the 24-byte preface, then frames (9-byte header: length 24 bits, type, flags, stream).
  let outgoing = Buffer.alloc(0);
  let prefaceLeft = 24;
  let swapped = false;
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      outgoing = Buffer.concat([outgoing, chunk]);
      if (prefaceLeft > 0) {
        const preface = outgoing.subarray(0, prefaceLeft);
        tcp.write(preface);
        prefaceLeft -= preface.length;
        outgoing = outgoing.subarray(preface.length);
      }
      while (prefaceLeft === 0 && outgoing.length >= 9) {
        const length = outgoing.readUIntBE(0, 3);
        if (outgoing.length < 9 + length) break;
        const frame = outgoing.subarray(0, 9 + length);
        outgoing = outgoing.subarray(9 + length);
        const HEADERS = 0x1;
        if (frame[3] === HEADERS && !swapped) {
          swapped = true;
          const head = Buffer.from(frame.subarray(0, 9));
          head.writeUIntBE(block.length, 0, 3);
          // END_STREAM and END_HEADERS kept; PADDED and PRIORITY dropped with the block they framed.
          head[4] = (head[4] as number) & 0x05;
          tcp.write(Buffer.concat([head, block]));
        } else {
          tcp.write(frame);
        }
      }
      callback();
    },
    final(callback) {
      tcp.end();
      callback();
    },
  });
  tcp.on('data', (data) => socket.push(data));
  tcp.on('end', () => socket.push(null));
  tcp.on('error', (err) => socket.destroy(err));
  const session = connect(`http://127.0.0.1:${port}`, { createConnection: () => socket });
  session.on('error', () => {});
  return rawGrpcCall(session, path, body).finally(() => {
    session.close();
    tcp.destroy();
  });
}
