// The `audit` section as Flipt reads it: defaults, and the refusals at start (one line each): sinks
// Vexil does not build (kafka, cloud) when enabled, a webhook with both or neither of url and templates,
// Flipt's buffer ranges, unknown event pairs, template bodies outside the supported subset. `vexil
// config validate` says the same line, and a program that starts with such a config exits 1.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { buildAuditSinks } from '../../src/features/audit/index.js';
import { runVexil } from '../helpers/process.js';

function load(audit: Record<string, unknown>) {
  return loadConfig({ env: {}, overrides: { audit } });
}

function refusal(audit: Record<string, unknown>): string {
  try {
    load(audit);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('audit config', () => {
  it("has Flipt's defaults", () => {
    const { audit } = load({});
    expect(audit).toEqual({
      sinks: {
        log: { enabled: false, file: '', encoding: '' },
        webhook: { enabled: false, url: '', signing_secret: '', max_backoff_duration: '15s', templates: [] },
      },
      events: ['*:*'],
      buffer: { capacity: 2, flush_period: '2m' },
      retention: '2160h',
    });
  });

  it('accepts a Flipt config with every sink Vexil builds', () => {
    const audit = load({
      sinks: {
        log: { enabled: true, file: '/tmp/audit.log', encoding: 'json' },
        webhook: { enabled: true, url: 'https://hooks.example/x', signing_secret: 's', max_backoff_duration: '1m' },
        kafka: { enabled: false, topic: 't', bootstrap_servers: ['k:9092'] },
      },
      events: ['flag:*', '*:deleted'],
      buffer: { capacity: 10, flush_period: '5m' },
      retention: '720h',
    }).audit;
    expect(audit.sinks.webhook.url).toBe('https://hooks.example/x');
  });

  it.each([
    [
      { sinks: { kafka: { enabled: true, topic: 't', bootstrap_servers: ['k:9092'] } } },
      'audit.sinks.kafka: the kafka sink is not available',
    ],
    [{ sinks: { cloud: { enabled: true } } }, 'audit.sinks.cloud: the cloud sink is not available'],
    [
      {
        sinks: {
          webhook: { enabled: true, url: 'http://a.example', templates: [{ url: 'http://b.example', body: '{}' }] },
        },
      },
      'audit.sinks.webhook: only one of url or template(s) allowed',
    ],
    [{ sinks: { webhook: { enabled: true } } }, 'audit.sinks.webhook: url or template(s) not provided'],
    [{ sinks: { webhook: { enabled: true, url: 'not a url' } } }, 'audit.sinks.webhook.url: "not a url" is not a URL'],
    [{ buffer: { capacity: 1 } }, 'audit.buffer.capacity: 1 is below 2 or above 10'],
    [{ buffer: { capacity: 11 } }, 'audit.buffer.capacity: 11 is below 2 or above 10'],
    [
      { buffer: { flush_period: '1m' } },
      'audit.buffer.flush_period: "1m" is below 2 minutes or greater than 5 minutes',
    ],
    [
      { buffer: { flush_period: '6m' } },
      'audit.buffer.flush_period: "6m" is below 2 minutes or greater than 5 minutes',
    ],
    [{ events: ['flag'] }, 'audit.events: "flag" is not a type:action pair'],
    [{ events: ['flags:*'] }, 'audit.events: "flags" in "flags:*" is not one of'],
    [{ events: ['flag:read'] }, 'audit.events: "read" in "flag:read" is not one of'],
    [{ sinks: { log: { encoding: 'xml' } } }, 'audit.sinks.log.encoding'],
    [{ sinks: { webhook: { max_backoff_duration: 'soon' } } }, 'audit.sinks.webhook.max_backoff_duration'],
  ])('refuses %j', (audit, message) => {
    const text = refusal(audit);
    expect(text).toContain(message);
    expect(text).not.toContain('\n');
  });

  it('refuses a template body outside the supported subset when the sinks are built, naming it', () => {
    const config = load({
      sinks: {
        webhook: {
          enabled: true,
          templates: [
            { url: 'http://127.0.0.1:1/ok', body: '{"t": "{{ .Type }}"}' },
            { url: 'http://127.0.0.1:1/bad', body: '{"t": "{{ printf "%s" .Type }}"}' },
          ],
        },
      },
    });
    const build = () => buildAuditSinks(config.audit, pino({ level: 'silent' }));
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      /^invalid config at audit\.sinks\.webhook\.templates\[1\]\.body: "printf" at offset \d+ is not supported/,
    );
  });

  it('`vexil config validate` and `vexil serve` refuse an enabled kafka sink, and validate a bad template, with one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vexil-audit-config-'));
    try {
      const file = join(dir, 'config.yml');
      writeFileSync(
        file,
        'audit:\n  sinks:\n    kafka:\n      enabled: true\n      topic: audit\n      bootstrap_servers: ["127.0.0.1:9092"]\n',
      );
      const line =
        'vexil: invalid config at audit.sinks.kafka: the kafka sink is not available in Vexil (use audit.sinks.webhook or audit.sinks.log)\n';
      const validate = runVexil(['--config', file, 'config', 'validate']);
      expect(validate.status).toBe(1);
      expect(validate.stderr).toBe(line);
      const serve = runVexil(['--config', file, 'serve'], { VEXIL_DB_URL: `file:${join(dir, 'v.db')}` });
      expect(serve.status).toBe(1);
      expect(serve.stderr).toBe(line);

      writeFileSync(
        file,
        'audit:\n  sinks:\n    webhook:\n      enabled: true\n      templates:\n        - url: http://127.0.0.1:1/x\n          body: \'{"t": "{{ with .Payload }}x{{ end }}"}\'\n',
      );
      const template = runVexil(['--config', file, 'config', 'validate']);
      expect(template.status).toBe(1);
      expect(template.stderr).toMatch(
        /^vexil: invalid config at audit\.sinks\.webhook\.templates\[0\]\.body: "with" at offset \d+ is not supported \(Vexil's templates support field access, toJson, if, else, range and end\)\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
