// docs/configuration.md is the configuration reference: this test walks ConfigSchema and fails naming
// every key whose full dotted path is not written there in backticks (`server.grpc_conn_max_age`, not
// only `.grpc_conn_max_age` after a sibling), so a key added to the schema cannot go undocumented.
//
// The rule for what counts as a key:
// - an object's properties are walked; a union is walked through each of its object members;
// - anything else (a string, a number, a list, a union of literals) is a leaf: its path is the key;
// - a map whose entries are objects (`patternProperties` of an object type, such as the OIDC
//   providers) is walked with `<name>` standing for the entry: `authentication.methods.oidc.providers.<name>.client_id`;
// - a map of anything else (headers, metadata, Flipt sections accepted as they are) and an object
//   that allows other properties (`additionalProperties: true`) are leaves at their own path.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { ROOT } from './helpers/process.js';

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: boolean;
  anyOf?: SchemaNode[];
}

const isObject = (node: SchemaNode) => node.type === 'object' && node.properties !== undefined;

/** The documented paths of every key under `node`, by the rule above. */
function keyPaths(node: SchemaNode, path: string): string[] {
  if (isObject(node) && node.additionalProperties !== true) {
    return Object.entries(node.properties ?? {}).flatMap(([key, child]) =>
      keyPaths(child, path ? `${path}.${key}` : key),
    );
  }
  if (node.type === 'object' && node.patternProperties) {
    const [entry] = Object.values(node.patternProperties);
    if (entry && isObject(entry)) return keyPaths(entry, `${path}.<name>`);
  }
  const members = (node.anyOf ?? []).filter(isObject);
  if (members.length > 0) return [...new Set(members.flatMap((member) => keyPaths(member, path)))];
  return [path];
}

const KEYS = keyPaths(ConfigSchema as unknown as SchemaNode, '');
const reference = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('walks the whole schema', () => {
    // Guards the walk itself: a walk that stopped early would pass with nothing to check.
    expect(KEYS).toEqual(
      expect.arrayContaining([
        'server.grpc_conn_max_age',
        'cache.redis.password',
        'authentication.methods.oidc.providers.<name>.client_id',
        'tracing.otlp.headers',
        'audit.sinks.webhook.templates',
      ]),
    );
    expect(KEYS.length).toBeGreaterThan(150);
  });

  it('names every config key by its full path', () => {
    expect(KEYS.filter((key) => !reference.includes(`\`${key}\``))).toEqual([]);
  });
});
