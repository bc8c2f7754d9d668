import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configLeaves, deprecatedKeysInUse, envName, loadConfig, ms, redactConfig } from './load.js';

function yamlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'vexil-config-')), 'config.yml');
  writeFileSync(file, text);
  return file;
}

describe('loadConfig', () => {
  it('has Flipt-like defaults', () => {
    const c = loadConfig({ env: {} });
    expect(c.server).toMatchObject({ host: '0.0.0.0', http_port: 8080, grpc_port: 9000, mode: 'all' });
    expect(c.db.url).toBe('file:./data/vexil.db');
    expect(c.authentication.methods.token.cleanup).toEqual({ interval: '1h', grace_period: '30m' });
    expect(c.cache).toMatchObject({ enabled: false, backend: 'memory', ttl: '60s' });
  });

  it('layers defaults < YAML < VEXIL_* env', () => {
    const file = yamlFile('server:\n  http_port: 9090\n  grpc_port: 9091\ndb:\n  url: file:/tmp/x.db\n');
    const c = loadConfig({ file, env: { VEXIL_SERVER_HTTP_PORT: '7070', VEXIL_AUTHENTICATION_REQUIRED: 'true' } });
    expect(c.server.http_port).toBe(7070);
    expect(c.server.grpc_port).toBe(9091);
    expect(c.db.url).toBe('file:/tmp/x.db');
    expect(c.authentication.required).toBe(true);
  });

  it('names every env var by one rule', () => {
    expect(envName(['db', 'url'])).toBe('VEXIL_DB_URL');
    expect(envName(['authentication', 'methods', 'token', 'bootstrap', 'token'])).toBe(
      'VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN',
    );
    const names = configLeaves().map((l) => envName(l.path));
    expect(names).toContain('VEXIL_SERVER_MODE');
    expect(new Set(names).size).toBe(names.length);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names the ${VAR} syntax of the YAML file
  it('substitutes ${VAR} values', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the YAML text itself holds a ${VAR} reference
    const file = yamlFile('db:\n  url: ${MY_DB}\n');
    expect(loadConfig({ file, env: { MY_DB: 'postgres://h/db' } }).db.url).toBe('postgres://h/db');
  });

  it('accepts Flipt sections it does not act on, and version 1.0', () => {
    const file = yamlFile('version: "1.0"\nui:\n  default_theme: dark\ncors:\n  enabled: true\n');
    expect(() => loadConfig({ file, env: {} })).not.toThrow();
  });

  it("accepts Flipt's log section: panic as fatal, grpc_level, and the keys of a line", () => {
    const file = yamlFile(
      'log:\n  level: PANIC\n  grpc_level: DEBUG\n  encoding: console\n  keys:\n    time: T\n    level: L\n    message: M\n',
    );
    const { log } = loadConfig({ file, env: {} });
    expect(log).toMatchObject({ level: 'fatal', grpc_level: 'debug', encoding: 'console' });
    expect(log.keys).toEqual({ time: 'T', level: 'L', message: 'M' });
    const defaults = loadConfig({ env: {} }).log;
    expect(defaults.grpc_level).toBe('error');
    expect(defaults.keys).toEqual({ time: 'time', level: 'level', message: 'msg' });
    expect(loadConfig({ env: { VEXIL_LOG_KEYS_MESSAGE: 'message' } }).log.keys.message).toBe('message');
    expect(() => loadConfig({ file: yamlFile('log:\n  keys:\n    time: ""\n'), env: {} })).toThrow(/log\.keys\.time/);
  });

  it("accepts Flipt's server keys; https needs a certificate and its key", () => {
    const file = yamlFile(
      'server:\n  protocol: http\n  https_port: 8443\n  cert_file: /etc/flipt/cert.pem\n  cert_key: /etc/flipt/key.pem\n' +
        '  grpc_conn_max_idle_time: 5m\n  grpc_conn_max_age: 1h\n  grpc_conn_max_age_grace: 30s\n',
    );
    const { server } = loadConfig({ file, env: {} });
    expect(server).toMatchObject({ protocol: 'http', https_port: 8443, grpc_conn_max_age: '1h' });
    expect(loadConfig({ env: {} }).server.grpc_conn_max_idle_time).toBe('0');
    expect(() => loadConfig({ env: { VEXIL_SERVER_PROTOCOL: 'https' } })).toThrow(
      /server\.cert_file: required with https/,
    );
    const https = loadConfig({ file, env: { VEXIL_SERVER_PROTOCOL: 'https' } }).server;
    expect(https).toMatchObject({
      protocol: 'https',
      cert_file: '/etc/flipt/cert.pem',
      cert_key: '/etc/flipt/key.pem',
    });
    expect(() => loadConfig({ env: { VEXIL_SERVER_GRPC_CONN_MAX_AGE: 'forever' } })).toThrow(/not a duration/);
  });

  it("accepts Flipt's tracing.propagators, from YAML or as a list in one variable", () => {
    expect(loadConfig({ env: {} }).tracing.propagators).toEqual(['tracecontext', 'baggage']);
    const file = yamlFile('tracing:\n  propagators: [baggage]\n');
    expect(loadConfig({ file, env: {} }).tracing.propagators).toEqual(['baggage']);
    const env = { VEXIL_TRACING_PROPAGATORS: 'tracecontext, baggage none' };
    expect(loadConfig({ env }).tracing.propagators).toEqual(['tracecontext', 'baggage', 'none']);
    expect(() => loadConfig({ env: { VEXIL_TRACING_PROPAGATORS: 'tracecontext,b3' } })).toThrow(
      /tracing\.propagators\.1: "b3" is not one of "tracecontext", "baggage", "none"/,
    );
  });

  it("reads Flipt's deprecated cache.memory.enabled and .expiration as cache.enabled and cache.ttl", () => {
    const file = yamlFile('cache:\n  memory:\n    enabled: true\n    expiration: 5m\n');
    const config = loadConfig({ file, env: {} });
    expect(config.cache).toMatchObject({ enabled: true, backend: 'memory', ttl: '5m' });
    expect(deprecatedKeysInUse(config)).toEqual([
      'cache.memory.enabled (use cache.enabled and cache.backend)',
      'cache.memory.expiration (use cache.ttl)',
    ]);
    // The current keys win when both are set.
    const both = loadConfig({ file, env: { VEXIL_CACHE_ENABLED: 'false', VEXIL_CACHE_TTL: '30s' } });
    expect(both.cache).toMatchObject({ enabled: false, ttl: '30s' });
    expect(deprecatedKeysInUse(loadConfig({ env: {} }))).toEqual([]);
    expect(() => loadConfig({ env: { VEXIL_CACHE_MEMORY_EXPIRATION: 'soon' } })).toThrow(
      /cache\.memory\.expiration: "soon" is not a duration/,
    );
  });

  it("builds db.url from Flipt's protocol, host, port, name, user and password", () => {
    const file = yamlFile(
      'db:\n  protocol: postgres\n  host: db.internal\n  port: 5433\n  name: flags\n  user: flipt\n' +
        '  password: "p@ss:w/rd%"\n  prepared_statements_enabled: false\n',
    );
    const config = loadConfig({ file, env: {} });
    expect(config.db.url).toBe('postgres://flipt:p%40ss%3Aw%2Frd%25@db.internal:5433/flags');
    const url = new URL(config.db.url);
    expect(decodeURIComponent(url.password)).toBe('p@ss:w/rd%');
    // The password shows in neither field of /meta/config.
    const shown = JSON.stringify(redactConfig(config));
    expect(shown).not.toContain('p%40ss');
    expect(shown).not.toContain('p@ss');

    const cockroach = loadConfig({
      env: { VEXIL_DB_PROTOCOL: 'cockroach', VEXIL_DB_HOST: 'crdb', VEXIL_DB_NAME: 'flipt', VEXIL_DB_USER: 'root' },
    });
    expect(cockroach.db.url).toBe('cockroachdb://root@crdb/flipt');
    const mysql = loadConfig({ env: { VEXIL_DB_PROTOCOL: 'mysql', VEXIL_DB_HOST: 'm', VEXIL_DB_NAME: 'f' } });
    expect(mysql.db.url).toBe('mysql://m/f');
    // As in Flipt, an explicit url wins over the parts; with neither, the default SQLite file.
    expect(loadConfig({ env: { VEXIL_DB_URL: 'file:x.db', VEXIL_DB_HOST: 'ignored' } }).db.url).toBe('file:x.db');
    expect(loadConfig({ env: {} }).db.url).toBe('file:./data/vexil.db');
  });

  it.each([
    [{ VEXIL_DB_HOST: 'db' }, /db\.protocol: required when db\.url is not set/],
    [{ VEXIL_DB_PROTOCOL: 'postgres', VEXIL_DB_NAME: 'f' }, /db\.host: required/],
    [{ VEXIL_DB_PROTOCOL: 'postgres', VEXIL_DB_HOST: 'db' }, /db\.name: required/],
    [{ VEXIL_DB_PROTOCOL: 'sqlite', VEXIL_DB_HOST: 'h', VEXIL_DB_NAME: 'f' }, /SQLite is named by db\.url/],
    [{ VEXIL_DB_PROTOCOL: 'postgres', VEXIL_DB_HOST: 'a b', VEXIL_DB_NAME: 'f' }, /db\.host: "a b" is not a host name/],
  ])('rejects incomplete db parts %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it.each([
    ['server:\n  http_port: eighty\n', /server\.http_port/],
    ['server:\n  nope: 1\n', /unknown key\(s\) nope/],
    ['cache:\n  ttl: soon\n', /cache\.ttl: "soon" is not a duration/],
    ['version: "2.0"\n', /version "2.0" is not supported/],
    ['metrics:\n  exporter: otlp\n', /metrics\.exporter: "otlp" is not one of "prometheus"$/],
    ['log:\n  encoding: text\n', /log\.encoding: "text" is not one of "json", "console"$/],
    ['server: [1, 2\n', /not valid YAML/],
  ])('rejects %j with one clear message', (text, message) => {
    expect(() => loadConfig({ file: yamlFile(text), env: {} })).toThrow(message);
  });

  it('rejects bad env values and missing files', () => {
    expect(() => loadConfig({ env: { VEXIL_CACHE_ENABLED: 'maybe' } })).toThrow(ConfigError);
    expect(() => loadConfig({ file: '/nonexistent/vexil.yml', env: {} })).toThrow(/cannot read config file/);
  });

  it('parses durations', () => {
    expect(ms('1h30m')).toBe(5_400_000);
    expect(ms('250ms')).toBe(250);
    expect(ms('0')).toBe(0);
  });

  it('redacts secrets', () => {
    const c = loadConfig({
      env: {
        VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 'secret-token',
        VEXIL_CACHE_REDIS_PASSWORD: 'pw',
        VEXIL_DB_URL: 'postgres://user:hunter2@h/db',
      },
    });
    const text = JSON.stringify(redactConfig(c));
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('"pw"');
  });
});
