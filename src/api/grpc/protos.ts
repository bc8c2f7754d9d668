// Flipt's gRPC contract as Vexil serves it: the .proto files in proto/ at the repository root, loaded
// once with @grpc/proto-loader and shared by the service adapters and server reflection.
//
// Loader options (the same flags generate the types: `npm run proto:types`, package.json):
// * keepCase: true. The wire carries field numbers only, so a client generated from Flipt's protos
//   interoperates whatever case we pick; but proto-loader writes the descriptors that server
//   reflection sends from the same parse, and without keepCase they would name Flipt's fields in
//   camelCase (`namespaceKey`), which reflection clients (grpcurl, Evans) then expect in their JSON.
//   With keepCase the objects the adapters see carry Flipt's own names (`namespace_key`).
// * defaults: true. Proto3 has no "absent" for scalars: a decoded request has every field (''/0/
//   false, [] and {} for repeated and map fields), as Flipt's Go handlers see them. Message fields
//   stay null when absent, and proto3 `optional` fields are absent unless sent.
// * oneofs: true. A decoded oneof also names its set member (`rule: 'segment' | 'threshold'`).
// * enums: String. Enum values are names (`'BOOLEAN_FLAG_TYPE'`), as in Flipt's REST JSON and our
//   domain; an answer may give either the name or the number.
// * longs: Number. Flipt's counts are int32 (`total_count`); the only 64-bit field is
//   google.protobuf.Timestamp.seconds, which fits a double for any real date.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType as AuthGrpc } from './generated/auth.js';
import type { ProtoGrpcType as ChangesGrpc } from './generated/changes.js';
import type { ProtoGrpcType as EvaluationGrpc } from './generated/evaluation.js';
import type { ProtoGrpcType as FliptGrpc } from './generated/flipt.js';
import type { ProtoGrpcType as MetaGrpc } from './generated/meta.js';
import type { ProtoGrpcType as OfrepGrpc } from './generated/ofrep.js';
import type { ProtoGrpcType as RolesGrpc } from './generated/roles.js';

/** The files of proto/, relative to it (the import paths a client generator is given). */
export const PROTO_FILES = [
  'flipt.proto',
  'evaluation/evaluation.proto',
  'auth/auth.proto',
  'ofrep/ofrep.proto',
  'meta/meta.proto',
  // Vexil's own extension (not Flipt's contract).
  'vexil/changes/v1/changes.proto',
  'vexil/roles/v1/roles.proto',
] as const;

export const PROTO_LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} satisfies Options;

/** Every Flipt package Vexil declares, typed by the generated types (src/api/grpc/generated/). */
export type FliptGrpcObject = FliptGrpc & EvaluationGrpc & AuthGrpc & OfrepGrpc & MetaGrpc & ChangesGrpc & RolesGrpc;

/**
 * proto/ at the repository root. This module is src/api/grpc/protos.ts under tsx and
 * dist/api/grpc/protos.js when built: three levels below the root either way.
 */
function findProtoDir(): string {
  const candidates = ['../../../proto/', '../../../../proto/'];
  for (const candidate of candidates) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}flipt.proto`)) return dir;
  }
  throw new Error(`proto/flipt.proto not found from ${fileURLToPath(import.meta.url)}`);
}

export const PROTO_DIR = findProtoDir();

let packageDefinition: PackageDefinition | undefined;
let grpcObject: FliptGrpcObject | undefined;

/** The package definition of every file of proto/, parsed on first use and shared after. */
export function fliptPackageDefinition(): PackageDefinition {
  packageDefinition ??= loadSync([...PROTO_FILES], { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
  return packageDefinition;
}

/** The same definition as grpc-js service definitions, e.g. `fliptGrpcObject().flipt.Flipt.service`. */
export function fliptGrpcObject(): FliptGrpcObject {
  grpcObject ??= loadPackageDefinition(fliptPackageDefinition()) as unknown as FliptGrpcObject;
  return grpcObject;
}
