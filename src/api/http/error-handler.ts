// The one place where errors become HTTP answers: Flipt's body {"code","message","details":[]} with
// the HTTP status grpc-gateway gives each gRPC code (error-mapping.ts). OFREP routes have their own
// format (ofrep-errors.ts).

import type { FastifyReply, FastifyRequest } from 'fastify';
import { UnavailableError } from '../../domain/errors.js';
import { type ErrorBody, mapError } from './error-mapping.js';
import { setRequestIdHeader } from './request-telemetry.js';
import { wantsPretty } from './wire.js';

/**
 * The challenge of every 401 (RFC 9110 §11.6.1 requires one): the scheme a client should answer with.
 * Flipt copies its error message into the header, which no client can read as a challenge.
 */
export const BEARER_CHALLENGE = 'Bearer';

/**
 * The log line of a request that failed on the server's side: an error with its stack, except the
 * database being away (or writes contending past their retries), a warning with its message: an
 * outage is logged once at error when it starts (app/build-app.ts), not once per request it fails.
 */
export function logServerError(request: FastifyRequest, err: unknown): void {
  if (err instanceof UnavailableError)
    request.server.logger.warn({ requestId: request.id, error: err.message }, 'request failed');
  else request.server.logger.error({ requestId: request.id, err }, 'request failed');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body } = mapError(err);
  if (status >= 500) logServerError(request, err);
  if (status === 401) reply.header('www-authenticate', BEARER_CHALLENGE);
  return sendErrorBody(request, reply.code(status), body);
}

/**
 * Sends Flipt's error body, indented when `?pretty` asks for it: errors also come from routes that
 * indent their own answers (evaluation) and from no route at all (404), where no onSend hook runs.
 */
export function sendErrorBody(request: FastifyRequest, reply: FastifyReply, body: ErrorBody): FastifyReply {
  // Also here: the evaluation routes have no hook that sets it before they answer.
  setRequestIdHeader(reply);
  reply.type('application/json');
  return reply.send(wantsPretty(request) ? JSON.stringify(body, null, 2) : body);
}
