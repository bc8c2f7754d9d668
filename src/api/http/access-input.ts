// A request's input as authorization reads it (auth/access.ts): one camelCase object of the path
// parameters over the body over the query (a query's snake_case names renamed, `namespace_key` as
// `namespaceKey`), over the namespace headers the route declares (OFREP's). Formed only when a decision
// needs it: a namespace-scoped token, or a management read's revision header.

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

export function httpAccessInput(request: FastifyRequest, access: Access | undefined): AccessInput {
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
