// `vexil import` and `vexil export` through the real program: files, stdin, formats, one-line failures
// with the database unchanged, and --address against a running server with a token.

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withoutHeader } from '../helpers/documents.js';
import { runVexil, startVexil } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'vexil-documents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => new URL(`../fixtures/documents/${name}`, import.meta.url).pathname;
const HEADER = /^# exported by Vexil \(v[^)]+\) on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n\n/;

describe('vexil import and export', { timeout: 120_000 }, () => {
  const env = { VEXIL_DB_URL: `file:${join(dir, 'cli.db')}`, VEXIL_LOG_LEVEL: 'warn' };

  it('imports files, exports YAML to stdout and JSON by the output extension', () => {
    const imported = runVexil(['import', fixture('v1.2.yml'), fixture('v1.4.json')], env);
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    expect(imported.stdout).toBe(
      'created 3 namespaces, 5 flags, 4 segments; skipped 0 flags, 0 segments; dropped 0 namespaces\n',
    );

    // To stdout as Flipt writes it there: no header; `version` in the first document only.
    const yaml = runVexil(['export', '--namespaces', 'v12,v14'], env);
    expect(yaml.status).toBe(0);
    expect(yaml.stdout).toMatch(/^version: "1.4"\nnamespace:\n {2}key: v12\n/);
    expect(yaml.stdout).toContain('\n---\nnamespace:\n  key: v14\n');

    // To a file: the header line and a blank line first.
    const out = join(dir, 'all.json');
    expect(runVexil(['export', '--all-namespaces', '-o', out], env).status).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(HEADER);
    expect(withoutHeader(text).startsWith('{"version":"1.4","namespace":{"key":"default"')).toBe(true);
    expect(withoutHeader(text).split('\n').length).toBe(5); // four documents, one a line

    const forced = join(dir, 'forced.json');
    expect(runVexil(['export', '--format', 'yaml', '-o', forced], env).status).toBe(0);
    expect(withoutHeader(readFileSync(forced, 'utf8'))).toMatch(/^version: "1.4"\nnamespace:\n {2}key: default\n/);

    // Its own export of everything reads back into a fresh database, by stdin (JSON sniffed).
    const other = { ...env, VEXIL_DB_URL: `file:${join(dir, 'other.db')}` };
    const fromStdin = runVexil(['import', '--stdin', '--drop'], other, text);
    expect(fromStdin.stderr).toBe('');
    expect(fromStdin.status).toBe(0);
    const again = runVexil(['export', '--all-namespaces', '--format', 'json'], other);
    expect(again.stdout).toBe(withoutHeader(text));
  });

  it('a bad file: one line naming file, document, object and field; nothing written', () => {
    const before = runVexil(['export', '--all-namespaces'], env).stdout;
    const bad = join(dir, 'bad.yml');
    writeFileSync(
      bad,
      'namespace: fresh\nflags:\n  - key: colour\n    name: Colour\n    variants:\n      - key: blue\n    rules:\n      - segment: s\n        distributions:\n          - variant: blu\n            rollout: 100\nsegments:\n  - key: s\n    name: S\n',
    );
    const res = runVexil(['import', fixture('v1.0.yml'), bad], env);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe(
      `vexil: ${bad}: document 1: flags[0] (colour).rules[0].distributions[0] at line 10: variant "blu" not found for flag "colour"\n`,
    );
    expect(withoutHeader(runVexil(['export', '--all-namespaces'], env).stdout)).toBe(withoutHeader(before));
  });

  // Issue 42, item 5: the flag or segment by key as well as by index; in YAML the line too.
  it.each([
    [
      'a flag error, YAML',
      'keyed-flag.yml',
      'namespace: fresh\nflags:\n  - key: ok\n    name: OK\n  - key: pricing-page\n    name: Pricing\n    rules:\n      - segment: ""\n',
      'flags[1] (pricing-page).rules[0].segment at line 8: must not be empty',
    ],
    [
      'a segment error, YAML',
      'keyed-segment.yml',
      'namespace: fresh\nsegments:\n  - key: beta\n    name: Beta\n    constraints:\n      - {type: STRING_COMPARISON_TYPE, property: plan, operator: near, value: x}\n',
      'segments[0] (beta).constraints[0] at line 6: constraint operator "near" is not valid for type string',
    ],
    [
      'a flag error, JSON',
      'keyed-flag.json',
      '{"namespace": "fresh", "flags": [{"key": "ok", "name": "OK"}, {"key": "pricing-page", "name": "Pricing", "rules": [{"segment": ""}]}]}',
      'flags[1] (pricing-page).rules[0].segment: must not be empty',
    ],
    [
      'a segment error, JSON',
      'keyed-segment.json',
      '{"namespace": "fresh", "segments": [{"key": "beta", "name": "Beta", "constraints": [{"type": "STRING_COMPARISON_TYPE", "property": "plan", "operator": "near", "value": "x"}]}]}',
      'segments[0] (beta).constraints[0]: constraint operator "near" is not valid for type string',
    ],
  ])('%s: the error names the key (and the YAML line)', (_title, name, text, message) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    const res = runVexil(['import', file], env);
    expect([res.status, res.stderr]).toEqual([1, `vexil: ${file}: document 1: ${message}\n`]);
  });

  it('--dry-run prints what would be created, skipped and dropped', () => {
    const res = runVexil(['import', '--dry-run', '--skip-existing', fixture('v1.2.yml'), fixture('v1.1.yml')], env);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe(
      [
        'would create namespace v11',
        'would create flag v11/colour',
        'would create flag v11/dark-mode',
        'would create segment v11/internal',
        'would skip flag v12/checkout',
        'would skip flag v12/banner',
        'would skip segment v12/eu',
        'would skip segment v12/mobile',
        'dry run, nothing changed: created 1 namespaces, 2 flags, 1 segments; skipped 2 flags, 2 segments; dropped 0 namespaces',
        '',
      ].join('\n'),
    );
    expect(runVexil(['export', '--namespaces', 'v11'], env).stderr).toBe('vexil: namespace "v11" not found\n');
  });

  it('refuses what it cannot do, in one line', () => {
    expect(runVexil(['import'], env).stderr).toBe('vexil: give a file to import, or --stdin\n');
    expect(runVexil(['import', join(dir, 'missing.yml')], env).stderr).toBe(
      `vexil: cannot read ${join(dir, 'missing.yml')}: ENOENT\n`,
    );
    // Export reads a server over gRPC too (export-grpc.test.ts); an import over it could not be one transaction.
    const grpc = runVexil(['import', fixture('v1.2.yml'), '--address', 'grpc://127.0.0.1:9000'], env);
    expect(grpc.status).toBe(1);
    expect(grpc.stderr).toBe(
      "vexil: import --address takes http(s):// (Flipt's gRPC API has no import call, so an import over it could not be one transaction)\n",
    );
  });

  it('--address: imports into and exports from a running server with a token', async () => {
    const server = await startVexil({
      VEXIL_DB_URL: `file:${join(dir, 'server.db')}`,
      VEXIL_AUTHENTICATION_REQUIRED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'cli-secret',
    });
    try {
      const remote = ['--address', server.baseUrl, '--token', 'cli-secret'];
      const noToken = runVexil(['import', fixture('v1.3.yml'), '--address', server.baseUrl], env);
      expect(noToken.status).toBe(1);
      expect(noToken.stderr).toBe(`vexil: ${server.baseUrl} answered 401: request was not authenticated\n`);

      const copy = join(dir, 'copy.yml');
      copyFileSync(fixture('v1.3.yml'), copy);
      const imported = runVexil(['import', copy, fixture('v1.1.yml'), ...remote], env);
      expect(imported.stderr).toBe('');
      expect(imported.stdout).toBe(
        'created 2 namespaces, 4 flags, 3 segments; skipped 0 flags, 0 segments; dropped 0 namespaces\n',
      );
      const flag = await fetch(`${server.baseUrl}/api/v1/namespaces/v13/flags/theme`, {
        headers: { authorization: 'Bearer cli-secret' },
      });
      expect(await flag.json()).toMatchObject({ key: 'theme', defaultVariant: { key: 'dark' } });

      const remoteExport = runVexil(['export', '--namespaces', 'v13,v11', ...remote], env);
      expect(remoteExport.stderr).toBe('');
      // The same file as the server's database would give through the local command.
      const local = runVexil(['export', '--namespaces', 'v13,v11'], { VEXIL_DB_URL: `file:${join(dir, 'server.db')}` });
      expect(withoutHeader(remoteExport.stdout)).toBe(withoutHeader(local.stdout));
      const all = runVexil(['export', '--all-namespaces', '--sort-by-key', ...remote], env);
      expect(all.stdout).toContain('  key: v13\n');

      // A failing remote import leaves the server unchanged.
      const failed = runVexil(['import', copy, ...remote], env);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toBe(
        `vexil: ${server.baseUrl} answered 400: request body: document 1: flags[0] (theme).key: flag "v13/theme" is not unique\n`,
      );
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
