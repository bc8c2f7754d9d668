import { describe, expect, it } from 'vitest';
import type { Access } from '../access.js';
import { includesRole, namespacesWith, neededRole, permits, ROLES, type RoleBinding, withinRoles } from './roles.js';

const access = (resource: Access['resource'], action: Access['action'], namespace: Access['namespace'] = 'request') =>
  ({ resource, action, namespace }) as Access;

describe('roles include the ones before them', () => {
  const rows = ROLES.flatMap((held, i) => ROLES.map((needed, j) => [held, needed, i >= j] as const));
  it.each(rows)('%s includes %s: %s', (held, needed, expected) => {
    expect(includesRole(held, needed)).toBe(expected);
  });
});

describe('the role an entry point needs, from its declaration', () => {
  it.each([
    [access('evaluation', 'evaluate'), { role: 'client', everywhere: false }],
    [access('snapshot', 'read'), { role: 'client', everywhere: false }],
    [access('stream', 'watch'), { role: 'client', everywhere: false }],
    [access('flag', 'read'), { role: 'viewer', everywhere: false }],
    [access('segment', 'read'), { role: 'viewer', everywhere: false }],
    [access('change', 'read', 'filtered'), { role: 'viewer', everywhere: false }],
    [access('document', 'export'), { role: 'viewer', everywhere: false }],
    [access('namespace', 'read', 'key'), { role: 'viewer', everywhere: false }],
    [access('flag', 'create'), { role: 'editor', everywhere: false }],
    [access('rule', 'update'), { role: 'editor', everywhere: false }],
    [access('distribution', 'delete'), { role: 'editor', everywhere: false }],
    [access('change', 'revert'), { role: 'editor', everywhere: false }],
    [access('document', 'import'), { role: 'editor', everywhere: false }],
    [access('namespace', 'update', 'key'), { role: 'admin', everywhere: false }],
    [access('token', 'create', 'request'), { role: 'admin', everywhere: false }],
    [access('namespace', 'create', 'key'), { role: 'admin', everywhere: true }],
    [access('namespace', 'delete', 'key'), { role: 'admin', everywhere: true }],
    [access('document', 'import', 'all'), { role: 'admin', everywhere: true }],
    [access('token', 'read', 'none'), undefined],
    [access('meta', 'read', 'none'), undefined],
    [access('sign-in', 'create', 'none'), undefined],
    [access('service', 'read', 'none'), undefined],
  ])('%o needs %o', (declared, expected) => {
    expect(neededRole(declared)).toEqual(expected);
  });
});

describe('bindings permit a call', () => {
  const staging: RoleBinding[] = [{ role: 'editor', namespace: 'staging' }];
  const everywhereViewer: RoleBinding[] = [{ role: 'viewer', namespace: '*' }];
  const mixed: RoleBinding[] = [...everywhereViewer, { role: 'admin', namespace: 'production' }];
  it.each([
    // bindings, role, everywhere, namespaces, permitted
    [staging, 'editor', false, ['staging'], true],
    [staging, 'viewer', false, ['staging'], true],
    [staging, 'client', false, ['staging'], true],
    [staging, 'admin', false, ['staging'], false],
    [staging, 'client', false, ['production'], false],
    [staging, 'editor', false, ['staging', 'production'], false],
    [staging, 'admin', true, [], false],
    [everywhereViewer, 'viewer', false, ['anything', 'default'], true],
    [everywhereViewer, 'editor', false, ['default'], false],
    [mixed, 'admin', false, ['production'], true],
    [mixed, 'admin', true, [], false],
    [mixed, 'editor', false, ['staging'], false],
    [[{ role: 'admin', namespace: '*' }], 'admin', true, [], true],
    [[], 'client', false, ['default'], false],
  ] as const)('%o: %s (everywhere %s) on %o → %s', (bindings, role, everywhere, namespaces, expected) => {
    expect(permits(bindings, { role, everywhere }, namespaces)).toBe(expected);
  });
});

describe('lists are filtered by the namespaces one may read', () => {
  it('a binding on * reads everything', () => {
    expect(namespacesWith([{ role: 'viewer', namespace: '*' }], 'viewer')).toEqual({ all: true });
  });
  it('a client-only binding reads nothing; other namespaces are listed by key', () => {
    const found = namespacesWith(
      [
        { role: 'client', namespace: '*' },
        { role: 'editor', namespace: 'staging' },
      ],
      'viewer',
    );
    expect(found).toEqual({ all: false, keys: new Set(['staging']) });
  });
});

describe('no escalation: asked roles within held ones', () => {
  const admin1: RoleBinding[] = [{ role: 'admin', namespace: 'one' }];
  it.each([
    [[{ role: 'viewer', namespace: 'one' }], admin1, true],
    [[{ role: 'admin', namespace: 'one' }], admin1, true],
    [[{ role: 'viewer', namespace: 'two' }], admin1, false],
    [[{ role: 'viewer', namespace: '*' }], admin1, false],
    [[{ role: 'admin', namespace: 'one' }], [{ role: 'viewer', namespace: 'one' }], false],
    [[{ role: 'editor', namespace: 'x' }], [{ role: 'admin', namespace: '*' }], true],
    [[{ role: 'admin', namespace: '*' }], [{ role: 'admin', namespace: '*' }], true],
    [[{ role: 'client', namespace: 'one' }], [{ role: 'client', namespace: 'one' }], true],
  ] as const)('%o within %o → %s', (asked, held, expected) => {
    expect(withinRoles(asked, held)).toBe(expected);
  });
});
