// When the evaluation fast path stands aside (ADR 0043): with tracing on, a call's span and its context
// around the handler are grpc-js's listener chain's, so every call goes to grpc-js.

import { describe, expect, it } from 'vitest';
import type { GrpcTelemetry } from '../../telemetry/grpc.js';
import { evaluationFastPath } from './evaluation-fast-path.js';
import type { RpcDeps } from './rpc.js';

const telemetry = (tracing: boolean) => ({ tracing: { enabled: tracing } }) as unknown as GrpcTelemetry;

describe('the evaluation fast path', () => {
  it.each([
    { tracing: true, present: false },
    { tracing: false, present: true },
  ])('tracing on: $tracing, fast path: $present', ({ tracing, present }) => {
    const fastPath = evaluationFastPath([], {} as RpcDeps, telemetry(tracing), 1024);
    expect(fastPath !== undefined).toBe(present);
  });
});
