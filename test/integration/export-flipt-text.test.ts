// Documents imported from Flipt's export come out of our export as the same bytes (a file's header line
// aside), on every backend and every way out: the HTTP export route (bare, and with a file's header for
// a download), `vexil export` on the database (to stdout, and to a file with its header), and `vexil
// export --address` over HTTP and over gRPC (Vexil's gRPC API has no export call, as Flipt's has none). The
// fixtures (as-flipt-*) are our own documents as Flipt's exporter writes them — yaml.v2 and Go's JSON
// encoder wrote them (scripts/flipt-text-oracle) — holding three namespaces made in the order default, foo, bar.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportOptions, exportCommand } from '../../src/cli/documents.js';
import { loadConfig } from '../../src/config/load.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/documents/${name}`, import.meta.url), 'utf8');
const HEADER = /^# exported by Vexil \(v[^)]+\) on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n\n/;

type Format = 'yaml' | 'json';
const EXTENSION: Record<Format, string> = { yaml: 'yml', json: 'json' };

/** What is exported: the CLI's options, the HTTP route's query (the route has no list of namespaces). */
const SELECTIONS: [string, string, ExportOptions, string | undefined][] = [
  ['every namespace, in the order they were made', 'as-flipt-all', { allNamespaces: true }, 'all=true'],
  [
    'every namespace sorted by key: namespaces too',
    'as-flipt-all-sorted',
    { allNamespaces: true, sortByKey: true },
    'all=true&sort_by_key=true',
  ],
  ['a list of namespaces keeps its order', 'as-flipt-foo-default', { namespaces: 'foo,default' }, undefined],
];

describeEachBackend('export text as Flipt writes it', (backend) => {
  const dir = mkdtempSync(join(tmpdir(), 'vexil-flipt-text-'));
  let t: TestApp;
  let httpAddress: string;
  let grpcAddress: string;
  const config = () => loadConfig({ env: {}, overrides: { db: { url: t.database.url } } });

  beforeAll(async () => {
    t = await startTestApp(backend, { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } });
    const { httpPort, grpcPort } = await t.app.listen();
    httpAddress = `http://127.0.0.1:${httpPort}`;
    grpcAddress = `grpc://127.0.0.1:${grpcPort}`;
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/import',
      headers: { 'content-type': 'application/yaml' },
      payload: fixture('as-flipt-all.yml'),
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const WAYS: [string, (format: Format, options: ExportOptions, query: string | undefined) => Promise<string>][] = [
    [
      'the HTTP export route',
      async (format, _options, query) => {
        const res = await t.app.http.inject({
          method: 'GET',
          url: `/api/v1/namespaces/default/export?format=${format}&${query}`,
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.body;
      },
    ],
    [
      'the HTTP export route with header=true (a download from the dashboard): the header, then the same text',
      async (format, _options, query) => {
        const res = await t.app.http.inject({
          method: 'GET',
          url: `/api/v1/namespaces/default/export?format=${format}&${query}&header=true`,
        });
        expect(res.body).toMatch(HEADER);
        return res.body.replace(HEADER, '');
      },
    ],
    ['vexil export (database)', (format, options) => exportCommand(config, { ...options, format })],
    [
      'vexil export -o (database): the header line, a blank line, then the same text',
      async (format, options) => {
        const output = join(dir, `out-${Math.random().toString(36).slice(2)}.${EXTENSION[format]}`);
        expect(await exportCommand(config, { ...options, output })).toBe('');
        const text = readFileSync(output, 'utf8');
        expect(text).toMatch(HEADER);
        return text.replace(HEADER, '');
      },
    ],
    [
      'vexil export --address http://',
      (format, options) => exportCommand(config, { ...options, format, address: httpAddress }),
    ],
    [
      'vexil export --address grpc://',
      (format, options) => exportCommand(config, { ...options, format, address: grpcAddress }),
    ],
  ];

  describe.each(WAYS)('%s', (way, run) => {
    const rows = SELECTIONS.flatMap(([what, name, options, query]) =>
      (['yaml', 'json'] as const).map((format) => [`${what}, ${format}`, name, options, query, format] as const),
    ).filter(([, , , query]) => query !== undefined || !way.startsWith('the HTTP'));
    it.each(rows)('%s', async (_what, name, options, query, format) => {
      expect(await run(format, options, query)).toBe(fixture(`${name}.${EXTENSION[format]}`));
    });
  });

  it('the JSON fixture imported gives the same texts as the YAML one', async () => {
    const other = await startTestApp(backend);
    try {
      const res = await other.app.http.inject({
        method: 'POST',
        url: '/api/v1/import',
        headers: { 'content-type': 'application/json' },
        payload: fixture('as-flipt-all.json'),
      });
      expect(res.statusCode, res.body).toBe(200);
      for (const format of ['yaml', 'json'] as const) {
        const out = await other.app.http.inject({
          method: 'GET',
          url: `/api/v1/namespaces/default/export?all=true&format=${format}`,
        });
        expect(out.body).toBe(fixture(`as-flipt-all.${EXTENSION[format]}`));
      }
    } finally {
      await other.close();
    }
  });
});
