// Driver errors of SQLite, PostgreSQL/CockroachDB and MySQL/MariaDB, classified in one place so the
// storage modules can turn them into domain errors; nothing above storage sees a driver code.

import { ValidationError } from '../domain/errors.js';

export type DriverErrorKind = 'unique' | 'foreign-key' | 'too-long' | 'serialization' | 'cancelled' | 'unavailable';

interface DriverError {
  code?: string | number;
  errno?: number;
}

const PG_CODES: Record<string, DriverErrorKind> = {
  '23505': 'unique',
  '23503': 'foreign-key',
  '22001': 'too-long',
  '40001': 'serialization',
  '40P01': 'serialization',
  '57014': 'cancelled',
  // CockroachDB: a commit whose outcome is unknown (the write may or may not have landed); never retried.
  '40003': 'unavailable',
  // Administrator, crash and start-up/shut-down refusals: the server is restarting.
  '57P01': 'unavailable',
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '53300': 'unavailable', // too many connections
  '08000': 'unavailable',
  '08001': 'unavailable',
  '08003': 'unavailable',
  '08004': 'unavailable',
  '08006': 'unavailable',
};

const MYSQL_ERRNOS: Record<number, DriverErrorKind> = {
  1062: 'unique',
  1451: 'foreign-key',
  1452: 'foreign-key',
  1406: 'too-long',
  1213: 'serialization',
  1205: 'serialization',
  1317: 'cancelled',
  3024: 'cancelled', // MySQL: max_execution_time exceeded
  1969: 'cancelled', // MariaDB: max_statement_time exceeded
  1040: 'unavailable', // too many connections
  1053: 'unavailable', // server shutdown in progress
  1927: 'unavailable', // connection killed
  2002: 'unavailable',
  2003: 'unavailable',
  2006: 'unavailable',
  2013: 'unavailable',
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
]);

/**
 * Connection-level failures that the drivers report by message only: pg's client that lost its
 * server ("not queryable", "Connection terminated"), pg-pool's connect timeout, mysql2's commands on
 * a connection that closed ("closed state") and its pools.
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection is closed|not queryable|closed state|Pool is closed|Cannot enqueue|timeout exceeded when trying to connect|Connection lost|connect ETIMEDOUT|Queue limit reached/i;

/** What kind of driver error this is, or undefined when it is none we know. */
export function classifyDriverError(err: unknown): DriverErrorKind | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, errno } = err as DriverError;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') || code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) return 'unique';
    if (code.startsWith('SQLITE_CONSTRAINT_FOREIGNKEY')) return 'foreign-key';
    // A RESTRICT key refusing a delete surfaces as a trigger constraint, "FOREIGN KEY constraint failed".
    if (code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/.test((err as Error).message ?? '')) return 'foreign-key';
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'serialization';
    if (code in PG_CODES) return PG_CODES[code];
    if (NETWORK_CODES.has(code)) return 'unavailable';
  }
  if (typeof errno === 'number' && errno in MYSQL_ERRNOS) return MYSQL_ERRNOS[errno];
  const message = (err as Error).message;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return 'unavailable';
  return undefined;
}

/**
 * A value longer than its column is a client mistake, not a 500: MySQL's TEXT holds 64 KB, and every
 * VARCHAR(255) is checked by the services but a driver may still refuse. MySQL names the column.
 */
export function tooLongError(err: unknown): ValidationError | undefined {
  if (classifyDriverError(err) !== 'too-long') return undefined;
  const column = /column '([a-z_]+)'/i.exec((err as Error).message ?? '')?.[1];
  const field = column ? column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : 'value';
  return new ValidationError(field, 'is too long for the database');
}

/** A driver error's own words (pg and mysql2 give some connection errors only a code, e.g. ECONNREFUSED). */
export function driverMessage(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  return (typeof e?.message === 'string' && e.message) || String(e?.code ?? err);
}
