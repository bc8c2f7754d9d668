// The checks on `authorization.roles` the schema cannot express (domain/role-rules.ts, shared with the
// bindings stored through the API): each rule matches on exactly one attribute (a metadata key or a
// claim), and names a namespace key or `*`.

import { roleRuleProblem } from '../domain/role-rules.js';
import type { Config } from './schema.js';

/** The first problem of `authorization.roles` as `path: detail`, or undefined. */
export function roleRulesProblem(authorization: Config['authorization']): string | undefined {
  const rules = authorization.roles?.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    const problem = roleRuleProblem(rule);
    if (problem !== undefined) return `authorization.roles.rules[${index}].${problem.field}: ${problem.detail}`;
  }
  return undefined;
}
