// A database server of the test's own, on a spare port, that the test may stop and start at will:
// a PostgreSQL 15 cluster (pg_createcluster, trust for 127.0.0.1) or a mariadbd with its own data
// directory. Never the shared servers other test files use.

import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { freePort } from './process.js';

const run = promisify(execFile);

export interface OwnDatabaseServer {
  /** URL of the database `vexil` on it. */
  url: string;
  /** Stops the server: PostgreSQL in fast mode (sessions terminated), MariaDB by SIGKILL (a crash). */
  stop(): Promise<void>;
  /** Starts it again and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

/** The program's path, or undefined when it is not installed (searched in PATH and the sbin folders). */
export function findProgram(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin:/usr/local/sbin" command -v ${name}`], {
    encoding: 'utf8',
  });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

async function until(what: string, ready: () => Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ready();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A PostgreSQL 15 cluster of its own, with the database `vexil`. */
export async function createOwnPostgres(): Promise<OwnDatabaseServer> {
  const name = `vexil_t_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const ctl = (action: string, ...extra: string[]) =>
    run('pg_ctlcluster', ['--skip-systemctl-redirect', ...extra, '15', name, action]);
  const removeCluster = () => run('pg_dropcluster', ['--stop', '15', name]).then(() => {});
  await run('pg_createcluster', ['15', name, '-p', String(port)]);
  const server: OwnDatabaseServer = {
    url: `postgres://postgres@127.0.0.1:${port}/vexil`,
    stop: () => ctl('stop', '-m', 'fast').then(() => {}),
    start: async () => {
      await ctl('start');
      await until('postgres start', async () => {
        const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
        client.on('error', () => {});
        await client.connect();
        await client.end();
      });
    },
    remove: removeCluster,
  };
  try {
    writeFileSync(`/etc/postgresql/15/${name}/pg_hba.conf`, 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    await server.start();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query('create database vexil');
    await admin.end();
    return server;
  } catch (err) {
    await removeCluster().catch(() => {});
    throw err;
  }
}

/** A mariadbd of its own (no grant tables: root without a password), with the database `vexil`. */
export async function createOwnMariadb(): Promise<OwnDatabaseServer> {
  const program = findProgram('mariadbd');
  if (!program) throw new Error('mariadbd is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'vexil-mariadb-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = [
    '--no-defaults',
    `--datadir=${dir}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--socket=${join(dir, 'mysqld.sock')}`,
    `--pid-file=${join(dir, 'mysqld.pid')}`,
    `--log-error=${join(dir, 'error.log')}`,
    '--user=root',
    '--skip-grant-tables',
    // Small: the test stores a few hundred rows.
    '--innodb-buffer-pool-size=32M',
    '--innodb-log-file-size=8M',
  ];
  const adminUrl = `mysql://root@127.0.0.1:${port}/`;
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  const server: OwnDatabaseServer = {
    url: `mysql://root@127.0.0.1:${port}/vexil`,
    stop: () => stop(),
    start: async () => {
      child = spawn(program, args, { stdio: 'ignore' });
      const started = child;
      await until('mariadbd start', async () => {
        if (started.exitCode !== null) throw new Error(`mariadbd exited with ${started.exitCode}`);
        const connection = await mysql.createConnection({ uri: adminUrl });
        await connection.end();
      });
    },
    remove: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
    const admin = await mysql.createConnection({ uri: adminUrl });
    await admin.query('create database vexil');
    await admin.end();
    // A server bootstrapped on an empty directory does not survive a SIGKILL before its first clean
    // shutdown (InnoDB's system tablespace is not yet on disk): shut down cleanly once.
    await stop('SIGTERM');
    await server.start();
    return server;
  } catch (err) {
    await server.remove().catch(() => {});
    throw err;
  }
}
