import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeRolesFile } from '../../test/helpers/readme-roles.js';
import { ConfigError, configLeaves, deprecatedKeysInUse, envName, loadConfig, ms, redactConfig } from './load.js';
import { CORS_DEFAULT_HEADERS } from './schema.js';

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

  // Flipt's keys whose being ignored would be harmless load unchanged; each one that would change who
  // may do what, or where data goes, is refused by name (issue 27).
  it('loads a Flipt config file with every section Vexil accepts without acting on it', () => {
    const file = yamlFile(
      [
        'ui:\n  enabled: false\n  default_theme: dark\n  topbar:\n    color: "#123456"\n    label: prod',
        'meta:\n  check_for_updates: false\n  telemetry_enabled: true\n  state_directory: /var/lib/flipt',
        'diagnostics:\n  profiling:\n    enabled: true',
        'analytics:\n  storage:\n    clickhouse:\n      enabled: false\n      url: clickhouse://u:pw@h:9000\n  buffer:\n    flush_period: 10s',
        'authorization:\n  required: false\n  backend: local\n  local:\n    policy:\n      path: /etc/policy.rego',
        'experimental: {}',
        'authentication:',
        '  session:\n    domain: flags.example.com\n    token_lifetime: 12h\n    state_lifetime: 5m',
        '    csrf:\n      key: abcdefghijklmnopqrstuvwxyz012345\n      secure: false\n      trusted_origins: [https://admin.example.com]',
        '  methods:\n    oidc:\n      enabled: false\n      providers:\n        google:\n          client_secret: s3cret',
        '    github:\n      enabled: false\n    kubernetes:\n      enabled: false\n    jwt:\n      enabled: false',
      ].join('\n'),
    );
    const config = loadConfig({ file, env: {} });
    expect(config.ui).toMatchObject({ enabled: false, default_theme: 'dark', topbar: { color: '#123456' } });
    expect(config.authentication.session.csrf).toEqual({
      key: 'abcdefghijklmnopqrstuvwxyz012345',
      secure: false,
      trusted_origins: ['https://admin.example.com'],
    });
    // Neither the ClickHouse password, the CSRF key, the policy nor the unused OIDC secret is shown.
    const shown = JSON.stringify(redactConfig(config));
    for (const secret of ['pw@h', 'abcdefghij', 'policy.rego', 's3cret']) expect(shown).not.toContain(secret);
  });

  it.each([
    ['authorization:\n  required: true\n  backend: local\n', 'authorization.required', /OPA authorization/],
    [
      'analytics:\n  storage:\n    clickhouse:\n      enabled: true\n',
      'analytics.storage.clickhouse.enabled',
      /ClickHouse/,
    ],
    [
      'analytics:\n  storage:\n    prometheus:\n      enabled: true\n',
      'analytics.storage.prometheus.enabled',
      /analytics/,
    ],
    // OIDC is built (issue 40): refused only without providers.
    [
      'authentication:\n  methods:\n    oidc:\n      enabled: true\n',
      'authentication.methods.oidc.providers',
      /provider/,
    ],
    // GitHub is built (issue 40): refused only without its client.
    [
      'authentication:\n  methods:\n    github:\n      enabled: true\n',
      'authentication.methods.github.client_id',
      /required/,
    ],
    // JWT is built (issue 40): refused only without a key source.
    ['authentication:\n  methods:\n    jwt:\n      enabled: true\n', 'authentication.methods.jwt', /jwks_url/],
    ['authentication:\n  methods:\n    cloud:\n      enabled: true\n', 'authentication.methods.cloud.enabled', /cloud/],
    ['experimental:\n  cloud:\n    enabled: true\n', 'experimental.cloud.enabled', /experimental/],
  ])('refuses %j by naming %s', (text, key, why) => {
    const load = () => loadConfig({ file: yamlFile(text), env: {} });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^invalid config at ${key.replaceAll('.', '\\.')}: `));
    expect(load).toThrow(why);
  });

  it('refuses the same settings from the environment', () => {
    expect(() => loadConfig({ env: { VEXIL_AUTHORIZATION_REQUIRED: 'true' } })).toThrow(
      /^invalid config at authorization\.required: /,
    );
    expect(() => loadConfig({ env: { VEXIL_AUTHENTICATION_METHODS_CLOUD_ENABLED: '1' } })).toThrow(
      /^invalid config at authentication\.methods\.cloud\.enabled: /,
    );
    expect(loadConfig({ env: { VEXIL_AUTHORIZATION_REQUIRED: 'false' } }).authorization.required).toBe(false);
  });

  it('names an unknown key by its full path and says it is not supported', () => {
    expect(() => loadConfig({ file: yamlFile('cloud:\n  host: flipt.cloud\n'), env: {} })).toThrow(
      'invalid config at (top level): unknown key(s) cloud: not supported by Vexil',
    );
    expect(() => loadConfig({ file: yamlFile('authentication:\n  session:\n    cookie: x\n'), env: {} })).toThrow(
      'invalid config at authentication.session: unknown key(s) authentication.session.cookie: not supported by Vexil',
    );
  });

  it("reads Flipt's cors section, a list or one string of values", () => {
    expect(loadConfig({ env: {} }).cors).toEqual({
      enabled: false,
      allowed_origins: ['*'],
      allowed_headers: [...CORS_DEFAULT_HEADERS],
    });
    expect(CORS_DEFAULT_HEADERS).toEqual(
      expect.arrayContaining(['X-Flipt-Namespace', 'X-Service-Namespace', 'If-None-Match', 'If-Match']),
    );
    const file = yamlFile('cors:\n  enabled: true\n  allowed_origins: "https://a.example https://b.example"\n');
    expect(loadConfig({ file, env: {} }).cors.allowed_origins).toEqual(['https://a.example', 'https://b.example']);
    const env = { VEXIL_CORS_ENABLED: 'true', VEXIL_CORS_ALLOWED_HEADERS: 'Accept,Authorization' };
    expect(loadConfig({ env }).cors).toMatchObject({ enabled: true, allowed_headers: ['Accept', 'Authorization'] });
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
    ['server:\n  nope: 1\n', /unknown key\(s\) server\.nope: not supported by Vexil$/],
    ['cache:\n  ttl: soon\n', /cache\.ttl: "soon" is not a duration/],
    ['version: "2.0"\n', /version "2.0" is not supported/],
    ['metrics:\n  exporter: otlp\n', /metrics\.exporter: "otlp" is not one of "prometheus"$/],
    ['log:\n  encoding: text\n', /log\.encoding: "text" is not one of "json", "console"$/],
    ['server: [1, 2\n', /not valid YAML/],
  ])('rejects %j with one clear message', (text, message) => {
    expect(() => loadConfig({ file: yamlFile(text), env: {} })).toThrow(message);
  });

  // Flipt's example Rego policies (its documentation and its authorization test data), written as
  // `authorization.roles` rules in the README's Roles section, load as they are.
  it("loads Flipt's example policies written as authorization.roles rules (README)", () => {
    const roles = loadConfig({ file: readmeRolesFile(), env: {} }).authorization.roles;
    expect(roles?.default).toBe('none');
    expect(roles?.rules).toHaveLength(17);
    expect(roles?.rules).toContainEqual({
      match: { method: 'METHOD_JWT', metadata: 'io.flipt.auth.role', pattern: 'namespaced_viewer' },
      role: 'viewer',
      namespace: 'foo',
    });
    expect(roles?.rules).toContainEqual({
      match: { claim: 'groups', pattern: 'IT' },
      role: 'editor',
      namespace: 'default',
    });
    // The Rego policy itself stays refused, roles or not.
    const withRego = yamlFile('authorization:\n  required: true\n  roles:\n    default: viewer\n');
    expect(() => loadConfig({ file: withRego, env: {} })).toThrow(/authorization\.required/);
  });

  it.each([
    [
      '{ match: { metadata: io.flipt.auth.email, claim: groups, pattern: x }, role: viewer }',
      /rules\[0\]\.match: name exactly one of metadata or claim$/,
    ],
    ['{ match: { pattern: x }, role: viewer }', /rules\[0\]\.match: name exactly one of metadata or claim$/],
    [
      '{ match: { claim: groups, pattern: x }, role: owner }',
      /rules\.0\.role: "owner" is not one of "client", "viewer", "editor", "admin"$/,
    ],
    [
      '{ match: { claim: groups, pattern: x }, role: viewer, namespace: "a b" }',
      /"a b" is neither a namespace key nor \*$/,
    ],
    [
      '{ match: { method: METHOD_FOO, claim: groups, pattern: x }, role: viewer }',
      /match\.method: "METHOD_FOO" is not one of/,
    ],
  ])('refuses the roles rule %s', (rule, message) => {
    const file = yamlFile(`authorization:\n  roles:\n    rules:\n      - ${rule}\n`);
    expect(() => loadConfig({ file, env: {} })).toThrow(message);
  });

  it('takes a list of objects from the environment as a JSON array, checked as the file is, and refuses words', () => {
    const rule = { match: { claim: 'email', pattern: '*@x.test' }, role: 'viewer', namespace: 'team,a' };
    const env = (value: string) => ({ VEXIL_AUTHORIZATION_ROLES_RULES: value });
    expect(loadConfig({ env: env(JSON.stringify([rule])) }).authorization.roles?.rules).toEqual([rule]);
    expect(loadConfig({ env: env(' ') }).authorization.roles?.rules).toEqual([]);
    expect(() => loadConfig({ env: env(JSON.stringify([{ ...rule, namespace: 'a b' }])) })).toThrow(
      /"a b" is neither a namespace key nor \*$/,
    );
    for (const words of ['viewer', 'viewer,editor', '{"match":{}}', '[{']) {
      expect(() => loadConfig({ env: env(words) })).toThrow(
        /^VEXIL_AUTHORIZATION_ROLES_RULES: a list of objects, given as a JSON array/,
      );
    }
    // Lists of words keep Flipt's reading.
    expect(loadConfig({ env: { VEXIL_CORS_ALLOWED_ORIGINS: 'a,b c' } }).cors.allowed_origins).toEqual(['a', 'b', 'c']);
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
