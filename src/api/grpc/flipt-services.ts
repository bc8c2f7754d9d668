// The Flipt services on the gRPC server: each service's definition (from our .proto files) and the
// table of its RPCs (one thin adapter per method over the services the REST routes call; flipt.Flipt's
// management methods come from the operations table, api/operations, as the REST routes do).

import type { GrpcObject, Server, ServiceClientConstructor } from '@grpc/grpc-js';
import type { Config } from '../../config/schema.js';
import type { Services } from '../../services/index.js';
import type { LongLivedStreams } from '../long-lived-streams.js';
import { managementRpcs } from '../operations/index.js';
import {
  authRpcs,
  githubMethodRpcs,
  kubernetesMethodRpcs,
  oidcMethodRpcs,
  publicAuthRpcs,
  tokenMethodRpcs,
} from './auth-rpcs.js';
import { passEncodedAnswers } from './evaluation-answer.js';
import type { RegisteredMethod } from './evaluation-fast-path.js';
import { dataRpcs, evaluationRpcs } from './evaluation-rpcs.js';
import { legacyEvaluationRpcs } from './flipt-rpcs.js';
import { metaRpcs } from './meta-rpcs.js';
import { ofrepRpcs } from './ofrep-rpcs.js';
import { fliptGrpcObject } from './protos.js';
import { decodingSafely } from './request-decoding.js';
import { type AnyRpc, type RpcDeps, serviceImplementation } from './rpc.js';

function serviceOf(root: GrpcObject, path: string): ServiceClientConstructor {
  let node: unknown = root;
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'function' || !('service' in node)) throw new Error(`no gRPC service ${path} in proto/`);
  return node as ServiceClientConstructor;
}

export interface FliptServicesDeps extends RpcDeps {
  config: Config;
  services: Services;
  /** Register every server-streaming call here: a drain ends it instead of waiting for it. */
  streams: LongLivedStreams;
  /**
   * The features' own services (features/<name>/, composed by app/), by full service name, each with
   * its RPC table: registered and authenticated as Flipt's are.
   */
  featureTables?: Readonly<Record<string, AnyRpc[]>>;
}

/** Every Flipt service with its RPC table, by full service name. */
export function fliptServiceTables(services: Services, config: Config): Record<string, AnyRpc[]> {
  return {
    'flipt.Flipt': [...managementRpcs(services), ...legacyEvaluationRpcs(services)],
    'flipt.evaluation.EvaluationService': evaluationRpcs(services),
    'flipt.evaluation.DataService': dataRpcs(services),
    'flipt.auth.PublicAuthenticationService': publicAuthRpcs(config),
    'flipt.auth.AuthenticationService': authRpcs(services),
    'flipt.auth.AuthenticationMethodTokenService': tokenMethodRpcs(services, config),
    'flipt.auth.AuthenticationMethodOIDCService': oidcMethodRpcs(services),
    'flipt.auth.AuthenticationMethodKubernetesService': kubernetesMethodRpcs(services),
    'flipt.auth.AuthenticationMethodGithubService': githubMethodRpcs(services),
    'flipt.ofrep.OFREPService': ofrepRpcs(services, config),
    'flipt.meta.MetadataService': metaRpcs(config),
  };
}

/** Registers every Flipt service; returns each method with its table entry (what the fast path takes from). */
export function addFliptServices(
  server: Server,
  deps: FliptServicesDeps,
  root: GrpcObject = fliptGrpcObject() as unknown as GrpcObject,
): RegisteredMethod[] {
  const registered: RegisteredMethod[] = [];
  const tables = { ...fliptServiceTables(deps.services, deps.config), ...deps.featureTables };
  for (const [name, rpcs] of Object.entries(tables)) {
    // Requests that are not valid protobuf reach the handler as MalformedRequest (request-decoding.ts);
    // handlers may answer with bytes they encoded themselves (evaluation-answer.ts).
    const definition = passEncodedAnswers(decodingSafely(serviceOf(root, name).service));
    server.addService(definition, serviceImplementation(definition, rpcs, deps));
    for (const rpc of rpcs) {
      const method = definition[rpc.method];
      if (method !== undefined) registered.push({ path: method.path, rpc, definition: method });
    }
  }
  return registered;
}
