// Flipt config sections Vexil accepts without acting on them, and the settings in them it refuses. A
// Flipt config file loads unchanged when ignoring what it says is harmless (no profiling endpoint to
// switch off, no telemetry to opt out of); a setting that would change who may do what, or where data
// goes, stops start-up with one line naming it, since accepting and ignoring it would leave the
// operator believing in a protection or a destination that does not exist (issue 27).

import type { Config } from './schema.js';

type Json = Record<string, unknown>;

/** Flipt's login methods Vexil does not build yet, as `authentication.methods` names them. */
export const OTHER_METHODS = ['cloud'] as const;

interface Refusal {
  path: string;
  applies(config: Config): boolean;
  why: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    path: 'authorization.required',
    applies: (c) => c.authorization.required,
    why: 'OPA authorization policies are not supported, so every valid token would keep full access (set it to false or remove it)',
  },
  {
    path: 'analytics.storage.clickhouse.enabled',
    applies: (c) => c.analytics.storage.clickhouse.enabled,
    why: 'analytics are not supported, so no evaluation count would reach ClickHouse (set it to false or remove it)',
  },
  {
    path: 'analytics.storage.prometheus.enabled',
    applies: (c) => c.analytics.storage.prometheus.enabled,
    why: 'analytics are not supported; scrape /metrics for evaluation counts instead (set it to false or remove it)',
  },
  ...OTHER_METHODS.map(
    (method): Refusal => ({
      path: `authentication.methods.${method}.enabled`,
      applies: (c) => c.authentication.methods[method]?.enabled === true,
      why: `the ${method} authentication method is not supported yet (supported: authentication.methods.token, jwt, oidc, github, kubernetes)`,
    }),
  ),
];

/** A key path under `experimental` whose value switches something on (`true`, or `enabled: true`). */
function experimentOn(value: unknown, path: string): string | undefined {
  if (value === true) return path;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const [key, child] of Object.entries(value as Json)) {
    const found = experimentOn(child, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The one-line refusal of the first setting Vexil cannot honour, or undefined when there is none. */
export function unsupportedSetting(config: Config): string | undefined {
  const refused = REFUSALS.find((r) => r.applies(config));
  if (refused) return `invalid config at ${refused.path}: ${refused.why}`;
  const experiment = experimentOn(config.experimental, 'experimental');
  if (experiment !== undefined) {
    return `invalid config at ${experiment}: Flipt's experimental features are not supported (remove it)`;
  }
  return undefined;
}

/**
 * The settings of a disabled login method (client secrets among them) are dropped once accepted, so
 * that /meta/config never shows them: nothing reads them.
 */
export function dropInertSettings(config: Config): void {
  const methods = config.authentication.methods as Json;
  for (const method of OTHER_METHODS) {
    if (methods[method] !== undefined) methods[method] = { enabled: false };
  }
}

/** Flipt's list keys that also take one string of values apart by spaces or commas. */
const LIST_KEYS = [
  ['cors', 'allowed_origins'],
  ['cors', 'allowed_headers'],
  ['authentication', 'session', 'csrf', 'trusted_origins'],
  ['authentication', 'methods', 'jwt', 'validate_claims', 'audiences'],
  ['authentication', 'methods', 'oidc', 'email_matches'],
  ['authentication', 'methods', 'github', 'scopes'],
  ['authentication', 'methods', 'github', 'allowed_organizations'],
] as const;

/** Reads a string where Flipt takes a list or a string (`allowed_origins: "*"`) as that list. */
export function listsFromStrings(raw: Json): void {
  for (const path of LIST_KEYS) {
    let node: unknown = raw;
    for (const key of path.slice(0, -1)) node = (node as Json | undefined)?.[key];
    if (typeof node !== 'object' || node === null) continue;
    const last = path[path.length - 1] as string;
    const value = (node as Json)[last];
    if (typeof value === 'string') (node as Json)[last] = value.split(/[\s,]+/).filter((v) => v !== '');
  }
}
