// A client of vexil.changes.v1.ChangeService built from our .proto with grpc-js, and one open
// WatchNamespace call as a test reads it: the changes received so far and how the call ended.

import {
  type ClientReadableStream,
  credentials,
  loadPackageDefinition,
  Metadata,
  type ServiceClientConstructor,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { PROTO_DIR } from '../../src/api/grpc/protos.js';

export interface Change {
  type: string;
  namespace_key: string;
  etag: string;
  last_modified: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a dynamically loaded client
export type ChangeClient = any;

export function changeClient(port: number): ChangeClient {
  const definition = loadSync('vexil/changes/v1/changes.proto', {
    keepCase: true,
    longs: Number,
    includeDirs: [PROTO_DIR],
  });
  const pkg = loadPackageDefinition(definition) as unknown as {
    vexil: { changes: { v1: { ChangeService: ServiceClientConstructor } } };
  };
  return new pkg.vexil.changes.v1.ChangeService(`127.0.0.1:${port}`, credentials.createInsecure());
}

export interface Watching {
  changes: Change[];
  /** Settles with the call's status: OK when the server ended it, else the error's code and details. */
  ended: Promise<{ code: number; details: string }>;
  until(n: number, timeoutMs?: number): Promise<void>;
  cancel(): void;
}

/** Opens WatchNamespace, sending `token` as `<scheme> <token>` when given (`JWT` for the JWT method). */
export function watch(
  client: ChangeClient,
  request: Record<string, string>,
  token?: string,
  scheme = 'Bearer',
): Watching {
  const metadata = new Metadata();
  if (token) metadata.set('authorization', `${scheme} ${token}`);
  const call: ClientReadableStream<Change> = client.WatchNamespace(request, metadata);
  const changes: Change[] = [];
  call.on('data', (change: Change) => changes.push(change));
  const ended = new Promise<{ code: number; details: string }>((resolve) => {
    call.on('error', (err: ServiceError) => resolve({ code: err.code, details: err.details }));
    call.on('status', (s) => {
      if (s.code === status.OK) resolve({ code: s.code, details: s.details });
    });
  });
  return {
    changes,
    ended,
    cancel: () => call.cancel(),
    until: async (n, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (changes.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} changes, got ${JSON.stringify(changes)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
