// The gRPC side of a graceful drain. grpc-js's tryShutdown sends every connection GOAWAY and lets the
// calls in flight finish, but it also waits for streams that never end by themselves (Health/Watch,
// server streaming), so it cannot tell when the last call has been answered. This counts the calls
// that answer once (unary and client streaming) from their start to their status or cancellation;
// calls with a stream of answers are long-lived and not counted (they are ended by the drain).

import type { Server } from '@grpc/grpc-js';

export class GrpcCallDrain {
  #inFlight = 0;
  #onIdle: (() => void) | undefined;

  /**
   * Counts a call that answers once from its start (call it there) until the function it returns is
   * called (after its status was sent, or on cancellation). The telemetry interceptor calls it
   * (telemetry/grpc.ts `onCall`): an interceptor of its own would wrap every call in one more layer.
   */
  readonly observe = (descriptor: { responseStream: boolean }): (() => void) | undefined => {
    if (descriptor.responseStream) return undefined;
    this.#inFlight++;
    return () => {
      this.#inFlight--;
      if (this.#inFlight === 0) {
        const onIdle = this.#onIdle;
        this.#onIdle = undefined;
        onIdle?.();
      }
    };
  };

  /**
   * Resolves when every connection has closed after its GOAWAY (set by drain). A call's status is sent
   * when it is counted out, but its bytes leave a turn later: forcing the shutdown first would drop them.
   */
  closed: Promise<void> = Promise.resolve();

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Starts the drain of `server`: no new call is taken, every connection gets GOAWAY, calls in flight
   * go on. Resolves when none is left.
   */
  drain(server: Server): Promise<void> {
    this.closed = new Promise((resolve) => server.tryShutdown(() => resolve()));
    return new Promise((resolve) => {
      if (this.#inFlight === 0) return resolve();
      const previous = this.#onIdle;
      this.#onIdle = () => {
        previous?.();
        resolve();
      };
    });
  }
}
