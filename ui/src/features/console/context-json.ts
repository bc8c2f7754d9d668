// The console's context as JSON text and back. Flipt's context is a map of strings, so numbers and
// booleans typed as JSON are sent as their text; nested values are refused.

import type { KeyValue } from '../../components/key-value-rows.js';
import { checkJson } from '../../lib/json.js';

export function contextToJson(context: Record<string, string>): string {
  return Object.keys(context).length ? JSON.stringify(context, null, 2) : '{}';
}

export function recordToRows(context: Record<string, string>): KeyValue[] {
  const rows = Object.entries(context).map(([key, value]) => ({ key, value }));
  return rows.length ? rows : [{ key: '', value: '' }];
}

/** The context the text describes, or why it cannot be one. */
export function contextFromJson(text: string): { context?: Record<string, string>; problem?: string } {
  if (text.trim() === '') return { context: {} };
  const check = checkJson(text);
  if (!check.ok) return { problem: check.error };
  const value = check.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'Must be a JSON object, like {"plan": "gold"}.' };
  const context: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') context[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') context[k] = String(v);
    else return { problem: `"${k}" must be a string, number or boolean (context values are text).` };
  }
  return { context };
}
