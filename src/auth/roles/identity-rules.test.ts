import { describe, expect, it } from 'vitest';
import type { Authentication } from '../../domain/authentication.js';
import { attributeValues, matchesIdentity, patternExpression, type RoleRules, rolesByRule } from './identity-rules.js';

function person(method: Authentication['method'], metadata: Record<string, string>): Authentication {
  const at = new Date('2026-01-01T00:00:00Z');
  return { id: 'a', method, metadata, createdAt: at, updatedAt: at };
}

const oidc = person('METHOD_OIDC', {
  'io.flipt.auth.oidc.email': 'ana@example.com',
  'io.flipt.auth.email': 'ana@example.com',
  'io.flipt.auth.claims': JSON.stringify({ groups: ['release-managers', 'eng'], sub: 'ana' }),
});
const github = person('METHOD_GITHUB', {
  'io.flipt.auth.github.organizations': JSON.stringify(['acme']),
  'io.flipt.auth.github.teams': JSON.stringify({ acme: ['platform', 'web'] }),
});
const jwt = person('METHOD_JWT', { 'io.flipt.auth.role': 'admin', 'io.flipt.auth.jwt.issuer': 'https://issuer' });
const k8s = person('METHOD_KUBERNETES', {
  'io.flipt.auth.k8s.namespace': 'prod',
  'io.flipt.auth.k8s.serviceaccount.name': 'checkout',
});
const token = person('METHOD_TOKEN', { 'io.flipt.auth.token.name': 'ci' });

describe('patterns', () => {
  it.each([
    ['*@example.com', 'ana@example.com', true],
    ['*@example.com', 'ana@example.com.evil', false],
    ['*@example.com', 'ana@exampleXcom', false],
    ['release-*', 'release-managers', true],
    ['admin', 'admins', false],
    ['a.b', 'axb', false],
    ['*', '', true],
    ['(x)', '(x)', true],
  ])('%s ~ %s → %s', (pattern, value, expected) => {
    expect(patternExpression(pattern).test(value)).toBe(expected);
  });
});

describe('attribute values', () => {
  it.each([
    ['plain', ['plain']],
    ['["a","b"]', ['a', 'b']],
    ['{"acme":["web","api"]}', ['acme/web', 'acme/api']],
    ['[not json', ['[not json']],
    [
      ['x', 1, true, { nested: 1 }],
      ['x', '1', 'true'],
    ],
    [7, ['7']],
    [null, []],
  ] as const)('%o → %o', (raw, expected) => {
    expect(attributeValues(raw)).toEqual(expected);
  });
});

describe('identities matched by rule', () => {
  it.each([
    [oidc, { claim: 'groups', pattern: 'release-managers' }, true],
    [oidc, { claim: 'groups', pattern: 'sales' }, false],
    [oidc, { metadata: 'io.flipt.auth.email', pattern: '*@example.com' }, true],
    [oidc, { method: 'METHOD_GITHUB', metadata: 'io.flipt.auth.email', pattern: '*@example.com' }, false],
    [github, { metadata: 'io.flipt.auth.github.organizations', pattern: 'acme' }, true],
    [github, { metadata: 'io.flipt.auth.github.teams', pattern: 'acme/platform' }, true],
    [github, { metadata: 'io.flipt.auth.github.teams', pattern: 'acme/sales' }, false],
    [jwt, { metadata: 'io.flipt.auth.role', pattern: 'admin' }, true],
    [k8s, { metadata: 'io.flipt.auth.k8s.serviceaccount.name', pattern: 'checkout' }, true],
    [token, { claim: 'groups', pattern: '*' }, false],
    [token, { pattern: '*' }, false],
  ] as const)('%#: %o', (identity, match, expected) => {
    expect(matchesIdentity(identity, match)).toBe(expected);
  });
});

describe('roles by rule, with a default', () => {
  const rules: RoleRules = {
    default: 'none',
    rules: [
      { match: { claim: 'groups', pattern: 'release-managers' }, role: 'admin', namespace: 'production' },
      { match: { metadata: 'io.flipt.auth.email', pattern: '*@example.com' }, role: 'editor', namespace: 'staging' },
      { match: { metadata: 'io.flipt.auth.role', pattern: 'admin' }, role: 'admin', namespace: '*' },
    ],
  };
  it('every matching rule gives its binding', () => {
    expect(rolesByRule(oidc, rules)).toEqual([
      { role: 'admin', namespace: 'production' },
      { role: 'editor', namespace: 'staging' },
    ]);
    expect(rolesByRule(jwt, rules)).toEqual([{ role: 'admin', namespace: '*' }]);
  });
  it('no match: none, unless a default is set (then on every namespace)', () => {
    expect(rolesByRule(github, rules)).toEqual([]);
    expect(rolesByRule(github, { ...rules, default: 'viewer' })).toEqual([{ role: 'viewer', namespace: '*' }]);
  });
});
