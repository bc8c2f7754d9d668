// flagNotFound: the evaluation's NotFound, Flipt's message and code, made without gathering a stack.

import { describe, expect, it } from 'vitest';
import { flagNotFound, GrpcCode, NotFoundError } from './errors.js';

describe('flagNotFound', () => {
  it("is Flipt's NotFound for the flag, with no stack frames, and leaves the stack limit as it was", () => {
    const before = Error.stackTraceLimit;
    const err = flagNotFound('default', 'missing');
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe(GrpcCode.NOT_FOUND);
    expect(err.message).toBe('flag "default/missing" not found');
    expect(err.stack).not.toContain('\n    at ');
    expect(Error.stackTraceLimit).toBe(before);
    // Other errors keep their stacks.
    expect(new NotFoundError('flag "default/x"').stack).toContain('\n    at ');
  });
});
