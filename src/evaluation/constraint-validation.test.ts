import { describe, expect, it } from 'vitest';
import { GrpcCode, InvalidArgumentError, ValidationError } from '../domain/errors.js';
import { type ConstraintInput, validateConstraint } from './constraint-validation.js';

describe('validateConstraint', () => {
  const base: ConstraintInput = {
    segmentKey: 'seg',
    type: 'STRING_COMPARISON_TYPE',
    property: 'p',
    operator: 'eq',
    value: 'v',
  };
  const fails = (input: Partial<ConstraintInput>, message: string, update = false): void => {
    let error: unknown;
    try {
      validateConstraint({ ...base, ...input }, { update });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).code).toBe(GrpcCode.INVALID_ARGUMENT);
    expect((error as Error).message).toBe(message);
  };

  it('requires fields in Flipt order', () => {
    fails({ segmentKey: '', property: '', operator: '' }, 'invalid field segmentKey: must not be empty');
    fails({ property: '', operator: '' }, 'invalid field property: must not be empty');
    fails({ operator: '' }, 'invalid field operator: must not be empty');
    fails({ id: '', segmentKey: '' }, 'invalid field id: must not be empty', true);
    expect(() => validateConstraint({ ...base, operator: '' })).toThrowError(ValidationError);
    expect(validateConstraint({ ...base, id: 'c1' }, { update: true })).toEqual({ operator: 'eq', value: 'v' });
  });

  it('lowercases the operator and checks it against the type', () => {
    expect(validateConstraint({ ...base, operator: 'EQ' })).toEqual({ operator: 'eq', value: 'v' });
    expect(validateConstraint({ ...base, operator: 'İSONEOF', value: '["a"]' })).toEqual({
      operator: 'isoneof',
      value: '["a"]',
    });
    fails({ operator: 'LT' }, 'constraint operator "LT" is not valid for type string');
    fails(
      { type: 'NUMBER_COMPARISON_TYPE', operator: 'prefix' },
      'constraint operator "prefix" is not valid for type number',
    );
    fails(
      { type: 'BOOLEAN_COMPARISON_TYPE', operator: 'eq' },
      'constraint operator "eq" is not valid for type boolean',
    );
    fails(
      { type: 'DATETIME_COMPARISON_TYPE', operator: 'Empty' },
      'constraint operator "Empty" is not valid for type datetime',
    );
    fails(
      { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'entityId', operator: 'true' },
      'constraint operator "true" is not valid for type entityId',
    );
    fails({ operator: 'e"q' }, 'constraint operator "e\\"q" is not valid for type string');
  });

  it('rejects unknown types and entityId constraints on another property', () => {
    fails({ type: 'UNKNOWN_COMPARISON_TYPE' }, 'invalid constraint type: "UNKNOWN_COMPARISON_TYPE"');
    fails({ type: 'FOO' }, 'invalid constraint type: "FOO"');
    // gRPC: an enum number beyond the known ones arrives as the number.
    fails({ type: 6 as never }, 'invalid constraint type: "6"');
    fails({ type: 'ENTITY_ID_COMPARISON_TYPE', property: 'foo' }, 'property is foo instead of "entityId"');
    expect(
      validateConstraint({
        ...base,
        type: 'ENTITY_ID_COMPARISON_TYPE',
        property: 'entityId',
        operator: 'eq',
        value: 'u',
      }),
    ).toEqual({ operator: 'eq', value: 'u' });
  });

  it('requires a value except for no-value operators, whose value is forced to ""', () => {
    fails({ value: '' }, 'invalid field value: must not be empty');
    fails({ type: 'NUMBER_COMPARISON_TYPE', operator: 'isoneof', value: '' }, 'invalid field value: must not be empty');
    for (const [type, operator] of [
      ['BOOLEAN_COMPARISON_TYPE', 'TRUE'],
      ['BOOLEAN_COMPARISON_TYPE', 'false'],
      ['STRING_COMPARISON_TYPE', 'empty'],
      ['STRING_COMPARISON_TYPE', 'notempty'],
      ['NUMBER_COMPARISON_TYPE', 'present'],
      ['NUMBER_COMPARISON_TYPE', 'notpresent'],
    ] as const) {
      expect(validateConstraint({ ...base, type, operator, value: '' }).value).toBe('');
      expect(validateConstraint({ ...base, type, operator, value: 'ignored' }).value).toBe('');
    }
  });

  it('normalizes datetimes, and parses them before anything else', () => {
    const dt = { type: 'DATETIME_COMPARISON_TYPE' as const, operator: 'gt' };
    expect(validateConstraint({ ...base, ...dt, value: '2024-01-02T03:04:05.123+02:00' }).value).toBe(
      '2024-01-02T01:04:05Z',
    );
    expect(validateConstraint({ ...base, ...dt, value: '2024-01-02' }).value).toBe('2024-01-02');
    fails({ ...dt, value: '2024-13-01' }, 'parsing datetime from "2024-13-01"');
    fails({ ...dt, operator: 'isoneof', value: '["2024-01-01"]' }, 'parsing datetime from "[\\"2024-01-01\\"]"');
    // The datetime check runs even for no-value operators when a value is sent.
    fails({ ...dt, operator: 'present', value: 'garbage' }, 'parsing datetime from "garbage"');
    expect(validateConstraint({ ...base, ...dt, operator: 'present', value: '2024-01-02' }).value).toBe('');
  });

  it('checks isoneof/isnotoneof values are JSON arrays of the right type, at most 100 long', () => {
    const list = (n: number, json: (i: number) => string): string =>
      `[${Array.from({ length: n }, (_, i) => json(i)).join(',')}]`;
    expect(validateConstraint({ ...base, operator: 'isoneof', value: list(100, (i) => `"${i}"`) }).operator).toBe(
      'isoneof',
    );
    expect(validateConstraint({ ...base, operator: 'isnotoneof', value: 'null' }).value).toBe('null');
    fails({ operator: 'isoneof', value: '[1]' }, 'invalid value provided for property "p" of type string');
    fails({ operator: 'isnotoneof', value: 'a,b' }, 'invalid value provided for property "p" of type string');
    fails(
      { operator: 'isoneof', value: list(101, (i) => `"${i}"`) },
      'too many values provided for property "p" of type string (maximum 100)',
    );
    const num = { type: 'NUMBER_COMPARISON_TYPE' as const, property: 'foo' };
    expect(validateConstraint({ ...base, ...num, operator: 'isoneof', value: '[1, 2.5, null]' }).value).toBe(
      '[1, 2.5, null]',
    );
    fails(
      { ...num, operator: 'isnotoneof', value: '["100foo"]' },
      'invalid value provided for property "foo" of type number',
    );
    fails(
      { ...num, operator: 'isoneof', value: list(101, (i) => String(i)) },
      'too many values provided for property "foo" of type number (maximum 100)',
    );
    const ent = { type: 'ENTITY_ID_COMPARISON_TYPE' as const, property: 'entityId' };
    fails(
      { ...ent, operator: 'isoneof', value: '[1]' },
      'invalid value provided for property "entityId" of type entityId',
    );
    fails(
      { ...ent, operator: 'isoneof', value: list(101, (i) => `"${i}"`) },
      'too many values provided for property "entityId" of type entityId (maximum 100)',
    );
  });

  it('does not validate plain numeric values at create time', () => {
    expect(validateConstraint({ ...base, type: 'NUMBER_COMPARISON_TYPE', operator: 'gt', value: 'ten' }).value).toBe(
      'ten',
    );
  });
});
