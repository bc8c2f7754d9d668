// A real Vexil server listening on a free local port (SQLite in a temp file), for the tests that drive
// it with the official client packages over HTTP.

import { startTestApp, type TestApp } from '../helpers/app.js';
import { testBackends } from '../helpers/backends.js';
import { fetchHttp, type Http, Seeder } from '../integration/evaluation-seed.js';

export interface ListeningServer {
  test: TestApp;
  baseUrl: string;
  http: Http;
  seeder(namespace?: string): Seeder;
  close(): Promise<void>;
}

export async function startListeningServer(overrides: Record<string, unknown> = {}): Promise<ListeningServer> {
  const sqlite = testBackends({}).find((b) => b.name === 'sqlite');
  if (!sqlite) throw new Error('sqlite backend missing');
  const test = await startTestApp(sqlite, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 }, ...overrides });
  const { httpPort } = await test.app.listen();
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const http = fetchHttp(baseUrl);
  return {
    test,
    baseUrl,
    http,
    seeder: (namespace = 'default') => new Seeder(http, namespace),
    close: () => test.close(),
  };
}
