// The gRPC server: grpc.health.v1.Health (Check and Watch), following the shared HealthState, server
// reflection (reflection.ts) of Flipt's packages (proto/) and, given the services, Flipt's services
// (flipt-services.ts). Messages up to 4 MiB are received, as in Flipt.

import { Server, ServerCredentials, type ServerInterceptor } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { GrpcTelemetry } from '../../telemetry/grpc.js';
import type { HealthState } from '../health-state.js';
import type { LongLivedStreams } from '../long-lived-streams.js';
import { screeningCalls } from './call-screening.js';
import { addChangeService, type WatchNamespaceRpc } from './change-service.js';
import { evaluationFastPath, type FastPath } from './evaluation-fast-path.js';
import { addFliptServices, type FliptServicesDeps } from './flipt-services.js';
import { fliptPackageDefinition } from './protos.js';
import { addReflection } from './reflection.js';
import { checkingRequests } from './request-decoding.js';
import { gateStreams, type StreamGate } from './stream-gate.js';

export interface GrpcServer {
  server: Server;
  /** The evaluation fast path, when it applies (evaluation-fast-path.ts). */
  fastPath: FastPath | undefined;
  listen(host: string, port: number): Promise<number>;
  close(): Promise<void>;
}

export interface GrpcServerOptions {
  /** Run around every call of every service (telemetry/grpc.ts: metrics, logs, spans). */
  interceptors?: ServerInterceptor[];
  /**
   * What the interceptors record, for the calls the evaluation fast path answers without them
   * (evaluation-fast-path.ts); absent: no fast path.
   */
  telemetry?: GrpcTelemetry;
  /** Connection limits in ms (Flipt's server.grpc_conn_*); 0 or absent: grpc-js's default (none). */
  connMaxIdleMs?: number;
  connMaxAgeMs?: number;
  connMaxAgeGraceMs?: number;
  /**
   * Send an HTTP/2 PING on every connection this often and drop a peer that leaves one unanswered
   * (for as long, between 5 and 20 s); 0 or absent: none. On while change streams are: a WatchNamespace
   * stream can stay silent for hours, and without pings a client that vanished (a dead network path,
   * not a closed socket) would hold its stream until the kernel gave up on the connection.
   */
  keepaliveMs?: number;
  /** Serve over TLS with this key and certificate chain (PEM), instead of plaintext. */
  tls?: { key: Buffer; cert: Buffer };
  /** Serve Flipt's services over these (absent: health only). */
  flipt?: FliptServicesDeps;
  /** Open long-lived streams, ended when a drain starts. */
  streams?: LongLivedStreams;
  /** WatchNamespace of vexil.changes.v1.ChangeService (features/event-streams); absent: UNIMPLEMENTED. */
  changes?: WatchNamespaceRpc;
}

/** Flipt's limit on a received message (grpc.MaxRecvMsgSize). */
export const MAX_RECEIVE_MESSAGE_BYTES = 4 * 1024 * 1024;

/** The longest Vexil waits for a keepalive PING's answer (grpc-go's and grpc-js's default timeout). */
const MAX_KEEPALIVE_TIMEOUT_MS = 20_000;
/**
 * The shortest: a short heartbeat must not make the answer's deadline short too, or a busy client
 * (a paused event loop, a GC) that answers one PING late loses its connection and every call on it.
 */
const MIN_KEEPALIVE_TIMEOUT_MS = 5_000;

/** grpc-js channel options for the connection limits and keepalive that are set. */
export function connectionLimits(options: GrpcServerOptions): Record<string, number> {
  const limits: Record<string, number> = {};
  if (options.connMaxIdleMs) limits['grpc.max_connection_idle_ms'] = options.connMaxIdleMs;
  if (options.connMaxAgeMs) limits['grpc.max_connection_age_ms'] = options.connMaxAgeMs;
  if (options.connMaxAgeGraceMs) limits['grpc.max_connection_age_grace_ms'] = options.connMaxAgeGraceMs;
  if (options.keepaliveMs) {
    limits['grpc.keepalive_time_ms'] = options.keepaliveMs;
    limits['grpc.keepalive_timeout_ms'] = Math.min(
      Math.max(options.keepaliveMs, MIN_KEEPALIVE_TIMEOUT_MS),
      MAX_KEEPALIVE_TIMEOUT_MS,
    );
  }
  return limits;
}

export function buildGrpcServer(health: HealthState, options: GrpcServerOptions = {}): GrpcServer {
  const server = new Server({
    interceptors: options.interceptors ?? [],
    'grpc.max_receive_message_length': MAX_RECEIVE_MESSAGE_BYTES,
    // Channelz (grpc-js's call and socket statistics for its introspection service, which Vexil does
    // not serve) is kept up to date on every call: off (docs/performance.md).
    'grpc.enable_channelz': 0,
    ...connectionLimits(options),
  });
  const healthService = new HealthImplementation({ '': health.status() });
  const setStatus = (status: 'SERVING' | 'NOT_SERVING') => {
    healthService.setStatus('', status);
    healthService.setStatus('flipt', status);
    healthService.setStatus('vexil', status);
  };
  setStatus(health.status());
  health.onChange(setStatus);
  // The library services' handlers do not check for malformed requests themselves (request-decoding.ts).
  const checking = checkingRequests(server);
  healthService.addToServer(checking as Server);
  addReflection(checking, fliptPackageDefinition());
  let fastPath: FastPath | undefined;
  if (options.flipt) {
    const methods = addFliptServices(server, options.flipt);
    addChangeService(server, options.flipt, options.changes);
    // grpc-js's idle limit counts the streams it handles: with one set, every call stays with it.
    if (options.telemetry && !options.connMaxIdleMs) {
      fastPath = evaluationFastPath(methods, options.flipt, options.telemetry, MAX_RECEIVE_MESSAGE_BYTES);
    }
  }

  const screening = screeningCalls(MAX_RECEIVE_MESSAGE_BYTES);
  const fast = fastPath?.gate;
  const gate: StreamGate =
    fast === undefined
      ? screening
      : (stream, headers, rawHeaders) => screening(stream, headers, rawHeaders) || fast(stream, headers, rawHeaders);

  return {
    server,
    fastPath,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        server.bindAsync(
          `${host.includes(':') ? `[${host}]` : host}:${port}`,
          options.tls
            ? ServerCredentials.createSsl(null, [{ private_key: options.tls.key, cert_chain: options.tls.cert }])
            : ServerCredentials.createInsecure(),
          (err, bound) => {
            if (err) return reject(err);
            try {
              // Bad input grpc-js would answer INTERNAL is answered before it builds its call (ADR 0032).
              gateStreams(server, gate);
              resolve(bound);
            } catch (gateFault) {
              reject(gateFault);
            }
          },
        );
      }),
    close: () =>
      new Promise((resolve) => {
        server.tryShutdown(() => resolve());
        // Streams such as Health/Watch never end by themselves: force them after a grace period.
        setTimeout(() => server.forceShutdown(), 2_000).unref();
      }),
  };
}
