// Constraint operators per comparison type (behavior.md §2.1) and how each one takes its value, so the
// constraint editor offers only what the server will accept.

import type { ComparisonType } from '../api/types.js';

export interface OperatorInfo {
  value: string;
  label: string;
}

const OP_LABELS: Record<string, string> = {
  eq: '== (equals)',
  neq: '!= (does not equal)',
  lt: '< (less than)',
  lte: '<= (less than or equal)',
  gt: '> (greater than)',
  gte: '>= (greater than or equal)',
  empty: 'is empty',
  notempty: 'is not empty',
  true: 'is true',
  false: 'is false',
  present: 'is present',
  notpresent: 'is not present',
  prefix: 'starts with',
  suffix: 'ends with',
  isoneof: 'is one of',
  isnotoneof: 'is not one of',
  contains: 'contains',
  notcontains: 'does not contain',
};

const DATETIME_LABELS: Record<string, string> = {
  eq: 'is exactly',
  neq: 'is not',
  lt: 'is before',
  lte: 'is on or before',
  gt: 'is after',
  gte: 'is on or after',
};

const OPERATORS: Record<ComparisonType, string[]> = {
  STRING_COMPARISON_TYPE: [
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
  ],
  NUMBER_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
  BOOLEAN_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
  // Flipt's check lets isoneof/isnotoneof through for datetimes, but the value check that follows
  // rejects every list (§2.1), so offering them would only lead to an error.
  DATETIME_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent'],
  ENTITY_ID_COMPARISON_TYPE: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
};

export const COMPARISON_TYPES: { value: ComparisonType; label: string }[] = [
  { value: 'STRING_COMPARISON_TYPE', label: 'String' },
  { value: 'NUMBER_COMPARISON_TYPE', label: 'Number' },
  { value: 'BOOLEAN_COMPARISON_TYPE', label: 'Boolean' },
  { value: 'DATETIME_COMPARISON_TYPE', label: 'Date and time' },
  { value: 'ENTITY_ID_COMPARISON_TYPE', label: 'Entity ID' },
];

export function comparisonTypeLabel(type: string): string {
  return COMPARISON_TYPES.find((t) => t.value === type)?.label ?? type;
}

/** Operators the server accepts for this type, in a sensible order, with readable labels. */
export function operatorsFor(type: ComparisonType): OperatorInfo[] {
  const labels = type === 'DATETIME_COMPARISON_TYPE' ? { ...OP_LABELS, ...DATETIME_LABELS } : OP_LABELS;
  return OPERATORS[type].map((value) => ({ value, label: labels[value] ?? value }));
}

export function operatorLabel(type: ComparisonType | 'UNKNOWN_COMPARISON_TYPE', operator: string): string {
  if (type === 'UNKNOWN_COMPARISON_TYPE') return OP_LABELS[operator] ?? operator;
  return operatorsFor(type).find((o) => o.value === operator)?.label ?? OP_LABELS[operator] ?? operator;
}

const NO_VALUE = new Set(['empty', 'notempty', 'true', 'false', 'present', 'notpresent']);

/** Operators that compare nothing: the value is hidden and sent as "". */
export function isNoValueOperator(operator: string): boolean {
  return NO_VALUE.has(operator);
}

/** Operators whose value is a JSON list. */
export function isListOperator(operator: string): boolean {
  return operator === 'isoneof' || operator === 'isnotoneof';
}

/** Flipt's cap on isoneof lists. */
export const MAX_LIST_VALUES = 100;
