// One management operation, declared once for both transports: its gRPC method in flipt.Flipt, its HTTP
// routes, its schemas, its access, whether it writes, and a named handler over the services. The HTTP
// registrar (http-routes.ts) and the gRPC registrar (grpc-rpcs.ts) read the same declarations, so an
// operation cannot answer differently on the two transports except where its two readers say so.

import type { Static, TObject, TSchema } from 'typebox';
import type { Access } from '../../auth/access.js';
import type { Authentication } from '../../domain/authentication.js';
import type { Services } from '../../services/index.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One HTTP form of an operation; `hide` leaves it out of the OpenAPI document (Flipt's legacy forms). */
export interface HttpRoute {
  method: HttpMethod;
  url: string;
  hide?: boolean;
}

/** The typebox schemas of the HTTP forms (the OpenAPI document is made from them). */
export interface HttpSchemas<P extends TSchema, Q extends TSchema, B extends TSchema> {
  tags: string[];
  params?: P;
  querystring?: Q;
  body?: B;
  /** The 200 answer; the error answers are the same for every operation. */
  response: TSchema;
}

/** A request's validated parts, as the HTTP converter of an operation reads them. */
export interface HttpParts<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  /** Absent when the request had none: the converters read it as empty, as Flipt's decoder does. */
  body: Static<B> | undefined;
}

/**
 * A gRPC request as the converters read it: the decoded message with camelCase names (field-case.ts),
 * proto3 defaults filled in (empty strings, zeros, empty lists, null messages).
 */
// biome-ignore lint/suspicious/noExplicitAny: each converter reads the fields its request message declares
export type RequestMessage = any;

export interface Operation<
  In,
  Out,
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
> {
  /** The method's name in the flipt.Flipt service. */
  rpc: string;
  routes: readonly HttpRoute[];
  schema: HttpSchemas<P, Q, B>;
  access: Access;
  /** Refused by the tiers that refuse management writes; its revision is the write's own. */
  write: boolean;
  /** The operation's input from an HTTP request: path parameters, then body or query. */
  fromHttp(request: HttpParts<P, Q, B>): In;
  /** The operation's input from the gRPC request message. */
  fromMessage(message: RequestMessage): In;
  /**
   * The named handler: the one call into the services. `caller` is the call's authentication (null when
   * none is required), read only by reads across namespaces (`filtered`) to limit their answer.
   */
  handle(services: Services, input: In, caller: Authentication | null): Promise<Out>;
  /** The answer as Flipt's REST JSON (api/resource-shapes.ts). */
  toJson(answer: Out): unknown;
  /** The answer as its flipt.* message, with proto/'s own names (resource-messages.ts). */
  toMessage(answer: Out): unknown;
}

/** An operation of the table, whatever its input and answer. */
// biome-ignore lint/suspicious/noExplicitAny: the table is heterogeneous; each entry is typed where it is declared
export type AnyOperation = Operation<any, any, any, any, any>;

type Empty = TObject<Record<never, never>>;

/** Declares an operation, typing its HTTP converter by its schemas. */
export function operation<In, Out, P extends TSchema = Empty, Q extends TSchema = Empty, B extends TSchema = Empty>(
  declared: Operation<In, Out, P, Q, B>,
): AnyOperation {
  return declared;
}

/** The answer of the operations that answer nothing (deletes, orders): `{}` on both transports. */
export const NOTHING = Object.freeze({});
export const nothing = (): object => NOTHING;

/** The namespaced form of a route and Flipt's legacy form without the prefix (hidden from OpenAPI). */
export function withLegacy(method: HttpMethod, path: string): HttpRoute[] {
  return [
    { method, url: `/api/v1/namespaces/:namespaceKey${path}` },
    { method, url: `/api/v1${path}`, hide: true },
  ];
}
