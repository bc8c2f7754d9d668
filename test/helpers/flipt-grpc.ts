// A real @grpc/grpc-js client of Flipt's services, built from the project's own proto files (proto/)
// with @grpc/proto-loader, as any client generated from Flipt's protos would call them.

import {
  type Client,
  credentials,
  type GrpcObject,
  loadPackageDefinition,
  Metadata,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { float32 } from '../../src/api/float32.js';
import { PROTO_DIR, PROTO_FILES } from '../../src/api/grpc/protos.js';

let root: GrpcObject | undefined;

function protoRoot(): GrpcObject {
  // camelCase fields, unlike the server's keepCase: the wire carries numbers only, and a client generated
  // with other options must work unchanged.
  root ??= loadPackageDefinition(
    loadSync([...PROTO_FILES], {
      keepCase: false,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
      includeDirs: [PROTO_DIR],
    }),
  );
  return root;
}

export function serviceConstructor(name: string): ServiceClientConstructor {
  let node: unknown = protoRoot();
  for (const part of name.split('.')) node = (node as Record<string, unknown>)[part];
  return node as ServiceClientConstructor;
}

export interface CallOptions {
  token?: string;
  metadata?: Record<string, string>;
  /** ms from now */
  deadlineMs?: number;
  deadline?: Date;
}

export interface Answer<T = unknown> {
  response: T;
  /** The response's header metadata. */
  headers: Record<string, string>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary messages
export type Msg = any;

/** Clients of every service on one channel per service, and a promise per call. */
export class FliptGrpc {
  readonly #clients = new Map<string, Client>();

  /**
   * `compressed`: every call is sent gzip-encoded (`grpc-encoding: gzip`), which the evaluation fast
   * path leaves to grpc-js (api/grpc/evaluation-fast-path.ts): the same calls through the other path.
   */
  constructor(
    readonly port: number,
    readonly options: { compressed?: boolean } = {},
  ) {}

  client(service: string): Client {
    let client = this.#clients.get(service);
    if (client === undefined) {
      const Ctor = serviceConstructor(service);
      const GZIP = 2;
      client = new Ctor(
        `127.0.0.1:${this.port}`,
        credentials.createInsecure(),
        this.options.compressed ? { 'grpc.default_compression_algorithm': GZIP } : {},
      );
      this.#clients.set(service, client);
    }
    return client;
  }

  /** One unary call: its response and header metadata, or the ServiceError (code, details). */
  call<T = Msg>(service: string, method: string, request: unknown, options: CallOptions = {}): Promise<Answer<T>> {
    const client = this.client(service) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const metadata = new Metadata();
    if (options.token !== undefined) metadata.set('authorization', `Bearer ${options.token}`);
    for (const [k, v] of Object.entries(options.metadata ?? {})) metadata.set(k, v);
    const deadline =
      options.deadline ?? (options.deadlineMs !== undefined ? new Date(Date.now() + options.deadlineMs) : undefined);
    const fn = client[method];
    if (typeof fn !== 'function') throw new Error(`no method ${service}/${method}`);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const call = fn.call(
        client,
        request,
        metadata,
        deadline ? { deadline } : {},
        (err: ServiceError | null, response: T) => (err ? reject(err) : resolve({ response, headers })),
      ) as { on(event: 'metadata', cb: (m: Metadata) => void): void };
      call.on('metadata', (m) => {
        for (const [k, v] of Object.entries(m.getMap())) headers[k] = String(v);
      });
    });
  }

  /** The gRPC error a call fails with (a test failure if it succeeds). */
  async error(service: string, method: string, request: unknown, options: CallOptions = {}): Promise<ServiceError> {
    try {
      await this.call(service, method, request, options);
    } catch (err) {
      return err as ServiceError;
    }
    throw new Error(`${service}/${method} succeeded, expected an error`);
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }
}

/** google.protobuf.Timestamp → RFC 3339 text as Vexil's JSON prints it (milliseconds, or finer when set). */
export function timestampJson(ts: { seconds: number; nanos: number } | null | undefined): string | undefined {
  if (!ts) return undefined;
  const date = new Date(Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6));
  if (ts.nanos % 1e6 === 0) return date.toISOString();
  let frac = String(ts.nanos).padStart(9, '0');
  while (frac.endsWith('000')) frac = frac.slice(0, -3);
  return `${date.toISOString().replace(/\.\d{3}Z$/, '')}.${frac}Z`;
}

function structJson(value: Msg): Msg {
  switch (value?.kind) {
    case 'structValue':
      return Object.fromEntries(Object.entries(value.structValue.fields ?? {}).map(([k, v]) => [k, structJson(v)]));
    case 'listValue':
      return (value.listValue.values ?? []).map(structJson);
    case 'nullValue':
    case undefined:
      return null;
    default:
      return value[value.kind];
  }
}

/**
 * A decoded message as Flipt's JSON shows it: unset message fields (null) and oneof case names left
 * out, timestamps as RFC 3339 text, Struct as JSON, float32 fields in their shortest form.
 */
export function messageJson(value: Msg, top = true): Msg {
  if (Array.isArray(value)) return value.map((v) => messageJson(v, false));
  if (typeof value === 'number' && !Number.isInteger(value)) return float32(value);
  if (value === null || typeof value !== 'object') return value;
  if (!top && 'seconds' in value && 'nanos' in value) return timestampJson(value);
  const out: Msg = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined || k === 'rule' || k === 'response' || k.startsWith('_')) continue;
    // Vexil's `roles` extension (issue 41): REST shows it only on an authentication that has roles.
    if (k === 'roles' && Array.isArray(v) && v.length === 0) continue;
    // `metadata` is a Struct on flags and OFREP flags, a map<string, string> on authentications.
    const struct = k === 'metadata' && typeof v === 'object' && 'fields' in (v as object);
    out[k] = struct ? structJson({ kind: 'structValue', structValue: v }) : messageJson(v, false);
  }
  return out;
}
