// Bad input over gRPC, sent as raw HTTP/2 frames the way an attacker would (a gRPC library never sends
// most of it), on every backend, with and without authentication required: bytes that are not the
// method's message answer INVALID_ARGUMENT on every kind of service (Flipt's unary services, the
// server-streaming change stream, the health service, reflection in its own error_response), never
// INTERNAL. Then random bytes to every unary method of every Flipt service (fast-check): whatever
// decodes reaches the handlers with odd values, and no answer is INTERNAL or UNKNOWN.
//
// A malformed `grpc-timeout`, a repeated `authorization` field and a compressed message that does not
// inflate are answered INVALID_ARGUMENT before grpc-js builds its call (docs/adr/0032-grpc-bad-input.md).
// Rows pinned to what grpc-js answers itself: an unknown encoding UNIMPLEMENTED (as the gRPC protocol
// says), a truncated or missing message UNIMPLEMENTED. A change in grpc-js that moves one of them fails
// its row, to be looked at.

import type { ClientHttp2Session } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { status as GrpcStatus } from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fliptServiceTables } from '../../src/api/grpc/flipt-services.js';
import { fliptGrpcObject } from '../../src/api/grpc/protos.js';
import { REPEATED_AUTHORIZATION } from '../../src/auth/credentials.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import {
  grpcFrame,
  type RawGrpcAnswer,
  rawGrpcCall,
  rawGrpcCallWithFields,
  rawGrpcSession,
} from '../helpers/raw-grpc.js';

const TOKEN = 'grpc-fuzz-token';

/** A GetFlagRequest {key: "f1"}: valid bytes, to show a row's fault is the only one. */
const VALID = Buffer.from([0x0a, 0x02, 0x66, 0x31]);
/**
 * Field 1 with a varint that never ends. (A string field that claims more bytes than follow is no
 * example: protobufjs reads what there is.)
 */
const TRUNCATED_FIELD = Buffer.from([0x08, 0xff]);
/** Field 100 with wire type 7, which does not exist. */
const BAD_WIRE_TYPE = Buffer.from([0xa7, 0x06, 0x01]);

const NOT_PROTOBUF = expect.stringMatching(/^request message is not valid protobuf: /);

interface Row {
  name: string;
  path: string;
  body: Buffer;
  headers?: Record<string, string>;
  /** Only with a token: a request that gets past authentication. */
  code: number;
  message?: unknown;
}

const ROWS: Row[] = [
  {
    name: 'a management read with a truncated field',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(TRUNCATED_FIELD),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a management write with a wire type that does not exist',
    path: '/flipt.Flipt/CreateFlag',
    body: grpcFrame(BAD_WIRE_TYPE),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'an evaluation with a truncated field',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(TRUNCATED_FIELD),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'an OFREP evaluation with a wire type that does not exist',
    path: '/flipt.ofrep.OFREPService/EvaluateFlag',
    body: grpcFrame(BAD_WIRE_TYPE),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a token creation with a truncated field',
    path: '/flipt.auth.AuthenticationMethodTokenService/CreateToken',
    body: grpcFrame(TRUNCATED_FIELD),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'the change stream (server streaming) with a truncated field',
    path: '/vexil.changes.v1.ChangeService/WatchNamespace',
    body: grpcFrame(TRUNCATED_FIELD),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a health check with a truncated field',
    path: '/grpc.health.v1.Health/Check',
    body: grpcFrame(TRUNCATED_FIELD),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'the compressed flag without an encoding, over bytes that are no message',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(TRUNCATED_FIELD, true),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a gzip message that inflates to bytes that are no message',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(gzipSync(TRUNCATED_FIELD), true),
    headers: { 'grpc-encoding': 'gzip' },
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a valid message (the rows above differ from it in their fault only)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(VALID),
    code: GrpcStatus.NOT_FOUND,
  },
  {
    name: 'an unknown encoding (grpc-js; UNIMPLEMENTED is what the gRPC protocol asks for)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(VALID, true),
    headers: { 'grpc-encoding': 'br' },
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'a truncated frame (grpc-js: no message received)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(VALID).subarray(0, 6),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'two messages to a unary method (grpc-js)',
    path: '/flipt.Flipt/GetFlag',
    body: Buffer.concat([grpcFrame(VALID), grpcFrame(VALID)]),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'a method that does not exist (grpc-js)',
    path: '/flipt.Flipt/NoSuchMethod',
    body: grpcFrame(VALID),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'a message over 4 MiB (grpc-js)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(Buffer.alloc(4 * 1024 * 1024 + 1)),
    code: GrpcStatus.RESOURCE_EXHAUSTED,
  },
  // The evaluation fast path reads the frames itself (api/grpc/evaluation-fast-path.ts): as grpc-js does.
  {
    name: 'a valid message to an evaluation (fast path: the rows below differ from it in their fault only)',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(VALID),
    code: GrpcStatus.NOT_FOUND,
  },
  {
    name: 'a truncated frame to an evaluation (fast path: no message received)',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(VALID).subarray(0, 6),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'two messages to an evaluation (fast path)',
    path: '/flipt.evaluation.EvaluationService/Variant',
    body: Buffer.concat([grpcFrame(VALID), grpcFrame(VALID)]),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'no bytes at all to an evaluation (fast path)',
    path: '/flipt.evaluation.EvaluationService/Batch',
    body: Buffer.alloc(0),
    code: GrpcStatus.UNIMPLEMENTED,
  },
  {
    name: 'a message over 4 MiB to an evaluation (fast path)',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(Buffer.alloc(4 * 1024 * 1024 + 1)),
    code: GrpcStatus.RESOURCE_EXHAUSTED,
  },
  {
    name: 'the compressed flag without an encoding to an evaluation, over bytes that are no message',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(TRUNCATED_FIELD, true),
    code: GrpcStatus.INVALID_ARGUMENT,
    message: NOT_PROTOBUF,
  },
  {
    name: 'a malformed grpc-timeout (answered before grpc-js reads it, ADR 0032)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(VALID),
    headers: { 'grpc-timeout': 'soon' },
    code: GrpcStatus.INVALID_ARGUMENT,
    message: 'invalid grpc-timeout value "soon"',
  },
  {
    name: 'a malformed grpc-timeout on an evaluation',
    path: '/flipt.evaluation.EvaluationService/Boolean',
    body: grpcFrame(VALID),
    headers: { 'grpc-timeout': '5 parsecs' },
    code: GrpcStatus.INVALID_ARGUMENT,
    message: 'invalid grpc-timeout value "5 parsecs"',
  },
  {
    name: 'a well-formed grpc-timeout (the row above differs from it in its value only)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(VALID),
    headers: { 'grpc-timeout': '5S' },
    code: GrpcStatus.NOT_FOUND,
  },
  {
    name: 'a gzip message that does not inflate (checked beside grpc-js, ADR 0032)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(TRUNCATED_FIELD, true),
    headers: { 'grpc-encoding': 'gzip' },
    code: GrpcStatus.INVALID_ARGUMENT,
    message: 'request message does not inflate (gzip)',
  },
  {
    name: 'a deflate message that does not inflate, on an evaluation',
    path: '/flipt.evaluation.EvaluationService/Variant',
    body: grpcFrame(TRUNCATED_FIELD, true),
    headers: { 'grpc-encoding': 'deflate' },
    code: GrpcStatus.INVALID_ARGUMENT,
    message: 'request message does not inflate (deflate)',
  },
  {
    name: 'a gzip message that inflates (grpc-js inflates it and answers)',
    path: '/flipt.Flipt/GetFlag',
    body: grpcFrame(gzipSync(VALID), true),
    headers: { 'grpc-encoding': 'gzip' },
    code: GrpcStatus.NOT_FOUND,
  },
];

/** Status codes that say the server failed, not the request. */
const SERVER_FAULTS = new Set<number>([GrpcStatus.UNKNOWN, GrpcStatus.INTERNAL]);

describeEachBackend('bad input over gRPC', (backend) => {
  describe.each([false, true])('authentication required: %s', (required) => {
    let t: TestApp;
    let session: ClientHttp2Session;
    let port: number;
    beforeAll(async () => {
      t = await startTestApp(backend, {
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
        ofrep: { event_streams: { enabled: true } },
        authentication: { required, methods: { token: { enabled: true, bootstrap: { token: TOKEN } } } },
      });
      port = (await t.app.listen()).grpcPort;
      session = rawGrpcSession(port);
    });
    afterAll(async () => {
      session?.close();
      await t?.close();
    });

    const send = (path: string, body: Buffer, headers: Record<string, string> = {}): Promise<RawGrpcAnswer> =>
      rawGrpcCall(session, path, body, { authorization: `Bearer ${TOKEN}`, ...headers });

    it.each(ROWS)('$name', async ({ path, body, headers, code, message }) => {
      const answer = await send(path, body, headers);
      expect(answer.httpStatus).toBe(200);
      expect({ code: answer.code, message: answer.message }).toEqual({ code, message: message ?? expect.any(String) });
    });

    it.each([
      { name: 'two authorization fields', path: '/flipt.Flipt/GetFlag', repeated: true },
      {
        name: 'two authorization fields on an evaluation',
        path: '/flipt.evaluation.EvaluationService/Boolean',
        repeated: true,
      },
      {
        name: 'one authorization field (the rows above differ in the repeat only)',
        path: '/flipt.Flipt/GetFlag',
        repeated: false,
      },
    ])('$name', async ({ path, repeated }) => {
      const fields: [string, string][] = [['authorization', `Bearer ${TOKEN}`]];
      if (repeated) fields.push(['authorization', 'Bearer someone-else']);
      const answer = await rawGrpcCallWithFields(port, path, grpcFrame(VALID), fields);
      expect({ code: answer.code, message: answer.message }).toEqual(
        repeated
          ? { code: GrpcStatus.INVALID_ARGUMENT, message: REPEATED_AUTHORIZATION }
          : { code: GrpcStatus.NOT_FOUND, message: expect.any(String) },
      );
    });

    it.each([
      { name: 'split inside the length prefix', at: 3 },
      { name: 'split inside the message', at: 7 },
    ])('a gzip message that does not inflate, its frame $name, answers INVALID_ARGUMENT', async ({ at }) => {
      const body = grpcFrame(Buffer.from('not gzip, and long enough to split'), true);
      const answer = await rawGrpcCall(session, '/flipt.Flipt/GetFlag', [body.subarray(0, at), body.subarray(at)], {
        authorization: `Bearer ${TOKEN}`,
        'grpc-encoding': 'gzip',
      });
      expect({ code: answer.code, message: answer.message }).toEqual({
        code: GrpcStatus.INVALID_ARGUMENT,
        message: 'request message does not inflate (gzip)',
      });
    });

    it.each([
      { name: 'split inside the length prefix', at: 3 },
      { name: 'split inside the message', at: 7 },
    ])('an evaluation whose frame is $name is read whole (fast path)', async ({ at }) => {
      const body = grpcFrame(VALID);
      const answer = await rawGrpcCall(
        session,
        '/flipt.evaluation.EvaluationService/Boolean',
        [body.subarray(0, at), body.subarray(at)],
        { authorization: `Bearer ${TOKEN}` },
      );
      expect({ code: answer.code, message: answer.message }).toEqual({
        code: GrpcStatus.NOT_FOUND,
        message: 'flag "default/" not found',
      });
    });

    it('a malformed message answers INVALID_ARGUMENT before authentication, as REST answers 400 for bad JSON', async () => {
      const answer = await rawGrpcCall(session, '/flipt.Flipt/GetFlag', grpcFrame(TRUNCATED_FIELD));
      expect(answer.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      const valid = await rawGrpcCall(session, '/flipt.Flipt/GetFlag', grpcFrame(VALID));
      expect(valid.code).toBe(required ? GrpcStatus.UNAUTHENTICATED : GrpcStatus.NOT_FOUND);
    });

    it('reflection answers a malformed request in its own error_response, and goes on serving', async () => {
      const path = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo';
      const answer = await send(path, Buffer.concat([grpcFrame(TRUNCATED_FIELD)]));
      expect(SERVER_FAULTS.has(answer.code as number), JSON.stringify(answer)).toBe(false);
    });

    it.skipIf(required)(
      'random bytes to every unary method: no answer is INTERNAL or UNKNOWN',
      async () => {
        const root = fliptGrpcObject() as unknown as Record<string, unknown>;
        const methods = Object.entries(fliptServiceTables(t.app.services, t.app.config)).flatMap(([service, rpcs]) => {
          let node: unknown = root;
          for (const part of service.split('.')) node = (node as Record<string, unknown>)[part];
          const definition = (node as { service: Record<string, { path: string }> }).service;
          return rpcs.map((rpc) => (definition[rpc.method] as { path: string }).path);
        });
        expect(methods.length).toBeGreaterThan(40);
        const codes = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...methods),
            fc.oneof(
              fc.uint8Array({ maxLength: 64 }),
              // Field 1..5 as a string, a varint or a nested message, so more of them decode.
              fc
                .array(
                  fc.tuple(
                    fc.integer({ min: 1, max: 6 }),
                    fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 300 })),
                  ),
                  { maxLength: 5 },
                )
                .map((fields) =>
                  Buffer.concat(
                    fields.map(([field, value]) =>
                      typeof value === 'number'
                        ? Buffer.from([(field << 3) | 0, value & 0x7f])
                        : Buffer.concat([
                            Buffer.from([(field << 3) | 2, Buffer.byteLength(value)]),
                            Buffer.from(value),
                          ]),
                    ),
                  ),
                ),
            ),
            async (path, bytes) => {
              const answer = await send(path, grpcFrame(bytes));
              codes.set(answer.code as number, (codes.get(answer.code as number) ?? 0) + 1);
              expect(answer.code, `${path} ${Buffer.from(bytes).toString('hex')}: ${answer.message}`).toBeDefined();
              expect(
                SERVER_FAULTS.has(answer.code as number),
                `${path} ${Buffer.from(bytes).toString('hex')}: ${answer.code} ${answer.message}`,
              ).toBe(false);
            },
          ),
          { numRuns: Number(process.env.FUZZ_RUNS ?? 2_000) },
        );
        // The bytes reached the handlers too: some calls were answered, some found nothing.
        expect(codes.get(GrpcStatus.INVALID_ARGUMENT)).toBeGreaterThan(10);
        expect(codes.get(GrpcStatus.OK) ?? 0).toBeGreaterThan(10);
      },
      300_000,
    );
  });
});
