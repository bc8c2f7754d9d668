// What the operations' converters share: how each transport names a request's namespace and list
// window, and how proto3's defaults read as the services' "absent". REST and gRPC requests become the
// same operation input through these, so the two transports' quirks are written once each.

import Type from 'typebox';
import { InvalidArgumentError } from '../../domain/errors.js';
import { namespaceKeyOrDefault } from '../../domain/namespace-key.js';
import type { ListQuery } from '../../storage/pagination.js';
import { type StructMessage, structToJson } from '../grpc/messages.js';
import { ListQuerystring, ReferenceQuerystring, toNumber } from '../http/schemas/common.js';

// --- HTTP -----------------------------------------------------------------------------------------

/**
 * The namespace of an HTTP request: the path's (already resolved: namespace-default.ts), else the
 * first one named in the body or query (the legacy routes), empty or none meaning `default`.
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

type Addressed<P> = Omit<P, 'namespaceKey'> & { namespaceKey: string };

/** What a GET or DELETE addresses: its path parameters, the namespace from the path or else the query. */
export function addressedByQuery<P extends { namespaceKey?: string }>(request: {
  params: P;
  query: { namespaceKey?: string; namespace_key?: string };
}): Addressed<P> {
  return { ...request.params, namespaceKey: namespaceOf(request.params, queryNamespace(request.query)) };
}

/** What a POST or PUT addresses: its path parameters, the namespace from the path or else the body. */
export function addressedByBody<P extends { namespaceKey?: string }>(
  params: P,
  body: { namespaceKey?: string | null },
): Addressed<P> {
  return { ...params, namespaceKey: namespaceOf(params, body) };
}

export const ListWithNamespaceQuery = Type.Object({ ...ListQuerystring.properties, ...NamespaceQuery });
export const ReferenceWithNamespaceQuery = Type.Object({ ...ReferenceQuerystring.properties, ...NamespaceQuery });
export const NamespaceOnlyQuery = Type.Object(NamespaceQuery);

/** A quoted or plain int32 as a number; outside int32 Flipt's decoder refuses the body. */
export function int32(field: string, value: number | string | null | undefined): number | undefined {
  const n = toNumber(value ?? undefined);
  if (n !== undefined && (!Number.isSafeInteger(n) || n > 2 ** 31 - 1 || n < -(2 ** 31))) {
    throw new InvalidArgumentError(`invalid field ${field}: must be an int32`);
  }
  return n;
}

// --- gRPC -----------------------------------------------------------------------------------------

/** The namespace of a gRPC request: its `namespaceKey`, empty meaning `default`. */
export function messageNamespace(message: { namespaceKey?: string | null }): string {
  return namespaceKeyOrDefault(message.namespaceKey);
}

/** What a request message addresses: its namespace (empty meaning `default`) and the named key fields. */
export function addressedByMessage<K extends string>(
  message: Record<K | 'namespaceKey', string>,
  ...keys: K[]
): Record<K, string> & { namespaceKey: string } {
  const addressed: Record<string, string> = { namespaceKey: messageNamespace(message) };
  for (const key of keys) addressed[key] = message[key];
  return addressed as Record<K, string> & { namespaceKey: string };
}

/** A list request's window (proto3 zeros and empty text are "not given", as the services read them). */
export function messageListQuery(message: { limit?: number; offset?: number; pageToken?: string }): ListQuery {
  return { limit: message.limit ?? 0, offset: message.offset ?? 0, pageToken: message.pageToken ?? '' };
}

/** A repeated field: proto3 cannot tell empty from absent; the services read absent. */
export function listOrAbsent(values: readonly string[] | null | undefined): string[] | undefined {
  return values && values.length > 0 ? [...values] : undefined;
}

/** A string field whose empty value means "not given". */
export function textOrAbsent(value: string | null | undefined): string | undefined {
  return value ? value : undefined;
}

/** An optional google.protobuf.Struct field (a flag's metadata) as JSON, or absent. */
export function structOrAbsent(value: StructMessage | null | undefined): Record<string, unknown> | undefined {
  return value ? structToJson(value) : undefined;
}

// --- Both -----------------------------------------------------------------------------------------

/**
 * An enum field, given by name or number, as its name; `fallback` when absent (a body may omit it or
 * send null). A number without a name is passed on as it is, for the service to refuse: HTTP's schemas
 * only let known numbers through, but gRPC's decoder gives an unknown value as its number.
 */
export function enumField<N extends string>(names: readonly N[], value: unknown, fallback: N): N {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number') return names[value] ?? (value as unknown as N);
  return value as N;
}
