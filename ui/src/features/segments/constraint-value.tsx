// A constraint's value as a person reads it: list values as chips, datetimes in local time too.

import type { Constraint } from '../../api/types.js';
import { formatDate } from '../../lib/format.js';
import { isListOperator, isNoValueOperator } from '../../lib/operators.js';

export function ConstraintValue({ constraint }: { constraint: Constraint }) {
  const { operator, value, type } = constraint;
  if (isNoValueOperator(operator)) return <span className="muted">—</span>;
  if (isListOperator(operator)) {
    let items: string[] = [];
    try {
      const parsed = JSON.parse(value) as unknown;
      items = Array.isArray(parsed) ? parsed.map(String) : [value];
    } catch {
      items = [value];
    }
    return (
      <span className="chips chips-inline">
        {items.map((v) => (
          <code key={v} className="chip">
            {v}
          </code>
        ))}
      </span>
    );
  }
  if (type === 'DATETIME_COMPARISON_TYPE' && /T/.test(value)) {
    return (
      <span>
        <code>{value}</code> <span className="muted">({formatDate(value)} your time)</span>
      </span>
    );
  }
  return <code>{value}</code>;
}
