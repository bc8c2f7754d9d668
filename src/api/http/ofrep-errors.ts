// OFREP's error body {"key"?, "errorCode", "errorDetails"} (behavior.md §6.4) and its statuses, for
// failures of the OFREP routes and for unknown routes and malformed requests under /ofrep (app.ts).

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, GrpcCode } from '../../domain/errors.js';
import { FlagFailure } from '../../services/ofrep.js';
import { BEARER_CHALLENGE, logServerError } from './error-handler.js';
import { httpStatusOf } from './error-mapping.js';
import { setRequestIdHeader } from './request-telemetry.js';
import type { OfrepErrorBody, OfrepErrorCode } from './schemas/ofrep.js';

/** An error already in OFREP terms. */
export class OfrepError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: OfrepErrorCode,
    message: string,
    readonly key?: string,
  ) {
    super(message);
  }
}

/** The OFREP error body and status for anything thrown under /ofrep (§6.4). */
export function ofrepError(err: unknown, request: FastifyRequest): { status: number; body: OfrepErrorBody } {
  let cause = err;
  // The single-flag route always knows its key, and OFREP clients require it in a failure body
  // (Flipt omits it when the body cannot be decoded; clients then report GENERAL, not the code).
  const params = request.params as { key?: unknown } | undefined;
  let key: string | undefined = typeof params?.key === 'string' && params.key !== '' ? params.key : undefined;
  if (cause instanceof FlagFailure) {
    key = cause.key;
    cause = cause.cause;
  }
  const withKey = (status: number, errorCode: OfrepErrorCode, errorDetails: string) => ({
    status,
    body: key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails },
  });
  if (cause instanceof OfrepError) {
    key ??= cause.key;
    return withKey(cause.status, cause.errorCode, cause.message);
  }
  if (cause instanceof DomainError) {
    const status = httpStatusOf(cause.code);
    switch (cause.code) {
      case GrpcCode.NOT_FOUND:
        return withKey(status, 'FLAG_NOT_FOUND', key === undefined ? cause.message : `flag was not found ${key}`);
      case GrpcCode.INVALID_ARGUMENT:
        return withKey(status, 'INVALID_CONTEXT', cause.message);
      default:
        if (status >= 500) logServerError(request, cause);
        return withKey(status, 'GENERAL', cause.message);
    }
  }
  const fastifyError = cause as FastifyError;
  if (fastifyError.validation) {
    return withKey(400, 'INVALID_CONTEXT', 'invalid values for key(s) in json body');
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return withKey(413, 'GENERAL', 'request body too large');
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 400) return withKey(400, 'PARSE_ERROR', fastifyError.message);
  if (status > 400 && status < 500) return withKey(status, 'GENERAL', fastifyError.message);
  logServerError(request, cause);
  return withKey(500, 'GENERAL', 'internal error');
}

/** Answers `err` in OFREP's error body (for app.ts too: what Fastify's router rejects under /ofrep). */
export function sendOfrepError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body } = ofrepError(err, request);
  setRequestIdHeader(reply);
  if (status === 401) reply.header('www-authenticate', BEARER_CHALLENGE);
  // As text: the schema's serializer would write the optional `key` after the required fields, and
  // Flipt writes it first.
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}
