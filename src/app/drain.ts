// A graceful drain of both transports, as Go's http.Server.Shutdown and grpc's GracefulStop do it:
// long-lived streams are ended first (they are not requests in flight and must not hold the exit),
// then HTTP and gRPC stop taking work and let what they have begun finish. Whatever is still running
// at the timeout is cut and counted. What the requests use (database, Redis) is closed by the caller,
// after this resolves.

import type { Server as GrpcServer } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { GrpcCallDrain } from '../api/grpc/call-drain.js';
import type { HttpDrain } from '../api/http/connection-drain.js';
import type { LongLivedStreams } from '../api/long-lived-streams.js';

/** How long connections may take to close by themselves once nothing is in flight. */
const FLUSH_GRACE_MS = 250;

export interface DrainParts {
  streams: LongLivedStreams;
  http: HttpDrain;
  grpcCalls: GrpcCallDrain;
  grpcServer: GrpcServer;
  logger: Logger;
}

/** What a drain had to cut at its timeout (both 0 when everything finished). */
export interface DrainOutcome {
  cutHttp: number;
  cutGrpc: number;
}

export async function drainTransports(parts: DrainParts, timeoutMs: number): Promise<DrainOutcome> {
  parts.streams.endAll();
  const finished = Promise.all([parts.http.drain(), parts.grpcCalls.drain(parts.grpcServer)]);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    finished.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  // The last answers' bytes leave while the connections close after their GOAWAY; one that stays open
  // (a stream such as Health/Watch) is forced after a short grace.
  if (!timedOut) {
    await Promise.race([parts.grpcCalls.closed, new Promise((resolve) => setTimeout(resolve, FLUSH_GRACE_MS))]);
  }
  const cutGrpc = timedOut ? parts.grpcCalls.inFlight : 0;
  // Also closes what is no request: connections whose request never finished arriving, streams.
  const cutHttp = parts.http.closeAll();
  parts.grpcServer.forceShutdown();
  if (cutHttp + cutGrpc > 0) {
    parts.logger.error({ cutHttp, cutGrpc, timeoutMs }, 'shutdown_timeout reached: requests cut');
  }
  return { cutHttp, cutGrpc };
}
