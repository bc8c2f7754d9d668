// Import and export of a large document (issue 26): generates a namespace of N flags (default 10,000),
// each with 3 variants, 2 rules with distributions and 2 rollouts, over 100 segments of 2 constraints,
// writes it as YAML and JSON, then per backend times the import (parse + check + one transaction) into
// an empty database and the export back (read + write YAML), and checks that the export equals the
// document. Backends: SQLite always; PostgreSQL and MySQL when VEXIL_BENCH_POSTGRES_URL /
// VEXIL_BENCH_MYSQL_URL (or the VEXIL_TEST_* ones) give an admin URL (a database is created and dropped).
//
//   npx tsx bench/import-export.ts [flags]

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { migrateToLatest } from '../src/app/migrations.js';
import type { FlagContent, NamespaceContent, SegmentContent } from '../src/domain/namespace-content.js';
import { ChangeFeed } from '../src/services/changes.js';
import { serializeNamespaces } from '../src/services/documents/serialize.js';
import { ImportExportService, parseSources } from '../src/services/import-export.js';
import { openDb } from '../src/storage/db.js';
import { sqlDocumentStore } from '../src/storage/documents.js';
import { sqlNamespaceStore } from '../src/storage/namespaces.js';
import { sqlOperationLockStore } from '../src/storage/operation-lock.js';
import { exitOnHelp } from './help.js';

exitOnHelp(import.meta.url);

const FLAGS = Number(process.argv[2] ?? 10_000);
const SEGMENTS = 100;

function generate(): NamespaceContent {
  const segments: SegmentContent[] = [];
  for (let s = 0; s < SEGMENTS; s++) {
    segments.push({
      key: `segment-${s}`,
      name: `Segment ${s}`,
      description: `users of cohort ${s}`,
      matchType: s % 2 ? 'ANY_MATCH_TYPE' : 'ALL_MATCH_TYPE',
      constraints: [
        { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `plan-${s % 7}`, description: '' },
        { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: String(s % 60), description: 'age' },
      ],
    });
  }
  const flags: FlagContent[] = [];
  for (let i = 0; i < FLAGS; i++) {
    const seg = (k: number) => `segment-${(i * 7 + k) % SEGMENTS}`;
    flags.push({
      key: `flag-${i}`,
      name: `Flag ${i}`,
      description: `generated flag number ${i}`,
      enabled: i % 3 !== 0,
      type: i % 2 ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE',
      metadata: { team: `team-${i % 12}`, ticket: i },
      variants: ['control', 'treatment', 'holdout'].map((key, v) => ({
        key,
        name: key,
        description: '',
        attachment: v === 1 ? JSON.stringify({ colour: 'blue', size: i % 5, tags: ['a', 'b'] }) : '',
      })),
      defaultVariantKey: 'control',
      rules: [
        {
          rank: 1,
          segmentKeys: [seg(0)],
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          distributions: [
            { variantKey: 'control', rollout: 50 },
            { variantKey: 'treatment', rollout: 50 },
          ],
        },
        {
          rank: 2,
          segmentKeys: [seg(1), seg(2)],
          segmentOperator: 'AND_SEGMENT_OPERATOR',
          distributions: [
            { variantKey: 'control', rollout: 20 },
            { variantKey: 'treatment', rollout: 70 },
            { variantKey: 'holdout', rollout: 10 },
          ],
        },
      ],
      rollouts: [
        {
          rank: 1,
          description: 'cohort first',
          segment: { segmentKeys: [seg(3)], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
        },
        { rank: 2, description: '', threshold: { percentage: 25, value: true } },
      ],
    });
  }
  return { namespace: { key: 'bench', name: 'Bench', description: 'generated' }, flags, segments };
}

interface BenchDb {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function databases(): Promise<BenchDb[]> {
  const out: BenchDb[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'vexil-bench-import-'));
  out.push({
    name: 'sqlite',
    url: `file:${join(dir, 'bench.db')}`,
    drop: async () => rmSync(dir, { recursive: true }),
  });
  const name = `vexil_bench_${randomBytes(4).toString('hex')}`;
  const pgAdmin = process.env.VEXIL_BENCH_POSTGRES_URL ?? process.env.VEXIL_TEST_POSTGRES_URL;
  if (pgAdmin) {
    const client = new pg.Client({ connectionString: pgAdmin });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const url = new URL(pgAdmin);
    url.pathname = `/${name}`;
    out.push({
      name: 'postgres',
      url: url.toString(),
      drop: async () => {
        const c = new pg.Client({ connectionString: pgAdmin });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    });
  }
  const myAdmin = process.env.VEXIL_BENCH_MYSQL_URL ?? process.env.VEXIL_TEST_MYSQL_URL;
  if (myAdmin) {
    const conn = await mysql.createConnection(myAdmin);
    await conn.query(`create database ${name}`);
    await conn.end();
    const url = new URL(myAdmin);
    url.pathname = `/${name}`;
    out.push({
      name: 'mysql',
      url: url.toString(),
      drop: async () => {
        const c = await mysql.createConnection(myAdmin);
        await c.query(`drop database if exists ${name}`);
        await c.end();
      },
    });
  }
  return out;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const strip = (text: string) => text.replace(/^#[^\n]*\n\n?/, '');

/** Samples the heap every 20 ms while `work` runs (between its awaits); returns the result and the peak. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number; peakHeap: number }> {
  const cpu = process.cpuUsage();
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const started = performance.now();
  try {
    const value = await work();
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    const used = process.cpuUsage(cpu);
    return { value, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, peakHeap };
  } finally {
    clearInterval(timer);
  }
}

const content = generate();
const producer = 'Vexil (bench)';
const yaml = serializeNamespaces([content], { format: 'yaml', header: producer });
const json = serializeNamespaces([content], { format: 'json', header: producer });
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`,
);
console.log(`document: ${FLAGS} flags, ${SEGMENTS} segments; YAML ${mb(yaml.length)}, JSON ${mb(json.length)}`);
for (const [format, text] of [
  ['yaml', yaml],
  ['json', json],
] as const) {
  const parsed = await measured(async () => parseSources([{ name: `bench.${format}`, text, format }]));
  console.log(`parse + check ${format}: ${seconds(parsed.ms)} (heap peak ${mb(parsed.peakHeap)})`);
}

for (const target of await databases()) {
  const db = openDb({ url: target.url });
  try {
    await migrateToLatest(db.kysely, db.dialect);
    const service = new ImportExportService(
      { db: db.kysely, changes: new ChangeFeed() },
      sqlDocumentStore(db.dialect),
      sqlNamespaceStore,
      sqlOperationLockStore,
    );
    const imported = await measured(() => service.importSources([{ name: 'bench.yml', text: yaml, format: 'yaml' }]));
    const exported = await measured(() => service.export(['bench'], { format: 'yaml' }));
    const exportedJson = await measured(() => service.export(['bench'], { format: 'json' }));
    const same = strip(exported.value) === strip(yaml) && strip(exportedJson.value) === strip(json);
    console.log(
      `${target.name}: import ${seconds(imported.ms)} (this process's CPU ${seconds(imported.cpuMs)}, heap peak ${mb(imported.peakHeap)}), ` +
        `export yaml ${seconds(exported.ms)} (CPU ${seconds(exported.cpuMs)}, heap peak ${mb(exported.peakHeap)}), export json ${seconds(exportedJson.ms)}; ` +
        `round trip ${same ? 'identical' : 'DIFFERENT'}; rss ${mb(process.memoryUsage().rss)}`,
    );
    if (!same) process.exitCode = 1;
  } finally {
    await db.close();
    await target.drop();
  }
}
