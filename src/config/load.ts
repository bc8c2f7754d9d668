// Loads the configuration: schema defaults < YAML file (--config) < VEXIL_* environment variables.
// Every failure is a ConfigError with one readable line; main.ts prints it and exits 1.

import { readFileSync } from 'node:fs';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { auditConfigProblem } from './audit.js';
import { authMethodsProblem, sessionProblem } from './auth-methods.js';
import { parseDuration } from './duration.js';
import { dropInertSettings, listsFromStrings, unsupportedSetting } from './flipt-sections.js';
import { roleRulesProblem } from './roles.js';
import { type Config, ConfigSchema } from './schema.js';

export class ConfigError extends Error {}

export const ENV_PREFIX = 'VEXIL_';

type Json = Record<string, unknown>;

interface Leaf {
  path: string[];
  schema: TSchema & { type?: string; 'x-duration'?: boolean; 'x-secret'?: boolean };
}

function isObjectSchema(schema: TSchema): schema is TSchema & { properties: Record<string, TSchema> } {
  return (schema as { type?: string }).type === 'object' && 'properties' in schema;
}

/** Every settable leaf of the schema with its path: the same walk names env vars, durations and secrets. */
export function configLeaves(schema: TSchema = ConfigSchema, path: string[] = []): Leaf[] {
  if (!isObjectSchema(schema)) return [{ path, schema: schema as Leaf['schema'] }];
  return Object.entries(schema.properties).flatMap(([key, child]) => configLeaves(child, [...path, key]));
}

export function envName(path: string[]): string {
  return ENV_PREFIX + path.join('_').toUpperCase();
}

function leafType(schema: Leaf['schema']): string | undefined {
  if (schema.type) return schema.type;
  const anyOf = (schema as { anyOf?: { type?: string; const?: unknown }[] }).anyOf;
  if (anyOf?.length) return anyOf[0]?.type ?? typeof anyOf[0]?.const;
  return undefined;
}

function leafItemType(schema: Leaf['schema']): string | undefined {
  return (schema as { items?: { type?: string } }).items?.type;
}

/**
 * A list of objects (role rules, audit templates), which no split of words can give: a JSON array, so
 * an environment-only deployment can still set one; anything else is refused naming the variable.
 */
function objectListFromEnv(raw: string, leaf: Leaf): unknown {
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? [] : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) {
    throw new ConfigError(
      `${envName(leaf.path)}: a list of objects, given as a JSON array ([{…}, …]) or in the config file`,
    );
  }
  return parsed;
}

function fromEnvString(raw: string, leaf: Leaf): unknown {
  switch (leafType(leaf.schema)) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 't', 'yes'].includes(v)) return true;
      if (['false', '0', 'f', 'no', ''].includes(v)) return false;
      throw new ConfigError(`${envName(leaf.path)}: "${raw}" is not a boolean`);
    }
    case 'integer':
    case 'number': {
      const n = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(n)) {
        throw new ConfigError(`${envName(leaf.path)}: "${raw}" is not a number`);
      }
      return n;
    }
    case 'array':
      if (leafItemType(leaf.schema) === 'object') return objectListFromEnv(raw, leaf);
      // A list, as Flipt reads one from its environment: values apart by commas or spaces.
      return raw.split(/[\s,]+/).filter((v) => v !== '');
    default:
      return raw;
  }
}

function setPath(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1] as string] = value;
}

function getPath(source: unknown, path: string[]): unknown {
  let node = source;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Flipt's `${NAME}` substitution: a string that is entirely `${NAME}` becomes that env var. */
function substituteEnv(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
    return m ? (env[m[1] as string] ?? '') : value;
  }
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, env)]));
  }
  return value;
}

function readYaml(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${file} must hold a mapping of sections`);
  }
  return doc as Json;
}

export interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values applied last (tests use this instead of env vars). */
  overrides?: Json;
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof b === 'object' &&
      b !== null &&
      !Array.isArray(b)
        ? deepMerge(b as Json, v as Json)
        : v;
  }
  return out;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  let raw: Json = options.file ? (substituteEnv(readYaml(options.file), env) as Json) : {};
  if (raw.version !== undefined && String(raw.version) !== '1.0') {
    throw new ConfigError(`config version "${raw.version}" is not supported (only "1.0")`);
  }
  if (raw.version !== undefined) raw.version = String(raw.version);

  const leaves = configLeaves();
  for (const leaf of leaves) {
    const value = env[envName(leaf.path)];
    if (value !== undefined) setPath(raw, leaf.path, fromEnvString(value, leaf));
  }
  if (options.overrides) raw = deepMerge(raw, options.overrides);
  resolveDbUrl(raw);
  resolveDeprecatedCacheKeys(raw);
  listsFromStrings(raw);

  const withDefaults = Value.Default(ConfigSchema, raw);
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  const unknownKeys = errors.find((e) => (e.params as { additionalProperties?: string[] }).additionalProperties);
  const first = unknownKeys ?? errors[0];
  if (first) {
    const where = first.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(top level)';
    const extra = (first.params as { additionalProperties?: string[] }).additionalProperties;
    // A value outside a set of constants (an enum) names the accepted ones.
    const allowed = errors
      .filter((e) => e.instancePath === first.instancePath && e.keyword === 'const')
      .map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
    const value = getPath(withDefaults, first.instancePath.split('/').slice(1));
    const prefix = where === '(top level)' ? '' : `${where}.`;
    const detail = extra
      ? `unknown key(s) ${extra.map((key) => prefix + key).join(', ')}: not supported by Vexil`
      : allowed.length > 0
        ? `${JSON.stringify(value)} is not one of ${allowed.join(', ')}`
        : first.message;
    throw new ConfigError(`invalid config at ${where}: ${detail}`);
  }
  for (const leaf of leaves) {
    if (!leaf.schema['x-duration']) continue;
    const value = getPath(withDefaults, leaf.path) as string | undefined;
    if (value === undefined) continue; // an optional duration left out
    if (parseDuration(value) === undefined) {
      throw notADuration(leaf.path.join('.'), value);
    }
  }
  const config = withDefaults as Config;
  const refusal = unsupportedSetting(config);
  if (refusal !== undefined) throw new ConfigError(refusal);
  dropInertSettings(config);
  if (config.server.protocol === 'https') {
    for (const key of ['cert_file', 'cert_key'] as const) {
      if (config.server[key] === '') throw new ConfigError(`invalid config at server.${key}: required with https`);
    }
  }
  const methodProblem = authMethodsProblem(config.authentication.methods) ?? sessionProblem(config.authentication);
  if (methodProblem) throw new ConfigError(`invalid config at ${methodProblem}`);
  // As Flipt: a cookie's Domain has no scheme and no port.
  const domain = config.authentication.session.domain;
  if (domain !== '') {
    config.authentication.session.domain = new URL(domain.includes('://') ? domain : `http://${domain}`).hostname;
  }
  const rolesProblem = roleRulesProblem(config.authorization);
  if (rolesProblem) throw new ConfigError(`invalid config at ${rolesProblem}`);
  const auditProblem = auditConfigProblem(config.audit);
  if (auditProblem) throw new ConfigError(`invalid config at ${auditProblem}`);
  config.log.level = pinoLevel(config.log.level) as Config['log']['level'];
  config.log.grpc_level = pinoLevel(config.log.grpc_level) as Config['log']['grpc_level'];
  return config;
}

function notADuration(path: string, value: unknown): ConfigError {
  return new ConfigError(`invalid config at ${path}: "${value}" is not a duration (e.g. 30s, 5m, 1h)`);
}

/** A configured level as pino names it: lower case, Go's `panic` as `fatal`. */
function pinoLevel(level: string): string {
  const lower = String(level).toLowerCase();
  return lower === 'panic' ? 'fatal' : lower;
}

/**
 * Flipt's deprecated cache.memory.enabled and cache.memory.expiration, read as Flipt still reads them:
 * as cache.enabled with the memory backend, and as cache.ttl, unless those are set themselves. The
 * app logs that they are deprecated (deprecatedKeysInUse).
 */
function resolveDeprecatedCacheKeys(raw: Json): void {
  const cache = raw.cache as Json | undefined;
  const memory = cache?.memory as Json | undefined;
  if (cache === undefined || memory === undefined || memory === null || typeof memory !== 'object') return;
  if (memory.enabled === true && cache.enabled === undefined) {
    cache.enabled = true;
    cache.backend ??= 'memory';
  }
  if (memory.expiration !== undefined && parseDuration(String(memory.expiration)) === undefined) {
    throw notADuration('cache.memory.expiration', memory.expiration);
  }
  if (memory.expiration !== undefined && cache.ttl === undefined) cache.ttl = memory.expiration;
}

/** The deprecated keys a config uses, each with what replaces it (for a warning at start). */
export function deprecatedKeysInUse(config: Config): string[] {
  const notes: string[] = [];
  if (config.cache.memory.enabled !== undefined)
    notes.push('cache.memory.enabled (use cache.enabled and cache.backend)');
  if (config.cache.memory.expiration !== undefined) notes.push('cache.memory.expiration (use cache.ttl)');
  return notes;
}

/** Flipt's db.protocol values and the URL scheme each stands for here. */
const DB_SCHEMES: Readonly<Record<string, string>> = {
  postgres: 'postgres',
  mysql: 'mysql',
  cockroachdb: 'cockroachdb',
  cockroach: 'cockroachdb',
};
const DB_PARTS = ['protocol', 'host', 'port', 'name', 'user', 'password'];

/**
 * Flipt's second way to name the database: db.protocol, host, port, name, user and password instead of
 * db.url. As in Flipt, an explicit url wins; without one, any part set means the URL is built from them
 * (protocol://user:password@host:port/name), and protocol, host and name are required.
 */
function resolveDbUrl(raw: Json): void {
  const db = raw.db;
  if (db === null || typeof db !== 'object' || Array.isArray(db)) return;
  const parts = db as Json;
  if (parts.url !== undefined || !DB_PARTS.some((k) => parts[k] !== undefined && parts[k] !== '')) return;
  const text = (key: string) => (parts[key] === undefined ? '' : String(parts[key]));
  for (const key of ['protocol', 'host', 'name']) {
    if (text(key) === '') throw new ConfigError(`invalid config at db.${key}: required when db.url is not set`);
  }
  const scheme = DB_SCHEMES[text('protocol').toLowerCase()];
  if (scheme === undefined) {
    throw new ConfigError(
      `invalid config at db.protocol: "${text('protocol')}" cannot be used without db.url ` +
        `(postgres, mysql, cockroachdb; SQLite is named by db.url: file:<path>)`,
    );
  }
  const host = text('port') === '' || text('port') === '0' ? text('host') : `${text('host')}:${text('port')}`;
  const url = new URL(`${scheme}://host.invalid`);
  url.host = host; // the setter leaves the URL as it was when the text is no host
  if (url.host !== host.toLowerCase()) {
    throw new ConfigError(`invalid config at db.host: "${text('host')}" is not a host name`);
  }
  url.pathname = `/${encodeURIComponent(text('name'))}`;
  url.username = encodeURIComponent(text('user'));
  url.password = encodeURIComponent(text('password'));
  parts.url = url.toString();
}

/** A validated duration in milliseconds. */
export function ms(duration: string): number {
  const value = parseDuration(duration);
  if (value === undefined) throw new ConfigError(`"${duration}" is not a duration`);
  return value;
}

/** The effective config with every secret removed, for /meta/config and logs. */
export function redactConfig(config: Config): Json {
  const copy = structuredClone(config) as Json;
  for (const leaf of configLeaves()) {
    if (leaf.schema['x-secret'] && getPath(copy, leaf.path) !== undefined) setPath(copy, leaf.path, undefined);
  }
  const dbUrl = getPath(copy, ['db', 'url']);
  if (typeof dbUrl === 'string') setPath(copy, ['db', 'url'], dbUrl.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@'));
  const redisUrl = getPath(copy, ['cache', 'redis', 'url']);
  if (typeof redisUrl === 'string') {
    setPath(copy, ['cache', 'redis', 'url'], redisUrl.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@'));
  }
  return copy;
}
