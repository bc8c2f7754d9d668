// What several route modules share: Flipt's answer to a body its decoder rejects, and JSON sent with
// Flipt's exact content type. (The management routes' namespace and query helpers are the operations
// table's converters: api/operations/inputs.ts.)

import type { FastifyReply } from 'fastify';
import { InvalidArgumentError } from '../../../domain/errors.js';

/** Flipt's answer to any body its decoder rejects (a non-string context value above all). */
export function invalidBodyError(): InvalidArgumentError {
  return new InvalidArgumentError('invalid values for key(s) in json body');
}

/**
 * Sends JSON text as `Content-Type: application/json` exactly, as Flipt answers /health and /meta/*
 * (and its own tests assert). Fastify appends `; charset=utf-8` to a JSON type it serializes or sends
 * as text, unless the reply has a serializer of its own: the text is already JSON, so it is its own.
 */
export function sendExactJson(reply: FastifyReply, text: string): void {
  reply
    .header('content-type', 'application/json')
    .serializer((payload: unknown) => payload as string)
    .send(text);
}
