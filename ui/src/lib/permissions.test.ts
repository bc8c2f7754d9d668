import { describe, expect, it } from 'vitest';
import type { Authentication } from '../api/types.js';
import {
  type Access,
  type Action,
  accessOf,
  can,
  canSomewhere,
  FULL_ACCESS,
  type RoleBinding,
  reason,
  reasonEverywhere,
  roleOn,
  startNamespace,
  startSection,
} from './permissions.js';

const self = (roles?: RoleBinding[], metadata: Record<string, string> = {}): Authentication => ({
  id: 'a1',
  method: 'METHOD_OIDC',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  metadata,
  ...(roles ? { roles } : {}),
});

const on = (role: RoleBinding['role'], namespace = 'prod'): Access => accessOf(self([{ role, namespace }]));

describe('accessOf', () => {
  it('gives everything without an authentication and to an unscoped one without roles', () => {
    expect(accessOf(null)).toBe(FULL_ACCESS);
    expect(accessOf(undefined)).toBe(FULL_ACCESS);
    expect(accessOf(self())).toBe(FULL_ACCESS);
  });

  it('gives a token scoped to a namespace admin there and no token calls', () => {
    const access = accessOf(self(undefined, { 'io.flipt.auth.token.namespace': 'team' }));
    expect(access).toEqual({
      source: 'scoped-token',
      roles: [{ role: 'admin', namespace: 'team' }],
      tokenCalls: false,
    });
  });

  it('takes roles as they are, an empty list meaning nothing, and drops roles it does not know', () => {
    expect(accessOf(self([])).roles).toEqual([]);
    const odd = accessOf(
      self([
        { role: 'owner' as 'admin', namespace: '*' },
        { role: 'viewer', namespace: 'a' },
      ]),
    );
    expect(odd.roles).toEqual([{ role: 'viewer', namespace: 'a' }]);
  });
});

describe('can', () => {
  const actions: Action[] = ['evaluate', 'read', 'edit', 'revert', 'import', 'settings', 'tokens', 'role-bindings'];
  const allowed: Record<RoleBinding['role'], Action[]> = {
    client: ['evaluate'],
    viewer: ['evaluate', 'read'],
    editor: ['evaluate', 'read', 'edit', 'revert', 'import'],
    admin: actions,
  };
  for (const [role, expected] of Object.entries(allowed) as [RoleBinding['role'], Action[]][]) {
    it.each(actions)(`${role} on prod: %s`, (action) => {
      expect(can(on(role), action, 'prod')).toBe(expected.includes(action));
      // Nothing on another namespace.
      expect(can(on(role), action, 'staging')).toBe(false);
      // A binding on * covers every namespace.
      expect(can(on(role, '*'), action, 'staging')).toBe(expected.includes(action));
    });
  }

  it.each([
    ['create-namespace', 'admin', '*', true],
    ['create-namespace', 'admin', 'prod', false],
    ['delete-namespace', 'editor', '*', false],
    ['import-drop', 'admin', '*', true],
    ['import-drop', 'admin', 'prod', false],
  ] as const)('%s with %s on %s: %s', (action, role, namespace, expected) => {
    expect(can(on(role, namespace), action, 'prod')).toBe(expected);
  });

  it('takes the highest of several bindings', () => {
    const access = accessOf(
      self([
        { role: 'viewer', namespace: '*' },
        { role: 'editor', namespace: 'prod' },
      ]),
    );
    expect(roleOn(access, 'prod')).toBe('editor');
    expect(roleOn(access, 'staging')).toBe('viewer');
    expect(can(access, 'edit', 'prod')).toBe(true);
    expect(can(access, 'edit', 'staging')).toBe(false);
  });

  it('refuses tokens to a scoped token even in its own namespace', () => {
    const access = accessOf(self(undefined, { 'io.flipt.auth.token.namespace': 'team' }));
    expect(can(access, 'edit', 'team')).toBe(true);
    expect(can(access, 'tokens', 'team')).toBe(false);
    expect(canSomewhere(access, 'tokens')).toBe(false);
    expect(reason(access, 'tokens', 'team')).toBe(
      'Managing tokens is not possible with a token limited to one namespace.',
    );
  });
});

describe('reasons', () => {
  it.each([
    [
      on('viewer'),
      'edit',
      'prod',
      'Changing flags and segments needs the editor role on namespace "prod"; your role there is viewer.',
    ],
    [
      on('viewer'),
      'read',
      'staging',
      'Reading flags and segments needs the viewer role on namespace "staging"; you have no role there.',
    ],
    [
      on('admin'),
      'create-namespace',
      'prod',
      'Creating namespaces needs the admin role on every namespace (*); you have no role there.',
    ],
    [
      on('editor', '*'),
      'import-drop',
      'prod',
      'Importing with "replace everything" needs the admin role on every namespace (*); your role there is editor.',
    ],
    [on('editor'), 'edit', 'prod', undefined],
  ] as const)('%#: %s', (access, action, namespace, expected) => {
    expect(reason(access, action, namespace)).toBe(expected);
  });

  it('says why a page across namespaces is closed', () => {
    expect(reasonEverywhere(on('editor'), 'role-bindings')).toBe(
      'Managing role bindings needs the admin role on at least one namespace; you have it on none.',
    );
    expect(reasonEverywhere(on('admin'), 'role-bindings')).toBeUndefined();
    expect(canSomewhere(on('admin'), 'tokens')).toBe(true);
  });
});

describe('where to start', () => {
  it.each([
    ['everything listed, default kept', FULL_ACCESS, ['default', 'prod'], 'default', 'default'],
    ['default not readable: the first listed', on('viewer'), ['prod'], 'default', 'prod'],
    ['a client reads no list: its named namespace', on('client'), [], 'default', 'prod'],
    ['a client on *: the preferred one', on('client', '*'), [], 'default', 'default'],
    ['no role at all: nowhere', accessOf(self([])), [], 'default', undefined],
    ['the remembered one when still available', on('viewer', '*'), ['a', 'b'], 'b', 'b'],
  ] as const)('%s', (_name, access, listed, preferred, expected) => {
    expect(startNamespace(access, listed, preferred)).toBe(expected);
  });

  it.each([
    ['viewer', 'flags'],
    ['client', 'console'],
  ] as const)('a %s starts in %s', (role, section) => {
    expect(startSection(on(role), 'prod')).toBe(section);
    expect(startSection(on(role), 'elsewhere')).toBeUndefined();
  });
});
