// Tiers and revisions at the HTTP edge.
// - `server.mode: read` serves evaluation, OFREP, the client-side snapshot, health, metrics, meta and
//   every management read, and refuses every write (management API and token create/delete/expire)
//   with 405 and Flipt's error body. `storage.read_only: true` refuses the management writes the same
//   way (Flipt answers those with a 500; see docs/api.md's compatibility notes); tokens stay writable,
//   as in Flipt, where read-only applies to flag storage only.
// - Management responses carry `X-Vexil-Revision`: after a write, the revision that write created (read
//   back inside its transaction, services/write.ts); on a read, the namespace's current revision.
//   Evaluation routes set the header themselves, from the snapshot they answered from.
// Both are route-level hooks added as routes are registered, so routes they do not concern (the
// evaluation hot path above all) run no extra code at all. A route's tier follows from its kind
// (route-kinds.ts) and, for management and token routes, its method.

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import type { Access } from '../../auth/access.js';
import { addressedNamespaces } from '../../auth/authorize.js';
import type { Config } from '../../config/schema.js';
import { GrpcCode } from '../../domain/errors.js';
import { collectWrites, type WriteReceipt } from '../../services/write.js';
import { writeReceiptOf } from '../change-actor.js';
import { IF_MATCH, ifMatchTag } from '../if-match.js';
import { READ_ONLY_MESSAGE, type RouteTier, refusesTier, type TierClass, tierOfClass } from '../kinds.js';
import { httpAccessInput, namedNamespaceKey } from './access-input.js';
import { sendErrorBody } from './error-handler.js';
import type { HttpApp } from './http-app.js';
import { addRouteHook } from './route-hooks.js';
import { accessOf, policyOf } from './route-kinds.js';
import { REVISION_HEADER } from './wire.js';

export { READ_ONLY_MESSAGE, type RouteTier, refusesTier } from '../kinds.js';

export interface TierRoute {
  method: string;
  url: string;
  tier: RouteTier;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The tier of a route of the class, for one of its methods. */
export function tierOf(tier: TierClass, method: string): RouteTier {
  return tierOfClass(tier, WRITE_METHODS.has(method.toUpperCase()));
}

export interface TierOptions {
  config: Pick<Config, 'server' | 'storage'>;
  /** The namespace's current revision tag (one indexed read), or undefined when it does not exist. */
  revisionOf(namespaceKey: string): Promise<string | undefined>;
}

const routeTables = new WeakMap<object, TierRoute[]>();

/** Every route registered since installTiers, with its tier: the route table tests walk. */
export function tierRoutes(app: HttpApp): readonly TierRoute[] {
  return routeTables.get(app) ?? [];
}

function refuse(request: FastifyRequest, reply: FastifyReply): void {
  // A routing answer like Fastify's own 404, hence here and not in the error handler: grpc-gateway
  // answers a method it will not serve with 405 and code 12 (UNIMPLEMENTED). Answering from the hook
  // (without calling `done`) ends the request here, before the body is parsed, and before the
  // telemetry hook that sets X-Request-Id: sendErrorBody sets it.
  sendErrorBody(request, reply.code(405), { code: GrpcCode.UNIMPLEMENTED, message: READ_ONLY_MESSAGE, details: [] });
}

/**
 * The namespace a management request addresses, when it addresses exactly one, by its declared access
 * (auth/authorize.ts). A read across namespaces (`filtered`: the change log of all, the namespace list)
 * names one only when its input names it.
 */
function requestNamespace(access: Access | undefined, request: FastifyRequest): string | undefined {
  if (access === undefined) return undefined;
  if (access.namespace === 'filtered') {
    const named = namedNamespaceKey(request, access);
    return typeof named === 'string' && named !== '' ? named : undefined;
  }
  const namespaces = addressedNamespaces(access.namespace, httpAccessInput(request, access));
  return namespaces?.length === 1 ? namespaces[0] : undefined;
}

/** Call before any route is registered. */
export function installTiers(app: HttpApp, options: TierOptions): void {
  const table: TierRoute[] = [];
  routeTables.set(app, table);
  const receipts = new WeakMap<FastifyRequest, WriteReceipt>();

  const trackWrites = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // preValidation, not onRequest: body parsing runs in the socket's async context and would lose it.
    const receipt: WriteReceipt = writeReceiptOf(request.authentication, request.ip);
    // The one place HTTP reads a write's precondition (ADR 0035): token writes take none.
    if (policyOf(request.routeOptions).tier === 'management') {
      const ifMatch = ifMatchTag(request.headers[IF_MATCH]);
      if (ifMatch !== undefined) receipt.ifMatch = ifMatch;
    }
    receipts.set(request, receipt);
    // 'close' follows every response, sent or aborted (after onSend, which reads the receipt).
    reply.raw.once('close', collectWrites(receipt, done));
  };

  // A read's revision is read before its data: the answer then holds nothing older than the revision
  // it names, so a client that sends it back as a write's precondition (If-Match, ADR 0035) cannot
  // miss a change that landed between the two reads.
  const readRevisions = new WeakMap<FastifyRequest, string | undefined>();
  const readRevision = async (request: FastifyRequest) => {
    const namespaceKey = requestNamespace(accessOf(request.routeOptions), request);
    if (namespaceKey === undefined) return;
    readRevisions.set(request, await options.revisionOf(namespaceKey).catch(() => undefined));
  };

  const revisionHeader = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode >= 400 || reply.hasHeader(REVISION_HEADER)) return payload;
    let revision = receipts.get(request)?.revision;
    if (revision === undefined && readRevisions.has(request)) revision = readRevisions.get(request);
    else if (revision === undefined) {
      const namespaceKey = requestNamespace(accessOf(request.routeOptions), request);
      if (namespaceKey !== undefined) revision = await options.revisionOf(namespaceKey).catch(() => undefined);
    }
    if (revision !== undefined) reply.header(REVISION_HEADER, revision);
    return payload;
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url ?? '';
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const tierClass = policyOf(route).tier;
    const tiers = methods.map((method) => tierOf(tierClass, method));
    methods.forEach((method, i) => {
      table.push({ method: method.toUpperCase(), url, tier: tiers[i] as RouteTier });
    });
    if (tiers.some((tier) => refusesTier(options.config, tier))) {
      // First of the route's hooks: refused before its body is even parsed or validated.
      addRouteHook(route, 'onRequest', refuse, 'first');
      return;
    }
    // Only writes need a receipt: a read's header is the namespace's current revision, read in onSend.
    // Token writes too: their receipt carries the actor their change is recorded with.
    if (tiers.includes('management-write') || tiers.includes('auth-write')) {
      addRouteHook(route, 'preValidation', trackWrites, 'last');
    }
    if (tiers.some((tier) => tier === 'management-read' || tier === 'management-write')) {
      addRouteHook(route, 'onSend', revisionHeader, 'last');
    }
    if (tiers.every((tier) => tier === 'management-read')) addRouteHook(route, 'preHandler', readRevision, 'last');
  });
}
