// What a role rule may bind: a namespace as namespaces are created (Flipt's key characters, commas
// included) or `*`; and exactly one identity attribute.

import { describe, expect, it } from 'vitest';
import { isBindableNamespace, roleRuleProblem } from './role-rules.js';

describe('isBindableNamespace', () => {
  it.each(['*', 'default', 'team-a', 'team_a', 'team,a', ',', 'A1'])('binds %j', (namespace) => {
    expect(isBindableNamespace(namespace)).toBe(true);
  });

  it.each(['', 'a b', 'a/b', 'a.b', '**', 'team*', 'é', 'a\n'])('refuses %j', (namespace) => {
    expect(isBindableNamespace(namespace)).toBe(false);
  });
});

describe('roleRuleProblem', () => {
  const rule = (namespace: string, match: { metadata?: string; claim?: string } = { claim: 'email' }) => ({
    match,
    namespace,
  });

  it('accepts a rule on a namespace whose key holds a comma, as config and stored bindings read it', () => {
    expect(roleRuleProblem(rule('team,a'))).toBeUndefined();
  });

  it('names the namespace that is no key, and a match naming other than one attribute', () => {
    expect(roleRuleProblem(rule('a b'))).toEqual({
      field: 'namespace',
      detail: '"a b" is neither a namespace key nor *',
    });
    expect(roleRuleProblem(rule('team', {}))?.field).toBe('match');
    expect(roleRuleProblem(rule('team', { claim: 'a', metadata: 'b' }))?.field).toBe('match');
  });
});
