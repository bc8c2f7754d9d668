// The one-field reading of the `request` and `key` rules gives what the whole input gives, for every
// place a namespace can come from and every precedence between them.

import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Access } from '../../auth/access.js';
import { httpAccessInput } from './access-input.js';

const OFREP: Access = {
  resource: 'evaluation',
  action: 'evaluate',
  namespace: 'request',
  namespaceHeaders: ['x-service-namespace', 'x-flipt-namespace'],
};
const NAMESPACE: Access = { resource: 'namespace', action: 'read', namespace: 'key' };

type Parts = { params?: object; body?: unknown; query?: object; headers?: Record<string, string> };
const request = (parts: Parts) => ({ headers: {}, ...parts }) as unknown as FastifyRequest;

const sources: Parts[] = [
  {},
  { params: { namespaceKey: 'p' }, body: { namespaceKey: 'b' }, query: { namespaceKey: 'q' } },
  { body: { namespaceKey: 'b' }, query: { namespaceKey: 'q', namespace_key: 's' } },
  { body: { namespaceKey: null }, query: { namespace_key: 's' } },
  { body: { namespaceKey: '' }, query: { namespaceKey: 'q' } },
  { body: 'text', query: { namespace_key: 's' }, headers: { 'x-flipt-namespace': 'h2' } },
  { headers: { 'x-service-namespace': '', 'x-flipt-namespace': 'h2' } },
  { headers: { 'x-service-namespace': 'h1', 'x-flipt-namespace': 'h2' } },
  { query: { namespaceKey: 'q' }, headers: { 'x-service-namespace': 'h1' } },
  { body: ['not', 'an', 'object'], params: { key: 'k', namespaceKey: 'p' } },
  { params: { key: 'k' }, body: { key: 'b' } },
  { body: { key: 'b' }, query: { key: 'q' } },
  { body: { key: 7 } },
];

describe('httpAccessInput reads one field for the one-field rules', () => {
  it.each(sources)('%o', (parts) => {
    const whole = httpAccessInput(request(parts), { ...OFREP, namespace: 'items' });
    expect(httpAccessInput(request(parts), OFREP).namespaceKey).toEqual(whole.namespaceKey);
    const wholeKey = httpAccessInput(request(parts), { ...NAMESPACE, namespace: 'items' });
    expect(httpAccessInput(request(parts), NAMESPACE).key).toEqual(wholeKey.key);
  });
});
