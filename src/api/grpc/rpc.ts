// Every RPC of the Flipt services is one table entry `{ method, kind, access, write?, handle }`; this
// module turns an entry into a grpc-js unary handler that does, around `handle`, what the HTTP hooks do
// around a route, with the same policy (api/kinds.ts):
// - a request message that did not decode (request-decoding.ts): INVALID_ARGUMENT, as REST's 400 for a
//   body that is not JSON;
// - a call whose deadline has already passed (or that was cancelled) does no work: DEADLINE_EXCEEDED;
// - a write refused by the tier (`server.mode: read`, `storage.read_only` for management writes):
//   UNIMPLEMENTED `modification is not allowed in read-only mode`, before authentication as over HTTP;
// - authentication (when required and the kind's group is not excluded): `authorization: Bearer <token>`
//   metadata (or Flipt's session cookie), looked up through the token cache, else UNAUTHENTICATED; then
//   authorization (auth/authorize.ts) from the entry's `access` and its kind's group, with the request
//   message as the input, else PERMISSION_DENIED;
// - `x-vexil-revision` response metadata: a management write's own revision (services/write.ts receipt),
//   a management read's namespace's current revision, or what the handler sets (evaluation: the
//   snapshot's revision);
// - errors: domain errors with their own code and message (api/error-status.ts), anything else INTERNAL.
// Handlers only convert messages and call the services.

import {
  status as GrpcStatus,
  Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Access } from '../../auth/access.js';
import { isExcluded } from '../../auth/access-groups.js';
import { type AccessInput, addressedNamespaces, authorize, type DeclaredAccess } from '../../auth/authorize.js';
import { hashClientToken } from '../../auth/client-token.js';
import { presentedJwt, presentedToken } from '../../auth/credentials.js';
import type { Config } from '../../config/schema.js';
import type { Authentication } from '../../domain/authentication.js';
import { UnauthenticatedError } from '../../domain/errors.js';
import type { AuthService } from '../../services/auth.js';
import { collectWrites, type WriteReceipt } from '../../services/write.js';
import { writeReceiptOf } from '../change-actor.js';
import { errorStatus } from '../error-status.js';
import { IF_MATCH, ifMatchTag } from '../if-match.js';
import {
  KIND_POLICIES,
  READ_ONLY_MESSAGE,
  REVISION_HEADER,
  type RouteKind,
  refusesTier,
  tierOfClass,
} from '../kinds.js';
import { camelFields, snakeFields } from './field-case.js';
import { malformedRequestStatus } from './request-decoding.js';

/** What a handler may use of its call besides the request message. */
export interface RpcContext {
  metadata: Metadata;
  /** The caller's authentication when one was checked, else null. */
  authentication: Authentication | null;
  /** Names the revision the answer was computed from (sent as `x-vexil-revision`). */
  setRevision(revision: string): void;
  /**
   * The transport writes answer bytes to the stream as they are (the evaluation fast path): bytes a
   * handler writes itself (evaluation-answer.ts) then come with gRPC's message prefix in front.
   */
  readonly framesAnswer?: boolean;
}

export interface Rpc<Req = never, Res = unknown> {
  /** The method's name in the service (`GetFlag`, `Boolean`, …). */
  method: string;
  kind: RouteKind;
  /**
   * What the method does, for authorization (auth/access.ts): every method declares it (a test walks the
   * tables). The rule reads the request message in camelCase, OFREP's namespace from its metadata.
   */
  access?: Access;
  /** A write (management or token): refused by the tiers that refuse writes. */
  write?: boolean;
  /**
   * The handler reads the request with proto/'s own (snake_case) names, as grpc-js decoded it, instead
   * of renamed to camelCase (field-case.ts): the evaluation RPCs, which rename nothing. Authorization
   * renames a copy only when it reads the input (a namespace-scoped token).
   */
  protoNames?: boolean;
  /** The handler answers with proto/'s own names already (api/operations/resource-messages.ts): not renamed. */
  answersInProtoNames?: boolean;
  handle(request: Req, context: RpcContext): Res | Promise<Res>;
}

/** A table entry whose request type is its own business (the table holds entries of every type). */
// biome-ignore lint/suspicious/noExplicitAny: each entry is typed where it is written; the table is heterogeneous
export type AnyRpc = Rpc<any, unknown>;

export interface RpcDeps {
  config: Pick<Config, 'server' | 'storage' | 'authentication'>;
  auth: AuthService;
  /** The namespace's current revision tag, for management reads (undefined when it does not exist). */
  revisionOf(namespaceKey: string): Promise<string | undefined>;
}

/**
 * The call's input as authorization reads it (auth/access.ts): the request message in camelCase, with
 * the namespace its metadata names when the entry declares such keys (OFREP) and the message names none.
 */
export function rpcAccessInput(rpc: AnyRpc, request: unknown, metadata: Metadata): AccessInput {
  const message = ((rpc.protoNames ? camelFields(request) : request) ?? {}) as Record<string, unknown>;
  const headers = rpc.access?.namespaceHeaders;
  if (headers === undefined) return message;
  const input: Record<string, unknown> = { ...message };
  if (input.namespaceKey === undefined || input.namespaceKey === '') {
    for (const key of headers) {
      const value = firstValue(metadata, key);
      if (value !== undefined && value !== '') {
        input.namespaceKey = value;
        break;
      }
    }
  }
  return input;
}

/** A failure with a gRPC code and message of its own (what no domain error says, e.g. OFREP's). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function statusOf(err: unknown): { code: number; details: string } {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  const { code, message } = errorStatus(err);
  return { code, details: message };
}

function firstValue(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return value === undefined ? undefined : value.toString();
}

function deadlinePassed(call: ServerUnaryCall<unknown, unknown>): boolean {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) && ms <= Date.now();
}

/**
 * Token hashes by token value: the hash is a function of the value alone, so this saves a SHA-256 per
 * call and checks nothing less (the hash is then looked up on every call, so a deleted or expired token
 * is refused at once). Calls on one connection may carry different tokens, so it is not kept per
 * connection as over HTTP. Bounded: emptied when full.
 */
const TOKEN_HASHES_MAX = 1024;
const tokenHashes = new Map<string, string>();
function tokenHash(token: string): string {
  let hash = tokenHashes.get(token);
  if (hash === undefined) {
    if (tokenHashes.size >= TOKEN_HASHES_MAX) tokenHashes.clear();
    hash = hashClientToken(token);
    tokenHashes.set(token, hash);
  }
  return hash;
}

/** The authentication the call needs and presents, or an error (null: none needed); also for streaming calls. */
export async function authenticate(
  rpc: AnyRpc,
  request: unknown,
  metadata: Metadata,
  deps: RpcDeps,
): Promise<Authentication | null> {
  return authenticateNow(rpc, request, metadata, deps);
}

/**
 * `authenticate` without a promise when none is needed: the answer at once when no authentication is
 * required or the token's authentication is remembered, a promise only for a look-up or a JWT check.
 * Refusals are thrown (at once, or as the promise's rejection). For the evaluation fast path, whose
 * calls would otherwise each wait a turn of microtasks for nothing.
 */
export function authenticateNow(
  rpc: AnyRpc,
  request: unknown,
  metadata: Metadata,
  deps: RpcDeps,
): Authentication | null | Promise<Authentication | null> {
  const settings = deps.config.authentication;
  const access = KIND_POLICIES[rpc.kind].access;
  if (!settings.required || access.open || isExcluded(access.group, settings.exclude)) return null;
  const token = presentedToken({
    authorization: firstValue(metadata, 'authorization'),
    cookie: firstValue(metadata, 'cookie'),
  });
  // Not a Bearer credential: Flipt's `JWT <token>` scheme, when that method is on (auth/methods/jwt.ts).
  const jwt =
    token === '' && deps.auth.jwt !== undefined ? presentedJwt(firstValue(metadata, 'authorization')) : undefined;
  if (jwt !== undefined && deps.auth.jwt !== undefined) {
    return deps.auth.jwt.verify(jwt).then((found) => authorized(found, rpc, request, metadata));
  }
  if (token === undefined || token === '') throw new UnauthenticatedError();
  const hash = tokenHash(token);
  const remembered = deps.auth.rememberedAuthentication(hash);
  if (remembered === null) throw new UnauthenticatedError(); // remembered, and expired
  if (remembered !== undefined) return authorized(remembered, rpc, request, metadata);
  return deps.auth.lookUpAuthentication(hash).then((found) => {
    if (!found) throw new UnauthenticatedError();
    return authorized(found, rpc, request, metadata);
  });
}

/** Each entry's declaration with its kind's group, made once per entry rather than per call. */
const declarations = new WeakMap<AnyRpc, DeclaredAccess>();
export function declaredAccessOf(rpc: AnyRpc): DeclaredAccess {
  let declared = declarations.get(rpc);
  if (declared === undefined) {
    const access = KIND_POLICIES[rpc.kind].access;
    declared = { access: rpc.access, group: access.open ? 'unclassified' : access.group };
    declarations.set(rpc, declared);
  }
  return declared;
}

/** `found`, if authorization allows it the call (else PERMISSION_DENIED); the input is formed only if read. */
function authorized(found: Authentication, rpc: AnyRpc, request: unknown, metadata: Metadata): Authentication {
  authorize(declaredAccessOf(rpc), found, () => rpcAccessInput(rpc, request, metadata));
  return found;
}

/** The grpc-js unary handler of one table entry. */
export function unaryHandler(
  rpc: AnyRpc,
  deps: RpcDeps,
): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void {
  const policy = KIND_POLICIES[rpc.kind];
  const tier = tierOfClass(policy.tier, rpc.write === true);
  const refused = refusesTier(deps.config, tier);
  // Token writes open a receipt too: it carries the actor their change is recorded with.
  const tracksWrites = tier === 'management-write' || tier === 'auth-write';
  const readsRevision = tier === 'management-read';

  return (call, callback) => {
    // Bytes that were not the method's message (request-decoding.ts).
    const malformed = malformedRequestStatus(call.request);
    if (malformed) {
      callback(malformed);
      return;
    }
    if (call.cancelled || deadlinePassed(call)) {
      callback({ code: GrpcStatus.DEADLINE_EXCEEDED, details: 'deadline exceeded' });
      return;
    }
    if (refused) {
      callback({ code: GrpcStatus.UNIMPLEMENTED, details: READ_ONLY_MESSAGE });
      return;
    }
    // Handlers see the services' camelCase names (field-case.ts), unless they read proto/'s own.
    const request = rpc.protoNames ? call.request : camelFields(call.request);
    let revision: string | undefined;
    const context: RpcContext = {
      metadata: call.metadata,
      authentication: null,
      setRevision: (value) => {
        if (value !== '') revision = value;
      },
    };
    const receipt: WriteReceipt = {};

    const run = async (): Promise<unknown> => {
      context.authentication = await authenticate(rpc, request, call.metadata, deps);
      if (tracksWrites) Object.assign(receipt, writeReceiptOf(context.authentication, peerAddress(call.getPeer())));
      // The one place gRPC reads a write's precondition (ADR 0035), as HTTP's If-Match.
      if (tier === 'management-write') {
        const ifMatch = ifMatchTag(call.metadata.get(IF_MATCH));
        if (ifMatch !== undefined) receipt.ifMatch = ifMatch;
      }
      if (call.cancelled || deadlinePassed(call)) throw new RpcError(GrpcStatus.DEADLINE_EXCEEDED, 'deadline exceeded');
      if (!tracksWrites) {
        // Read before the data, as over HTTP: the answer holds nothing older than the revision it names.
        let readAt: string | undefined;
        if (readsRevision && rpc.access !== undefined) {
          const ns = addressedNamespaces(rpc.access.namespace, rpcAccessInput(rpc, request, call.metadata));
          if (ns?.length === 1) readAt = await deps.revisionOf(ns[0] as string).catch(() => undefined);
        }
        const answer = await rpc.handle(request, context);
        if (readsRevision && revision === undefined) revision = readAt;
        return answer;
      }
      let pending: Promise<unknown> | undefined;
      const close = collectWrites(receipt, () => {
        pending = Promise.resolve().then(() => rpc.handle(request, context));
      });
      try {
        const answer = await pending;
        if (receipt.revision !== undefined) revision = receipt.revision;
        return answer;
      } finally {
        close();
      }
    };

    run().then(
      (answer) => {
        if (call.cancelled) return;
        if (revision !== undefined) call.sendMetadata(revisionMetadata(revision));
        callback(null, rpc.answersInProtoNames ? answer : snakeFields(answer));
      },
      (err: unknown) => {
        if (call.cancelled) return;
        callback(statusOf(err));
      },
    );
  };
}

/**
 * `x-vexil-revision` metadata, the last one made kept for the next call naming the same revision
 * (grpc-js only reads the metadata it sends), instead of one made and validated per call.
 */
let lastRevisionMetadata: { revision: string; metadata: Metadata } | undefined;
function revisionMetadata(revision: string): Metadata {
  if (lastRevisionMetadata?.revision !== revision) {
    const metadata = new Metadata();
    metadata.set(REVISION_HEADER, revision);
    lastRevisionMetadata = { revision, metadata };
  }
  return lastRevisionMetadata.metadata;
}

/** The client's address from grpc-js's peer string (`127.0.0.1:5000`, `[::1]:5000`; older: `ipv4:…`). */
function peerAddress(peer: string): string | undefined {
  const match = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:\d+$/.exec(peer);
  return match?.[1];
}

/** The implementation of a service from its table; every method of the definition must have an entry. */
export function serviceImplementation(
  definition: ServiceDefinition,
  rpcs: readonly AnyRpc[],
  deps: RpcDeps,
): UntypedServiceImplementation {
  const implementation: UntypedServiceImplementation = {};
  const byMethod = new Map(rpcs.map((rpc) => [rpc.method, rpc]));
  for (const method of Object.keys(definition)) {
    const rpc = byMethod.get(method);
    if (rpc === undefined) throw new Error(`gRPC method ${method} has no handler`);
    implementation[method] = unaryHandler(rpc, deps);
  }
  for (const method of byMethod.keys()) {
    if (!(method in definition)) throw new Error(`gRPC handler ${method} is not a method of the service`);
  }
  return implementation;
}
