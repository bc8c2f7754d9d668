// The real program, as a user runs it: start, health over HTTP and gRPC, write, SIGTERM, restart on
// the same data file, read back; a diagnostic signal that does not stop it; `vexil migrate`; one-line
// failures.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { grpcHealthCheck } from '../helpers/grpc.js';
import { runVexil, startVexil } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'vexil-program-'));
const dbUrl = `file:${join(dir, 'vexil.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each test starts the program one to three times in a row: on a loaded machine one start can take 10 s.
describe('the vexil program', { timeout: 120_000 }, () => {
  it('serves, answers health on HTTP and gRPC, stops on SIGTERM and keeps its data', async () => {
    const first = await startVexil({ VEXIL_DB_URL: dbUrl });
    try {
      expect(await (await fetch(`${first.baseUrl}/health`)).json()).toEqual({ status: 'SERVING' });
      expect(await grpcHealthCheck(first.grpcPort)).toMatchObject({ status: 'SERVING' });
      const created = await fetch(`${first.baseUrl}/api/v1/namespaces/default/flags`, {
        method: 'POST',
        body: JSON.stringify({ key: 'persisted', name: 'Persisted', enabled: true }),
      });
      expect(created.status).toBe(200);
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0);
    }

    const second = await startVexil({ VEXIL_DB_URL: dbUrl });
    try {
      const flag = await (await fetch(`${second.baseUrl}/api/v1/namespaces/default/flags/persisted`)).json();
      expect(flag).toMatchObject({ key: 'persisted', name: 'Persisted', enabled: true });
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
  });

  it('answers SIGUSR2 with a diagnostic report and keeps serving when reports on signal are on', async () => {
    const reports = mkdtempSync(join(dir, 'reports-'));
    const vexil = await startVexil({ VEXIL_DB_URL: `file:${join(dir, 'reports.db')}` }, ['serve'], {
      nodeArgs: ['--report-on-signal', '--report-directory', reports],
    });
    try {
      vexil.process.kill('SIGUSR2');
      const deadline = Date.now() + 20_000;
      while (readdirSync(reports).filter((f) => f.endsWith('.json')).length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(readdirSync(reports).some((f) => f.startsWith('report.') && f.endsWith('.json'))).toBe(true);
      // Still serving after the report, and a signal later still stops it gracefully.
      await new Promise((r) => setTimeout(r, 300));
      expect(vexil.process.exitCode).toBeNull();
      expect(await (await fetch(`${vexil.baseUrl}/health`)).json()).toEqual({ status: 'SERVING' });
    } finally {
      expect(await vexil.stop('SIGTERM')).toBe(0);
    }
  });

  it('migrates with `vexil migrate`, and a second run is a no-op', () => {
    const url = `file:${join(dir, 'migrate.db')}`;
    const firstRun = runVexil(['migrate'], { VEXIL_DB_URL: url });
    expect(firstRun.status).toBe(0);
    expect(firstRun.stdout).toContain('applied: 001-initial-schema');
    const secondRun = runVexil(['migrate'], { VEXIL_DB_URL: url });
    expect(secondRun.status).toBe(0);
    expect(secondRun.stdout.trim()).toBe('database is up to date');
  });

  it('fails with one clear line and exit code 1 on a bad config', () => {
    const file = join(dir, 'bad.yml');
    writeFileSync(file, 'server:\n  http_port: "eighty"\n');
    const bad = runVexil(['--config', file, 'config', 'validate']);
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^vexil: invalid config at server\.http_port/);

    const unknownScheme = runVexil(['serve'], { VEXIL_DB_URL: 'oracle://x' });
    expect(unknownScheme.status).toBe(1);
    expect(unknownScheme.stderr.trim()).toBe('vexil: unknown database driver for: "oracle"');
  });

  it('refuses a setting it cannot honour with the same line at start and in `config validate`', () => {
    const file = join(dir, 'authorization.yml');
    writeFileSync(file, 'authentication:\n  required: true\nauthorization:\n  required: true\n  backend: local\n');
    const line =
      'vexil: invalid config at authorization.required: OPA authorization policies are not supported, so every ' +
      'valid token would keep full access (set it to false or remove it)';
    const env = { VEXIL_DB_URL: `file:${join(dir, 'refused.db')}` };
    for (const args of [['config', 'validate'], ['serve']]) {
      const res = runVexil(['--config', file, ...args], env);
      expect(res.status).toBe(1);
      expect(res.stderr.trim()).toBe(line);
    }
    writeFileSync(file, 'authorization:\n  required: false\n  backend: local\n');
    expect(runVexil(['--config', file, 'config', 'validate'], env).stdout.trim()).toBe('config is valid');
  });

  it('fails with one clear line when the database stays unreachable', () => {
    const res = runVexil(['serve'], {
      VEXIL_DB_URL: 'postgres://postgres@127.0.0.1:1/none',
      VEXIL_DB_CONNECT_TIMEOUT: '1s',
      VEXIL_LOG_LEVEL: 'error',
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^vexil: database unreachable/);
  });

  it('prints its version and help', () => {
    expect(runVexil(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = runVexil(['--help']).stdout;
    for (const command of ['serve', 'migrate', 'config']) expect(help).toContain(command);
  });
});
