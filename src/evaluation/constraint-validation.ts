// Constraint create/update validation (behavior.md §2.1): what the management API checks before it
// stores a constraint, with Flipt v1's messages in Flipt's order, and the operator and value to store.
// Evaluation never calls it (src/services/constraints.ts does); it stays in this pure core beside the
// Go parsers it shares with compileConstraint.

import { InvalidArgumentError, ValidationError } from '../domain/errors.js';
import type { ComparisonType } from '../domain/types.js';
import { decodeGoNumberArray, decodeGoStringArray } from './go-json.js';
import { goQuote, goToLower } from './go-strings.js';
import { normalizeGoDateTime } from './go-time.js';

/** The property an ENTITY_ID_COMPARISON_TYPE constraint must name. */
export const ENTITY_ID_PROPERTY = 'entityId';

/** Flipt's MAX_JSON_ARRAY_ITEMS: the most elements an isoneof/isnotoneof value may list. */
export const MAX_JSON_ARRAY_ITEMS = 100;

export const STRING_OPERATORS: ReadonlySet<string> = new Set([
  'eq',
  'neq',
  'empty',
  'notempty',
  'prefix',
  'suffix',
  'isoneof',
  'isnotoneof',
  'contains',
  'notcontains',
]);
export const NUMBER_OPERATORS: ReadonlySet<string> = new Set([
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'present',
  'notpresent',
  'isoneof',
  'isnotoneof',
]);
export const BOOLEAN_OPERATORS: ReadonlySet<string> = new Set(['true', 'false', 'present', 'notpresent']);
/** Flipt validates datetime operators against its number list, isoneof included (§2.1). */
export const DATETIME_OPERATORS: ReadonlySet<string> = NUMBER_OPERATORS;
export const ENTITY_ID_OPERATORS: ReadonlySet<string> = new Set([
  'eq',
  'neq',
  'isoneof',
  'isnotoneof',
  'contains',
  'notcontains',
]);
/** Operators that take no value: an empty value is allowed and the stored value is forced to "". */
export const NO_VALUE_OPERATORS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'empty',
  'notempty',
  'present',
  'notpresent',
]);

/** What the management API receives for a constraint create or update. */
export interface ConstraintInput {
  /** Required (non-empty) when validating an update. */
  id?: string;
  segmentKey: string;
  /** A ComparisonType name; anything else (incl. UNKNOWN_COMPARISON_TYPE) is rejected. */
  type: ComparisonType | string;
  property: string;
  operator: string;
  value: string;
}

/** The operator and value to store once an input has passed validation. */
export interface NormalizedConstraint {
  /** Lowercased (Go strings.ToLower). */
  operator: string;
  /** "" for no-value operators; datetimes normalized to UTC whole-second RFC 3339 or YYYY-MM-DD. */
  value: string;
}

function validateArrayValue(type: string, value: string, property: string): void {
  let label: string;
  let count: number | undefined;
  if (type === 'NUMBER_COMPARISON_TYPE') {
    label = 'number';
    count = decodeGoNumberArray(value)?.length;
  } else if (type === 'STRING_COMPARISON_TYPE' || type === 'ENTITY_ID_COMPARISON_TYPE') {
    label = type === 'STRING_COMPARISON_TYPE' ? 'string' : 'entityId';
    count = decodeGoStringArray(value)?.length;
  } else {
    return;
  }
  if (count === undefined) {
    throw new InvalidArgumentError(`invalid value provided for property ${goQuote(property)} of type ${label}`);
  }
  if (count > MAX_JSON_ARRAY_ITEMS) {
    throw new InvalidArgumentError(
      `too many values provided for property ${goQuote(property)} of type ${label} (maximum ${MAX_JSON_ARRAY_ITEMS})`,
    );
  }
}

/**
 * Validates a constraint create (or, with `{ update: true }`, update) request exactly as Flipt v1's
 * Create/UpdateConstraintRequest.Validate plus the storage layer's normalisation, and returns the
 * operator and value to store. Throws ValidationError (`invalid field <f>: must not be empty`) or
 * InvalidArgumentError with Flipt's messages, checked in Flipt's order:
 * id (update) → segmentKey → property → operator → operator valid for type (entityId: property name
 * first) → value required unless a no-value operator → datetime parse/normalise → isoneof JSON list.
 */
export function validateConstraint(input: ConstraintInput, options: { update?: boolean } = {}): NormalizedConstraint {
  if (options.update === true && (input.id ?? '') === '') throw new ValidationError('id', 'must not be empty');
  if (input.segmentKey === '') throw new ValidationError('segmentKey', 'must not be empty');
  if (input.property === '') throw new ValidationError('property', 'must not be empty');
  if (input.operator === '') throw new ValidationError('operator', 'must not be empty');

  const operator = goToLower(input.operator);
  const notValid = (label: string): InvalidArgumentError =>
    new InvalidArgumentError(`constraint operator ${goQuote(input.operator)} is not valid for type ${label}`);
  switch (input.type) {
    case 'STRING_COMPARISON_TYPE':
      if (!STRING_OPERATORS.has(operator)) throw notValid('string');
      break;
    case 'NUMBER_COMPARISON_TYPE':
      if (!NUMBER_OPERATORS.has(operator)) throw notValid('number');
      break;
    case 'BOOLEAN_COMPARISON_TYPE':
      if (!BOOLEAN_OPERATORS.has(operator)) throw notValid('boolean');
      break;
    case 'DATETIME_COMPARISON_TYPE':
      if (!DATETIME_OPERATORS.has(operator)) throw notValid('datetime');
      break;
    case 'ENTITY_ID_COMPARISON_TYPE':
      if (input.property !== ENTITY_ID_PROPERTY) {
        throw new InvalidArgumentError(`property is ${input.property} instead of "entityId"`);
      }
      if (!ENTITY_ID_OPERATORS.has(operator)) throw notValid('entityId');
      break;
    default:
      // A gRPC enum number outside the known ones arrives as the number: Flipt names it as Go does ("6").
      throw new InvalidArgumentError(`invalid constraint type: ${goQuote(String(input.type))}`);
  }

  let value = input.value;
  if (value === '') {
    if (!NO_VALUE_OPERATORS.has(operator)) throw new ValidationError('value', 'must not be empty');
  } else if (input.type === 'DATETIME_COMPARISON_TYPE') {
    // Checked before the list branch, so a datetime isoneof with a JSON array fails here (as in Flipt).
    const normalized = normalizeGoDateTime(value);
    if (normalized === undefined) throw new InvalidArgumentError(`parsing datetime from ${goQuote(value)}`);
    value = normalized;
  } else if (operator === 'isoneof' || operator === 'isnotoneof') {
    validateArrayValue(input.type, value, input.property);
  }

  return { operator, value: NO_VALUE_OPERATORS.has(operator) ? '' : value };
}
