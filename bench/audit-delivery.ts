// Audit webhook delivery throughput (issue 28): N change rows (default 1,000) are stored at once, and
// the time until a webhook receiver on 127.0.0.1 has all of them is measured, per backend. Each event
// is one signed POST and one fenced save of the sink's position. Backends: SQLite always; PostgreSQL
// and MySQL when VEXIL_TEST_POSTGRES_URL / VEXIL_TEST_MYSQL_URL give an admin URL.
//
//   npx tsx bench/audit-delivery.ts [changes]

import { loadavg } from 'node:os';
import pino from 'pino';
import { buildApp } from '../src/app/build-app.js';
import { loadConfig } from '../src/config/load.js';
import { flagState, insertChanges, Receiver, waitFor } from '../test/helpers/audit.js';
import { createTestDatabase, testBackends } from '../test/helpers/backends.js';
import { exitOnHelp } from './help.js';

exitOnHelp(import.meta.url);

const COUNT = Number(process.argv[2] ?? 1000);

for (const backend of testBackends()) {
  if (backend.skipReason) {
    console.log(`${backend.name}: skipped (${backend.skipReason})`);
    continue;
  }
  const receiver = new Receiver();
  await receiver.start();
  const database = await createTestDatabase(backend);
  const config = loadConfig({
    env: {},
    overrides: {
      db: { url: database.url },
      server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      audit: { sinks: { webhook: { enabled: true, url: receiver.url, signing_secret: 'bench' } } },
    },
  });
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) });
  await app.listen();
  const rows = Array.from({ length: COUNT }, (_, i) => ({
    resourceType: 'flag',
    resourceKey: `f-${i}`,
    action: 'created' as const,
    after: flagState(`f-${i}`),
  }));
  await app.db.kysely.transaction().execute((trx) => insertChanges(trx, rows));
  const started = performance.now();
  const cpu = process.cpuUsage();
  await waitFor('every event', () => receiver.received.length >= COUNT, 600_000);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(
    `${backend.name}: ${COUNT} events in ${seconds.toFixed(2)} s (${Math.round(COUNT / seconds)}/s), ` +
      `process CPU ${((used.user + used.system) / 1e6).toFixed(2)} s, load ${loadavg()[0]?.toFixed(2)}`,
  );
  await app.close();
  await database.drop();
  await receiver.stop();
}
