// vexil.changes.v1.ChangeService (proto/vexil/changes/v1/changes.proto), Vexil's gRPC extension:
// registered always, answered by the change stream feature (features/event-streams/watch-rpc.ts) when
// ofrep.event_streams is on and UNIMPLEMENTED otherwise. The call is authenticated as the unary RPCs
// are (rpc.ts, kind `change-stream`), from the entry below.

import {
  status as GrpcStatus,
  type Server,
  type ServerWritableStream,
  type ServiceClientConstructor,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { errorStatus } from '../error-status.js';
import { fliptGrpcObject } from './protos.js';
import { decodingSafely } from './request-decoding.js';
import { type AnyRpc, type RpcDeps, RpcError } from './rpc.js';

/** The service's one entry, as the unary tables hold theirs: authentication reads its kind and access. */
export const WATCH_ENTRY: AnyRpc = {
  method: 'WatchNamespace',
  kind: 'change-stream',
  access: { resource: 'stream', action: 'watch', namespace: 'request' },
  handle: () => undefined,
};

// biome-ignore lint/suspicious/noExplicitAny: the request and message shapes are the feature's
type WatchCall = ServerWritableStream<any, any>;

/** WatchNamespace's handler over the unary RPCs' dependencies (their authentication). */
export type WatchNamespaceRpc = (deps: RpcDeps) => (call: WatchCall) => void;

/** Ends a stream call with a gRPC status: an RpcError's own, any other error's as errorStatus maps it. */
export function failStream(call: WatchCall, err: unknown): void {
  const { code, message } = err instanceof RpcError ? { code: err.code, message: err.message } : errorStatus(err);
  call.emit('error', { code, details: message });
}

/** Registers vexil.changes.v1.ChangeService (UNIMPLEMENTED while change streams are off). */
export function addChangeService(server: Server, deps: RpcDeps, watch: WatchNamespaceRpc | undefined): void {
  const service = (
    fliptGrpcObject() as unknown as { vexil: { changes: { v1: { ChangeService: ServiceClientConstructor } } } }
  ).vexil.changes.v1.ChangeService.service;
  const off = (call: WatchCall) =>
    failStream(call, new RpcError(GrpcStatus.UNIMPLEMENTED, 'change streams are off (ofrep.event_streams.enabled)'));
  const implementation: UntypedServiceImplementation = { WatchNamespace: watch ? watch(deps) : off };
  server.addService(decodingSafely(service), implementation);
}
