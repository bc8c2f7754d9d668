// One row of the role matrix: a caller's call of one entry point, addressed inside or outside its
// namespace, over one transport, checked against what the declaration says the caller's roles get
// (entry-points.ts expectation). A row says whether it was to be refused and, if it did not hold, why.

import { Metadata, type ServiceError } from '@grpc/grpc-js';
import type { Role, RoleBinding } from '../../src/auth/roles/roles.js';
import { call } from './app.js';
import { addressesNamespace, type EntryPoint, expectation } from './entry-points.js';
import type { FliptGrpc } from './flipt-grpc.js';
import { fingerprint, type Json, makeToken } from './roles-fixture.js';
import type { GrpcRequest, GrpcSample, HttpRequest, HttpSample, SampleContext } from './roles-samples.js';
import { openSse } from './sse.js';

export interface Caller {
  name: string;
  roles: RoleBinding[];
  /** The Authorization header it presents: `Bearer <token>`, or `JWT <token>` for a person. */
  authorization: string;
  /** A person signed in by JWT: nothing stored, so expiring oneself is refused as a bad request. */
  person?: true;
}

export interface RowWorld extends SampleContext {
  base: string;
  grpc: FliptGrpc;
}

const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;

/** The namespaces a sample runs in: inside and outside when its call addresses one, else inside alone. */
export function rowNamespaces(entry: EntryPoint, sample: HttpSample | GrpcSample, inside: string, outside: string) {
  return addressesNamespace(entry.access) || sample.target === true ? [inside, outside] : [undefined];
}

async function callerAuthorization(world: RowWorld, caller: Caller, sample: HttpSample | GrpcSample): Promise<string> {
  if (sample.freshCaller !== true || caller.person === true) return caller.authorization;
  return `Bearer ${(await makeToken(world.api, caller.roles)).token}`;
}

/** Whether an allowed row may answer anything but a refusal (a person expiring itself: 400). */
function anyStatus(caller: Caller, sample: HttpSample | GrpcSample): boolean {
  return sample.anyStatus === true || (sample.freshCaller === true && caller.person === true);
}

/** An HTTP call's status and body, presenting `authorization` if any; a stream is closed once it answers 200. */
export async function httpAnswer(
  world: RowWorld,
  request: HttpRequest,
  authorization: string | undefined,
  stream: boolean,
) {
  const headers = { ...(authorization === undefined ? {} : { authorization }), ...request.headers };
  // `call` types the methods it is usually given; inject takes HEAD as well.
  if (!stream) return call(world.app, request.method as 'GET', request.url, request.body, headers);
  const reader = await openSse(`${world.base}${request.url}`, headers);
  if (reader.status === 200) {
    reader.close();
    return { status: 200, body: undefined };
  }
  await reader.ended;
  let body: Json;
  try {
    body = JSON.parse(reader.text());
  } catch {
    body = reader.text();
  }
  return { status: reader.status, body };
}

/**
 * Whether a 403 body names the missing role: Flipt's error body, or under /ofrep OFREP's own
 * (`{errorCode, errorDetails}`: every answer there is in OFREP's terms, ofrep-errors.ts).
 */
function refusalNames(url: string, body: Json, role: string): boolean {
  const names = (text: unknown) => typeof text === 'string' && text.includes(`role "${role}"`);
  if (url.startsWith('/ofrep/')) return body?.errorCode === 'GENERAL' && names(body?.errorDetails);
  return (
    body?.code === PERMISSION_DENIED &&
    Array.isArray(body?.details) &&
    body.details.length === 0 &&
    names(body?.message)
  );
}

/** A row's outcome: whether it was to be refused, and what went wrong if anything. */
export interface RowOutcome {
  refused: boolean;
  failure?: string;
}

export async function httpRow(
  world: RowWorld,
  caller: Caller,
  entry: EntryPoint,
  sample: HttpSample,
  ns: string | undefined,
  inside: string,
): Promise<RowOutcome> {
  const { refusedFor } = expectation(
    caller.roles,
    entry.access,
    ns === undefined ? undefined : [ns],
    sample.handlerRole,
  );
  const failure = await httpCheck(world, caller, entry, sample, ns, inside, refusedFor);
  return { refused: refusedFor !== undefined, ...(failure === undefined ? {} : { failure }) };
}

async function httpCheck(
  world: RowWorld,
  caller: Caller,
  entry: EntryPoint,
  sample: HttpSample,
  ns: string | undefined,
  inside: string,
  refusedFor: Role | undefined,
): Promise<string | undefined> {
  const label = `${caller.name} ${entry.key} ${ns ?? ''}`.trim();
  const authorization = await callerAuthorization(world, caller, sample);
  const request = await sample.request(world, ns ?? inside);
  const before = refusedFor === undefined ? undefined : await fingerprint(world.app);
  const answer = await httpAnswer(world, request, authorization, sample.stream === true);
  const shown = `${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`;
  if (refusedFor === undefined) {
    if (answer.status === 401 || answer.status === 403) return `${label}: allowed, got ${shown}`;
    if (!anyStatus(caller, sample) && answer.status >= 300) return `${label}: allowed, got ${shown}`;
    return undefined;
  }
  if (answer.status !== 403 || !refusalNames(request.url, answer.body, refusedFor))
    return `${label}: expected 403 naming role "${refusedFor}", got ${shown}`;
  if ((await fingerprint(world.app)) !== before) return `${label}: refused but the database changed`;
  return undefined;
}

function metadataOf(authorization: string | undefined, extra: Record<string, string> = {}): Metadata {
  const metadata = new Metadata();
  if (authorization !== undefined) metadata.set('authorization', authorization);
  for (const [k, v] of Object.entries(extra)) metadata.set(k, v);
  return metadata;
}

interface StreamCall {
  on(event: string, listener: (value: Json) => void): void;
  cancel(): void;
}
type StreamMethod = (message: Json, metadata: Metadata) => StreamCall;

/** A server stream's first word: open (its first message came) or the error it ended with. */
function grpcStreamAnswer(
  world: RowWorld,
  entry: EntryPoint,
  message: Json,
  metadata: Metadata,
): Promise<ServiceError | undefined> {
  const client = world.grpc.client(entry.service as string) as unknown as Record<string, StreamMethod>;
  const stream = (client[entry.method as string] as StreamMethod).call(client, message, metadata);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry.key}: no answer on the stream`)), 10_000);
    stream.on('data', () => {
      clearTimeout(timer);
      stream.cancel();
      resolve(undefined);
    });
    stream.on('error', (err: ServiceError) => {
      clearTimeout(timer);
      resolve(err);
    });
  });
}

/** A gRPC call's error, if it failed, presenting `authorization` if any; a stream is cancelled once it answers. */
export async function grpcAnswer(
  world: RowWorld,
  entry: EntryPoint,
  request: GrpcRequest,
  authorization: string | undefined,
  stream: boolean,
): Promise<ServiceError | undefined> {
  if (stream) return grpcStreamAnswer(world, entry, request.message, metadataOf(authorization, request.metadata));
  const metadata = { ...(authorization === undefined ? {} : { authorization }), ...request.metadata };
  try {
    await world.grpc.call(entry.service as string, entry.method as string, request.message, { metadata });
    return undefined;
  } catch (err) {
    return err as ServiceError;
  }
}

export async function grpcRow(
  world: RowWorld,
  caller: Caller,
  entry: EntryPoint,
  sample: GrpcSample,
  ns: string | undefined,
  inside: string,
): Promise<RowOutcome> {
  const { refusedFor } = expectation(
    caller.roles,
    entry.access,
    ns === undefined ? undefined : [ns],
    sample.handlerRole,
  );
  const failure = await grpcCheck(world, caller, entry, sample, ns, inside, refusedFor);
  return { refused: refusedFor !== undefined, ...(failure === undefined ? {} : { failure }) };
}

async function grpcCheck(
  world: RowWorld,
  caller: Caller,
  entry: EntryPoint,
  sample: GrpcSample,
  ns: string | undefined,
  inside: string,
  refusedFor: Role | undefined,
): Promise<string | undefined> {
  const label = `${caller.name} ${entry.key} ${ns ?? ''}`.trim();
  const authorization = await callerAuthorization(world, caller, sample);
  const request = await sample.request(world, ns ?? inside);
  const before = refusedFor === undefined ? undefined : await fingerprint(world.app);
  const error = await grpcAnswer(world, entry, request, authorization, sample.stream === true);
  const shown = error === undefined ? 'OK' : `${error.code} ${error.details}`;
  if (refusedFor === undefined) {
    if (error === undefined) return undefined;
    if (error.code === PERMISSION_DENIED || error.code === UNAUTHENTICATED) return `${label}: allowed, got ${shown}`;
    return anyStatus(caller, sample) ? undefined : `${label}: allowed, got ${shown}`;
  }
  if (error?.code !== PERMISSION_DENIED || !error.details.includes(`role "${refusedFor}"`)) {
    return `${label}: expected PERMISSION_DENIED naming role "${refusedFor}", got ${shown}`;
  }
  if ((await fingerprint(world.app)) !== before) return `${label}: refused but the database changed`;
  return undefined;
}
