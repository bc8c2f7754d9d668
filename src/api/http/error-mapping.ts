// Errors in Flipt's terms: the body {"code","message","details":[]} and the HTTP status grpc-gateway
// gives each gRPC code, for domain errors and for Fastify's own client errors. Pure: answering is
// error-handler.ts's (and OFREP's, ofrep-errors.ts), recording is the telemetry hooks'.

import type { FastifyError } from 'fastify';
import { GrpcCode, PreconditionFailedError } from '../../domain/errors.js';
import { domainErrorStatus, errorStatus } from '../error-status.js';

const HTTP_STATUS: Record<number, number> = {
  [GrpcCode.OK]: 200,
  [GrpcCode.CANCELLED]: 499,
  [GrpcCode.UNKNOWN]: 500,
  [GrpcCode.INVALID_ARGUMENT]: 400,
  [GrpcCode.DEADLINE_EXCEEDED]: 504,
  [GrpcCode.NOT_FOUND]: 404,
  [GrpcCode.ALREADY_EXISTS]: 409,
  [GrpcCode.PERMISSION_DENIED]: 403,
  [GrpcCode.RESOURCE_EXHAUSTED]: 429,
  [GrpcCode.FAILED_PRECONDITION]: 400,
  [GrpcCode.ABORTED]: 409,
  [GrpcCode.OUT_OF_RANGE]: 400,
  [GrpcCode.UNIMPLEMENTED]: 501,
  [GrpcCode.INTERNAL]: 500,
  [GrpcCode.UNAVAILABLE]: 503,
  [GrpcCode.DATA_LOSS]: 500,
  [GrpcCode.UNAUTHENTICATED]: 401,
};

export function httpStatusOf(code: number): number {
  return HTTP_STATUS[code] ?? 500;
}

export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

export interface MappedError {
  status: number;
  body: ErrorBody;
}

/** Fastify's own client errors (bad JSON, body too large, …) and their gRPC codes. */
function fastifyClientError(err: FastifyError): MappedError | undefined {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { code: GrpcCode.RESOURCE_EXHAUSTED, message: 'request body too large', details: [] } };
  }
  if (err.validation) {
    return { status: 400, body: { code: GrpcCode.INVALID_ARGUMENT, message: validationMessage(err), details: [] } };
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code =
      status === 404 ? GrpcCode.NOT_FOUND : status === 401 ? GrpcCode.UNAUTHENTICATED : GrpcCode.INVALID_ARGUMENT;
    return { status: status === 415 ? 400 : status, body: { code, message: err.message, details: [] } };
  }
  return undefined;
}

/** A schema failure as Flipt words field errors: "invalid field <name>: <reason>". */
function validationMessage(err: FastifyError): string {
  const errors = err.validation ?? [];
  const first = errors[0];
  if (!first) return err.message;
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const field = missing ?? path;
  if (err.validationContext === 'body' && (path === 'context' || path.startsWith('context.'))) {
    return 'invalid values for key(s) in json body';
  }
  if (missing) return `invalid field ${field}: must not be empty`;
  if (field === '') return 'invalid values for key(s) in json body';
  // A union (enum name or number, number or quoted number): ajv reports each branch, then anyOf.
  const union = errors.find((e) => e.keyword === 'anyOf' && e.instancePath === first.instancePath);
  if (union) {
    const branches = JSON.stringify((union as { schema?: unknown }).schema ?? []);
    const value = JSON.stringify((union as { data?: unknown }).data);
    return branches.includes('"const"')
      ? `invalid field ${field}: unknown value ${value}`
      : `invalid field ${field}: invalid value ${value}`;
  }
  return `invalid field ${field}: ${first.message ?? 'invalid value'}`;
}

export function mapError(err: unknown): MappedError {
  const domain = domainErrorStatus(err);
  if (domain) {
    const status = err instanceof PreconditionFailedError ? 412 : httpStatusOf(domain.code);
    return { status, body: { ...domain, details: [] } };
  }
  const mapped = fastifyClientError(err as FastifyError);
  if (mapped) return mapped;
  const { code, message } = errorStatus(err);
  return { status: httpStatusOf(code), body: { code, message, details: [] } };
}
