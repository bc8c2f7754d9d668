// A test app listening on free loopback ports for HTTP and gRPC, with its base URL and a gRPC client:
// the set-up every authentication test repeated. Closing it closes the client, the app and its database.

import { type ConfigOverrides, startTestApp, type TestApp } from './app.js';
import type { Backend } from './backends.js';
import { FliptGrpc } from './flipt-grpc.js';

export interface ListeningApp {
  t: TestApp;
  base: string;
  grpc: FliptGrpc;
  /** The gRPC port, for clients of services FliptGrpc does not know (vexil.changes.v1). */
  grpcPort: number;
}

export async function startListeningApp(backend: Backend, overrides: ConfigOverrides): Promise<ListeningApp> {
  const app = await startTestApp(backend, { ...overrides, server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
  const ports = await app.app.listen();
  const grpc = new FliptGrpc(ports.grpcPort);
  const t: TestApp = {
    ...app,
    async close() {
      grpc.close();
      await app.close();
    },
  };
  return { t, base: `http://127.0.0.1:${ports.httpPort}`, grpc, grpcPort: ports.grpcPort };
}
