// A request's input as authorization reads it (auth/access.ts): one camelCase object of the path
// parameters over the body over the query (a query's snake_case names renamed, `namespace_key` as
// `namespaceKey`), over the namespace headers the route declares (OFREP's). Formed only when a decision
// needs it: a namespace-scoped token or one with roles, or a management read's revision header; for
// the rules that read one field (`request`, `key`) only that field is read.

import type { FastifyRequest } from 'fastify';
import type { Access } from '../../auth/access.js';
import type { AccessInput } from '../../auth/authorize.js';

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Copies the fields that hold a value; null and undefined leave a lower source's value in place. */
function overlay(input: Record<string, unknown>, source: Record<string, unknown> | undefined): void {
  if (source === undefined) return;
  for (const [name, value] of Object.entries(source)) if (value !== undefined && value !== null) input[name] = value;
}

/** The one field the `request` and `key` rules read, and its snake_case spelling in a query. */
const ONE_FIELD = {
  request: { name: 'namespaceKey', snake: 'namespace_key' },
  key: { name: 'key', snake: 'key' },
} as const;

const present = (value: unknown) => value !== undefined && value !== null;

/**
 * The value of one input field, with the whole input's precedence: path, body, query (camelCase over
 * snake_case), then the namespace headers (for `namespaceKey`). Reading one field instead of forming
 * the input keeps a role-limited caller's evaluation within a few per cent of an unlimited one's.
 */
function oneField(request: FastifyRequest, access: Access, field: { name: string; snake: string }): unknown {
  const params = asObject(request.params)?.[field.name];
  if (present(params)) return params;
  const body = asObject(request.body)?.[field.name];
  if (present(body)) return body;
  const query = asObject(request.query);
  if (query !== undefined) {
    const camelValue = query[field.name];
    if (present(camelValue)) return camelValue;
    const snakeValue = query[field.snake];
    if (present(snakeValue)) return snakeValue;
  }
  if (field.name !== 'namespaceKey') return undefined;
  for (const header of access.namespaceHeaders ?? []) {
    const value = request.headers[header];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

const EMPTY_INPUT: AccessInput = Object.freeze({});

/**
 * The namespace key the request names, as the `request` rule reads it, whatever rule `access` declares:
 * for a read across namespaces (`filtered`) that names one only when its input does (api/http/tiers.ts).
 */
export function namedNamespaceKey(request: FastifyRequest, access: Access): unknown {
  return oneField(request, access, ONE_FIELD.request);
}

export function httpAccessInput(request: FastifyRequest, access: Access | undefined): AccessInput {
  const rule = access?.namespace;
  if (access !== undefined && (rule === 'request' || rule === 'key')) {
    const field = ONE_FIELD[rule];
    const value = oneField(request, access, field);
    if (value === undefined) return EMPTY_INPUT;
    return rule === 'request' ? { namespaceKey: value } : { key: value };
  }
  const input: Record<string, unknown> = {};
  for (const header of access?.namespaceHeaders ?? []) {
    const value = request.headers[header];
    if (typeof value === 'string' && value !== '') {
      input.namespaceKey = value;
      break;
    }
  }
  const query = asObject(request.query);
  if (query !== undefined) {
    const renamed: Record<string, unknown> = {};
    // A camelCase name wins over its snake_case spelling.
    for (const [name, value] of Object.entries(query)) if (!name.includes('_')) renamed[name] = value;
    for (const [name, value] of Object.entries(query)) {
      if (name.includes('_') && renamed[camel(name)] === undefined) renamed[camel(name)] = value;
    }
    overlay(input, renamed);
  }
  overlay(input, asObject(request.body));
  overlay(input, asObject(request.params));
  return input;
}
