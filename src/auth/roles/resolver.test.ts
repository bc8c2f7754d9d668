import { describe, expect, it } from 'vitest';
import type { Authentication } from '../../domain/authentication.js';
import type { RoleRule } from './identity-rules.js';
import { RoleResolver, type StoredRoleRules } from './resolver.js';

const person = (email: string, method: Authentication['method'] = 'METHOD_OIDC'): Authentication => ({
  id: 'p',
  method,
  metadata: { 'io.flipt.auth.email': email },
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const byEmail = (pattern: string, role: RoleRule['role'], namespace = 'team'): RoleRule => ({
  match: { metadata: 'io.flipt.auth.email', pattern },
  role,
  namespace,
});

class Stored implements StoredRoleRules {
  generation = 0;
  #rules: RoleRule[] = [];
  rules() {
    return this.#rules;
  }
  set(rules: RoleRule[]) {
    this.#rules = rules;
    this.generation += 1;
  }
}

describe('RoleResolver', () => {
  it('leaves authentications alone while people roles are off, and tokens always', () => {
    const off = new RoleResolver(undefined);
    const ada = person('ada@x.test');
    expect(off.enabled).toBe(false);
    expect(off.resolve(ada)).toBe(ada);
    const on = new RoleResolver({ rules: [byEmail('*', 'admin', '*')], default: 'none' });
    const token = person('ada@x.test', 'METHOD_TOKEN');
    expect(on.resolve(token)).toBe(token);
    const withRoles = { ...ada, roles: [{ role: 'client' as const, namespace: 'a' }] };
    expect(on.resolve(withRoles)).toBe(withRoles);
  });

  it('resolves once per authentication and generation, and again when the stored rules change', () => {
    const resolver = new RoleResolver({ rules: [byEmail('*@x.test', 'viewer')], default: 'none' });
    const stored = new Stored();
    resolver.useStored(stored);
    const ada = person('ada@x.test');
    const first = resolver.resolve(ada);
    expect(first.roles).toEqual([{ role: 'viewer', namespace: 'team' }]);
    expect(resolver.resolve(ada)).toBe(first);
    stored.set([byEmail('ada@*', 'editor', 'other')]);
    const second = resolver.resolve(ada);
    expect(second).not.toBe(first);
    expect(second.roles).toEqual([
      { role: 'viewer', namespace: 'team' },
      { role: 'editor', namespace: 'other' },
    ]);
    stored.set([]);
    expect(resolver.resolve(ada).roles).toEqual([{ role: 'viewer', namespace: 'team' }]);
    expect(resolver.resolve(person('bob@y.test')).roles).toEqual([]);
  });
});
