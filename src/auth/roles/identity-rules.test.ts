import { describe, expect, it } from 'vitest';
import { readmeRolesFile } from '../../../test/helpers/readme-roles.js';
import { loadConfig } from '../../config/load.js';
import type { Authentication } from '../../domain/authentication.js';
import type { Access } from '../access.js';
import { attributeValues, matchesIdentity, patternExpression, type RoleRules, rolesByRule } from './identity-rules.js';
import { RoleResolver } from './resolver.js';
import { neededRole, permits } from './roles.js';

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

// Flipt's example Rego policies, as the README writes them in `authorization.roles`: each example's
// identity gets the roles its policy meant, and those roles allow what the policy allowed.
describe("Flipt's example policies as rules (README)", () => {
  const configured = loadConfig({ file: readmeRolesFile(), env: {} }).authorization.roles;
  if (configured === undefined) throw new Error('the README example configures no authorization.roles');
  const rules: RoleRules = configured;
  const claims = (value: object) => ({ 'io.flipt.auth.claims': JSON.stringify(value) });
  const everywhere = (role: string) => [{ role, namespace: '*' }];

  it.each([
    ['JWT role admin', person('METHOD_JWT', { 'io.flipt.auth.role': 'admin' }), everywhere('admin')],
    ['JWT role editor', person('METHOD_JWT', { 'io.flipt.auth.role': 'editor' }), everywhere('editor')],
    ['JWT role viewer', person('METHOD_JWT', { 'io.flipt.auth.role': 'viewer' }), everywhere('viewer')],
    [
      'JWT role namespaced_viewer',
      person('METHOD_JWT', { 'io.flipt.auth.role': 'namespaced_viewer' }),
      [{ role: 'viewer', namespace: 'foo' }],
    ],
    // Flipt's RBAC example checks the method: the same metadata from another method is not a JWT role.
    ['role metadata without JWT', person('METHOD_OIDC', { 'io.flipt.auth.role': 'admin' }), []],
    [
      'OIDC roles claim [admin, viewer]',
      person('METHOD_OIDC', claims({ roles: ['admin', 'viewer'] })),
      [...everywhere('admin'), ...everywhere('viewer')],
    ],
    ['Keycloak developer', person('METHOD_OIDC', claims({ roles: ['developer'] })), everywhere('admin')],
    [
      'Okta groups [Everyone, IT]',
      person('METHOD_OIDC', claims({ groups: ['Everyone', 'IT'] })),
      [{ role: 'editor', namespace: 'default' }],
    ],
    [
      'groups [devs, ops]',
      person('METHOD_OIDC', claims({ groups: ['devs', 'ops'] })),
      ['local', 'staging', 'staging', 'production'].map((namespace) => ({ role: 'viewer', namespace })),
    ],
    ['name user1', person('METHOD_OIDC', { 'io.flipt.auth.name': 'user1' }), everywhere('admin')],
    ['name user2', person('METHOD_GITHUB', { 'io.flipt.auth.name': 'user2' }), everywhere('viewer')],
    ['email domain', person('METHOD_OIDC', { 'io.flipt.auth.email': 'ana@example.com' }), everywhere('viewer')],
    ['look-alike domain', person('METHOD_OIDC', { 'io.flipt.auth.email': 'ana@example.com.evil' }), []],
    ['GitHub team acme/platform', github, everywhere('admin')],
    ['Kubernetes service account', k8s, [{ role: 'client', namespace: 'production' }]],
    ['nobody in particular (default none)', person('METHOD_OIDC', claims({ groups: ['sales'] })), []],
  ] as const)('%s', (_who, identity, expected) => {
    expect(rolesByRule(identity, rules)).toEqual(expected);
  });

  const read: Access = { resource: 'flag', action: 'read', namespace: 'request' };
  const remove: Access = { resource: 'flag', action: 'delete', namespace: 'request' };
  const createNamespace: Access = { resource: 'namespace', action: 'create', namespace: 'none' };
  const may = (identity: Authentication, access: Access, namespace: string) => {
    const need = neededRole(access);
    return need === undefined || permits(rolesByRule(identity, rules), need, [namespace]);
  };

  it('the roles allow what each policy allowed, and no more', () => {
    const namespacedViewer = person('METHOD_JWT', { 'io.flipt.auth.role': 'namespaced_viewer' });
    expect([may(namespacedViewer, read, 'foo'), may(namespacedViewer, read, 'bar')]).toEqual([true, false]);
    expect(may(namespacedViewer, remove, 'foo')).toBe(false);
    const itGroup = person('METHOD_OIDC', claims({ groups: ['IT'] }));
    expect([may(itGroup, remove, 'default'), may(itGroup, remove, 'production')]).toEqual([true, false]);
    const viewer = person('METHOD_OIDC', claims({ roles: ['viewer'] }));
    expect([may(viewer, read, 'production'), may(viewer, remove, 'production')]).toEqual([true, false]);
    const admin = person('METHOD_JWT', { 'io.flipt.auth.role': 'admin' });
    expect([may(admin, createNamespace, '*'), may(viewer, createNamespace, '*')]).toEqual([true, false]);
  });

  it('tokens keep their own roles: the rules resolve people only', () => {
    const resolver = new RoleResolver(rules);
    const ci = person('METHOD_TOKEN', { 'io.flipt.auth.role': 'admin' });
    expect(resolver.resolve(ci)).toBe(ci);
    expect(resolver.resolve(k8s).roles).toEqual([{ role: 'client', namespace: 'production' }]);
  });
});
