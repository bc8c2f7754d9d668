// What makes a role rule well formed beyond its shape, one check for both places rules come from: the
// config's `authorization.roles.rules` (config/roles.ts) and the bindings admins store through the API
// (features/role-bindings). A rule matches on exactly one attribute, a metadata key or a claim, so that
// what it grants is read off one value; its namespace is a key or `*`.

import { ALL_NAMESPACES } from './roles.js';
import { KEY_PATTERN } from './types.js';

/** Whether `namespace` can be bound: a namespace key, or `*` for every namespace. */
export function isBindableNamespace(namespace: string): boolean {
  return namespace === ALL_NAMESPACES || KEY_PATTERN.test(namespace);
}

/** Which part of a rule is wrong, and why. */
export interface RoleRuleProblem {
  field: 'match' | 'namespace';
  detail: string;
}

/** The first problem of a rule that its schema cannot express, or undefined. */
export function roleRuleProblem(rule: {
  match: { metadata?: string | undefined; claim?: string | undefined };
  namespace: string;
}): RoleRuleProblem | undefined {
  const named = [rule.match.metadata, rule.match.claim].filter((key) => key !== undefined).length;
  if (named !== 1) return { field: 'match', detail: 'name exactly one of metadata or claim' };
  if (!isBindableNamespace(rule.namespace)) {
    return { field: 'namespace', detail: `"${rule.namespace}" is neither a namespace key nor *` };
  }
  return undefined;
}
