// Database telemetry through Kysely's `log` hook: every query counted and timed by operation and
// table (read from the query's operation tree, so labels are bounded by the schema, never built from
// SQL text or values), and, under a traced request, a client span per query.

import type { LogEvent, RootOperationNode } from 'kysely';
import type { DbOperation, Metrics } from './metrics.js';
import type { Tracing } from './tracing.js';

type Node = { kind: string } & Record<string, unknown>;

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The table a TableNode or an aliased TableNode names ('' when it is something else). */
function tableName(node: unknown): string {
  let n = node as Node | undefined;
  if (n?.kind === 'AliasNode') n = n.node as Node | undefined;
  if (n?.kind !== 'TableNode') return '';
  const name = ((n.table as Node | undefined)?.identifier as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && TABLE_NAME.test(name) ? name : '';
}

function firstFrom(from: unknown): string {
  const froms = (from as { froms?: readonly unknown[] } | undefined)?.froms;
  return froms && froms.length > 0 ? tableName(froms[0]) : '';
}

const RAW_VERBS = new Set<string>(['select', 'insert', 'update', 'delete']);

/** Operation and table of a compiled query, from its operation tree (raw SQL: its first word). */
export function describeQuery(root: RootOperationNode, sqlText: string): { operation: DbOperation; table: string } {
  const node = root as unknown as Node;
  switch (node.kind) {
    case 'SelectQueryNode':
      return { operation: 'select', table: firstFrom(node.from) };
    case 'InsertQueryNode':
      return { operation: 'insert', table: tableName(node.into) };
    case 'UpdateQueryNode':
      return { operation: 'update', table: tableName(node.table) };
    case 'DeleteQueryNode':
      return { operation: 'delete', table: firstFrom(node.from) };
    case 'MergeQueryNode':
      return { operation: 'merge', table: tableName(node.into) };
    case 'RawNode': {
      const verb = /^\s*([a-z]+)/i.exec(sqlText)?.[1]?.toLowerCase() ?? '';
      return { operation: RAW_VERBS.has(verb) ? (verb as DbOperation) : 'other', table: '' };
    }
    default:
      // CreateTableNode, AlterTableNode, CreateIndexNode, …: migrations.
      return {
        operation:
          node.kind.startsWith('Create') || node.kind.startsWith('Drop') || node.kind.startsWith('Alter')
            ? 'ddl'
            : 'other',
        table: '',
      };
  }
}

/**
 * The Kysely `log` callback recording every query in metrics and (traced requests) spans; undefined
 * when both are off, so Kysely does not even time the queries.
 */
export function createQueryObserver(
  metrics: Metrics,
  tracing: Tracing,
  dialect: string,
): ((event: LogEvent) => void) | undefined {
  if (!metrics.enabled && !tracing.enabled) return undefined;
  return (event) => {
    try {
      const { operation, table } = describeQuery(event.query.query, event.query.sql);
      const failed = event.level === 'error';
      metrics.recordDbQuery(operation, table, event.queryDurationMillis / 1000, failed);
      if (tracing.enabled) {
        tracing.recordDbQuery(
          dialect,
          operation,
          table,
          event.query.sql,
          event.queryDurationMillis,
          failed ? event.error : undefined,
        );
      }
    } catch {
      // Telemetry never fails a query.
    }
  };
}
