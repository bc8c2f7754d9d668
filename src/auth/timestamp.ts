// RFC 3339 timestamps as protobuf's Timestamp JSON accepts them (token expiries from the API and CLI).

import { ValidationError } from '../domain/errors.js';

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses `value`; fractions beyond milliseconds are cut (the database keeps milliseconds). */
export function parseTimestamp(field: string, value: string): Date {
  const m = RFC3339.exec(value);
  const millis = (m?.[3] ?? '').slice(0, 4);
  const date = m ? new Date(`${m[1]}T${m[2]}${millis}${m[4]?.toUpperCase()}`) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new ValidationError(field, `"${value}" is not an RFC 3339 timestamp`);
  return date;
}
