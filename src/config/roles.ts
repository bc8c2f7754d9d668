// The checks on `authorization.roles` the schema cannot express: each rule matches on exactly one
// attribute (a metadata key or a claim), and names a namespace key or `*`.

import type { Config } from './schema.js';

const NAMESPACE_KEY = /^[-_a-zA-Z0-9]+$/;

/** The first problem of `authorization.roles` as `path: detail`, or undefined. */
export function roleRulesProblem(authorization: Config['authorization']): string | undefined {
  const rules = authorization.roles?.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    const at = `authorization.roles.rules[${index}]`;
    const named = [rule.match.metadata, rule.match.claim].filter((key) => key !== undefined).length;
    if (named !== 1) return `${at}.match: name exactly one of metadata or claim`;
    if (rule.namespace !== '*' && !NAMESPACE_KEY.test(rule.namespace)) {
      return `${at}.namespace: "${rule.namespace}" is neither a namespace key nor *`;
    }
  }
  return undefined;
}
