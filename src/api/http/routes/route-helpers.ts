// What several route modules share: the namespaced and legacy forms of a management route, the
// namespace a request addresses, the query strings that name one, Flipt's answer to a body its
// decoder rejects, and JSON sent with Flipt's exact content type.

import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { InvalidArgumentError } from '../../../domain/errors.js';
import { namespaceKeyOrDefault } from '../../../domain/namespace-key.js';
import { ListQuerystring, ReferenceQuerystring } from '../schemas/common.js';

/** The namespaced form of a route and its legacy form without the prefix. */
export function withLegacy(path: string): { url: string; legacy: boolean }[] {
  return [
    { url: `/api/v1/namespaces/:namespaceKey${path}`, legacy: false },
    { url: `/api/v1${path}`, legacy: true },
  ];
}

/**
 * The namespace of a request: the path's (already resolved: namespace-default.ts), else the first one
 * named in the body or query (legacy routes), empty or none meaning `default`.
 */
export function namespaceOf(
  params: { namespaceKey?: string },
  ...sources: ({ namespaceKey?: string | null } | undefined)[]
): string {
  if (params.namespaceKey !== undefined) return namespaceKeyOrDefault(params.namespaceKey);
  let named: string | null | undefined;
  for (const source of sources) {
    named ||= source?.namespaceKey;
  }
  return namespaceKeyOrDefault(named);
}

const NamespaceQuery = {
  namespaceKey: Type.Optional(Type.String()),
  namespace_key: Type.Optional(Type.String()),
};

/** Query-string namespace of a legacy GET/DELETE, in either spelling. */
export function queryNamespace(query: { namespaceKey?: string; namespace_key?: string }) {
  return { namespaceKey: query.namespaceKey ?? query.namespace_key };
}

export const ListWithNamespaceQuery = Type.Object({ ...ListQuerystring.properties, ...NamespaceQuery });
export const ReferenceWithNamespaceQuery = Type.Object({ ...ReferenceQuerystring.properties, ...NamespaceQuery });
export const NamespaceOnlyQuery = Type.Object(NamespaceQuery);

/** Flipt's answer to any body its decoder rejects (a non-string context value above all). */
export function invalidBodyError(): InvalidArgumentError {
  return new InvalidArgumentError('invalid values for key(s) in json body');
}

/**
 * Sends JSON text as `Content-Type: application/json` exactly, as Flipt answers /health and /meta/*
 * (and its own tests assert). Fastify appends `; charset=utf-8` to a JSON type it serializes or sends
 * as text, unless the reply has a serializer of its own: the text is already JSON, so it is its own.
 */
export function sendExactJson(reply: FastifyReply, text: string): void {
  reply
    .header('content-type', 'application/json')
    .serializer((payload: unknown) => payload as string)
    .send(text);
}
