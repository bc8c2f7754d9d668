// Reading and binding column values the same way on every dialect.

/** The most values bound in one IN list (SQLite, PostgreSQL and MySQL all limit bound parameters). */
export const MAX_IN_LIST = 500;

/** A timestamp column as a Date, whether the driver gave a Date or SQLite's ISO text. */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function toOptionalDate(value: Date | string | null | undefined): Date | undefined {
  return value === null || value === undefined ? undefined : toDate(value);
}

/** A boolean column: PostgreSQL gives booleans, MySQL and SQLite 0/1. */
export function toBool(value: boolean | number | string): boolean {
  return value === true || value === 1 || value === '1';
}

let lastMillis = 0;

/**
 * The time a write stamps on rows. Strictly increasing within this process, so rows created in the
 * same millisecond keep their creation order (lists and variants are ordered by created_at).
 */
export function writeTime(): Date {
  const now = Date.now();
  lastMillis = now > lastMillis ? now : lastMillis + 1;
  return new Date(lastMillis);
}

/**
 * An enum stored as its index (Flipt's protobuf numbers). An integer outside the enum, only possible
 * through hand edits, reads as its first (zero) value, as protobuf reads unknown numbers.
 */
export function enumName<T extends string>(names: readonly T[], value: number | string): T {
  return names[Number(value)] ?? (names[0] as T);
}

/** The integer a name of the enum is stored as. */
export function enumIndex<T extends string>(names: readonly T[], name: T): number {
  return names.indexOf(name);
}
