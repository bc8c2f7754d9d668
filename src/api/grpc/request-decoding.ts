// Request messages that are not valid protobuf answer INVALID_ARGUMENT, as a REST body that is not JSON
// answers 400. grpc-js decodes a request before any interceptor or handler sees it, and answers
// INTERNAL "Error deserializing request" when the method's decoder throws; so each method's decoder is
// wrapped here to return a MalformedRequest instead of throwing, and the handlers answer that with
// INVALID_ARGUMENT (rpc.ts and features/event-streams/watch-rpc.ts check for it themselves; the library services, health
// and reflection, are registered through `checkingRequests`). A valid message costs the try block
// around the decoder and, in the handler, one instanceof: nothing on the success path.
//
// What grpc-js answers before any decoder runs (a malformed `grpc-timeout`, a compressed message that
// does not inflate) is screened before grpc-js sees the call (call-screening.ts, ADR 0032); an unknown
// `grpc-encoding` answers UNIMPLEMENTED, as the gRPC protocol says.

import {
  status as GrpcStatus,
  type handleUnaryCall,
  type Server,
  type ServerWritableStream,
  type ServiceDefinition,
  type StatusObject,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** What a method's decoder returns for bytes that are not its request message. */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/** The status a malformed request answers with, or undefined for a decoded message. */
export function malformedRequestStatus(request: unknown): Pick<StatusObject, 'code' | 'details'> | undefined {
  if (!(request instanceof MalformedRequest)) return undefined;
  return { code: GrpcStatus.INVALID_ARGUMENT, details: `request message is not valid protobuf: ${request.reason}` };
}

/** A copy of `definition` whose decoders return a MalformedRequest where the original throws. */
export function decodingSafely<T extends ServiceDefinition>(definition: T): T {
  const safe: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    const decode = method.requestDeserialize;
    safe[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return decode(bytes);
        } catch (err) {
          return new MalformedRequest(err instanceof Error ? err.message : String(err));
        }
      },
    };
  }
  return safe as T;
}

/**
 * A server facade for services whose handlers are not ours (grpc-health-check, @grpc/reflection): their
 * methods decode safely, and a unary or server-streaming call whose message is malformed is answered
 * INVALID_ARGUMENT before their handler runs. A streamed request message that is malformed reaches the
 * handler as a MalformedRequest with no request fields (reflection answers it in its own error_response).
 */
export function checkingRequests(server: Pick<Server, 'addService'>): Pick<Server, 'addService'> {
  return {
    addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
      const checked: UntypedServiceImplementation = { ...implementation };
      for (const [name, method] of Object.entries(definition)) {
        const key = name in implementation ? name : method.originalName;
        const handler = key === undefined ? undefined : implementation[key];
        if (key === undefined || handler === undefined || method.requestStream) continue;
        checked[key] = method.responseStream
          ? checkStreaming(handler as (call: ServerWritableStream<unknown, unknown>) => void)
          : checkUnary(handler as handleUnaryCall<unknown, unknown>);
      }
      server.addService(decodingSafely(definition), checked);
    },
  };
}

function checkUnary(handler: handleUnaryCall<unknown, unknown>): UntypedHandleCall {
  const checked: handleUnaryCall<unknown, unknown> = (call, callback) => {
    const malformed = malformedRequestStatus(call.request);
    if (malformed) return callback(malformed);
    handler(call, callback);
  };
  return checked;
}

function checkStreaming(handler: (call: ServerWritableStream<unknown, unknown>) => void): UntypedHandleCall {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const malformed = malformedRequestStatus(call.request);
    if (malformed) {
      call.emit('error', malformed);
      return;
    }
    handler(call);
  };
}
