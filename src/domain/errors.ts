// Typed domain errors. Each carries the gRPC status code Flipt would answer with; the HTTP layer maps
// the code to a status in one place (api/http/error-handler.ts). Messages are Flipt's, word for word.

export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

export abstract class DomainError extends Error {
  abstract readonly code: GrpcCode;
}

/** `<subject> not found`, e.g. NotFoundError('flag "default/foo"'). */
export class NotFoundError extends DomainError {
  readonly code = GrpcCode.NOT_FOUND;
  constructor(subject: string) {
    super(`${subject} not found`);
  }
}

/**
 * NotFound for a flag an evaluation names, made without a stack. A flag that does not exist (not created
 * yet, mistyped) is an answer clients may ask for thousands of times a second, not a fault, and V8
 * gathering the stack as the error is made (walking and describing every frame) was about a fifth of
 * such a refused call's instructions. Nothing reads it: the answer carries the message only.
 */
export function flagNotFound(namespaceKey: string, flagKey: string): NotFoundError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new NotFoundError(`flag "${namespaceKey}/${flagKey}"`);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A message shown verbatim with InvalidArgument (400): "not unique", "is in use", … */
export class InvalidArgumentError extends DomainError {
  readonly code = GrpcCode.INVALID_ARGUMENT;
}

/** `invalid field <field>: <reason>` (400). */
export class ValidationError extends InvalidArgumentError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid field ${field}: ${reason}`);
  }
}

/**
 * Flipt reports duplicates as InvalidArgument (400), not AlreadyExists; we keep its status so clients
 * that branch on it keep working, but keep a distinct class so code can tell the two apart.
 */
export class AlreadyExistsError extends InvalidArgumentError {}

export class UnauthenticatedError extends DomainError {
  readonly code = GrpcCode.UNAUTHENTICATED;
  constructor(message = 'request was not authenticated') {
    super(message);
  }
}

export class PermissionDeniedError extends DomainError {
  readonly code = GrpcCode.PERMISSION_DENIED;
  constructor(message = 'permission denied') {
    super(message);
  }
}

/** The database (or another dependency) cannot be reached: 503. */
export class UnavailableError extends DomainError {
  readonly code = GrpcCode.UNAVAILABLE;
}

/** The request was cancelled or the query was cancelled by the database. */
export class CancelledError extends DomainError {
  readonly code = GrpcCode.CANCELLED;
}

export class UnimplementedError extends DomainError {
  readonly code = GrpcCode.UNIMPLEMENTED;
}

export class InternalError extends DomainError {
  readonly code = GrpcCode.INTERNAL;
}

/** The request is sound but the current state does not allow it (e.g. a revert whose segment is gone): 400. */
export class FailedPreconditionError extends DomainError {
  readonly code = GrpcCode.FAILED_PRECONDITION;
}

/**
 * A write's precondition (`If-Match`, gRPC `if-match`) no longer holds: the object or one of its parts
 * changed after the revision the client read (ADR 0035). FAILED_PRECONDITION, answered over HTTP with
 * 412 instead of the code's usual 400, so a client can tell "someone else changed it" from a bad request.
 */
export class PreconditionFailedError extends FailedPreconditionError {}
