// authorize's role path (ADR 46): a caller with roles is decided by the role its call's declaration
// needs, on the namespaces the call addresses; lists and calls addressing none need the role somewhere.

import { describe, expect, it } from 'vitest';
import type { Authentication } from '../domain/authentication.js';
import { PermissionDeniedError } from '../domain/errors.js';
import type { RoleBinding } from '../domain/roles.js';
import type { Access } from './access.js';
import { authorize, effectiveRoles, namespacesVisibleTo } from './authorize.js';

function caller(roles: RoleBinding[] | undefined, scope?: string): Authentication {
  return {
    id: 'id',
    method: 'METHOD_TOKEN',
    metadata: scope === undefined ? {} : { 'io.flipt.auth.token.namespace': scope },
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...(roles !== undefined ? { roles } : {}),
  };
}

const access = (resource: Access['resource'], action: Access['action'], namespace: Access['namespace']): Access => ({
  resource,
  action,
  namespace,
});

const EVALUATE = access('evaluation', 'evaluate', 'request');
const BATCH = access('evaluation', 'evaluate', 'items');
const FLAG_READ = access('flag', 'read', 'request');
const FLAG_WRITE = access('flag', 'update', 'request');
const NAMESPACE_UPDATE = access('namespace', 'update', 'key');
const NAMESPACE_CREATE = access('namespace', 'create', 'key');
const NAMESPACE_LIST = access('namespace', 'read', 'filtered');
const DROP = access('document', 'import', 'all');
const TOKEN_CREATE = access('token', 'create', 'none');
const SELF: Access = { ...access('token', 'read', 'none'), self: true };
const EXPIRE_SELF: Access = { ...access('token', 'update', 'none'), selfExpire: true };
const SIGN_IN = access('sign-in', 'read', 'none');

const on = (role: RoleBinding['role'], namespace = 'team'): RoleBinding[] => [{ role, namespace }];

type Outcome = 'allowed' | string;
const rows: {
  name: string;
  roles: RoleBinding[];
  access: Access;
  input?: Record<string, unknown>;
  outcome: Outcome;
}[] = [
  {
    name: 'client evaluates in its namespace',
    roles: on('client'),
    access: EVALUATE,
    input: { namespaceKey: 'team' },
    outcome: 'allowed',
  },
  {
    name: 'client evaluates elsewhere',
    roles: on('client'),
    access: EVALUATE,
    input: { namespaceKey: 'other' },
    outcome: 'role "client" on namespace "other"',
  },
  {
    name: 'client evaluates `default` by an empty key',
    roles: on('client'),
    access: EVALUATE,
    input: {},
    outcome: 'role "client" on namespace "default"',
  },
  {
    name: 'client on * evaluates anywhere',
    roles: on('client', '*'),
    access: EVALUATE,
    input: { namespaceKey: 'x' },
    outcome: 'allowed',
  },
  {
    name: 'client reads a flag',
    roles: on('client'),
    access: FLAG_READ,
    input: { namespaceKey: 'team' },
    outcome: 'role "viewer" on namespace "team"',
  },
  {
    name: 'viewer reads a flag',
    roles: on('viewer'),
    access: FLAG_READ,
    input: { namespaceKey: 'team' },
    outcome: 'allowed',
  },
  {
    name: 'viewer changes a flag',
    roles: on('viewer'),
    access: FLAG_WRITE,
    input: { namespaceKey: 'team' },
    outcome: 'role "editor" on namespace "team"',
  },
  {
    name: 'editor changes a flag',
    roles: on('editor'),
    access: FLAG_WRITE,
    input: { namespaceKey: 'team' },
    outcome: 'allowed',
  },
  {
    name: 'editor evaluates (roles include the ones before)',
    roles: on('editor'),
    access: EVALUATE,
    input: { namespaceKey: 'team' },
    outcome: 'allowed',
  },
  {
    name: 'editor updates namespace settings',
    roles: on('editor'),
    access: NAMESPACE_UPDATE,
    input: { key: 'team' },
    outcome: 'role "admin" on namespace "team"',
  },
  {
    name: 'admin updates namespace settings',
    roles: on('admin'),
    access: NAMESPACE_UPDATE,
    input: { key: 'team' },
    outcome: 'allowed',
  },
  {
    name: 'admin of team creates a namespace',
    roles: on('admin'),
    access: NAMESPACE_CREATE,
    input: { key: 'team' },
    outcome: 'role "admin" on every namespace (*)',
  },
  {
    name: 'admin on * creates a namespace',
    roles: on('admin', '*'),
    access: NAMESPACE_CREATE,
    input: { key: 'new' },
    outcome: 'allowed',
  },
  {
    name: 'admin of team imports with drop',
    roles: on('admin'),
    access: DROP,
    outcome: 'role "admin" on every namespace (*)',
  },
  {
    name: 'batch across two namespaces, one missing',
    roles: on('client'),
    access: BATCH,
    input: { requests: [{ namespaceKey: 'team' }, { namespaceKey: 'other' }] },
    outcome: 'role "client" on namespace "other"',
  },
  {
    name: 'batch within the namespace',
    roles: on('client'),
    access: BATCH,
    input: { requests: [{ namespaceKey: 'team' }] },
    outcome: 'allowed',
  },
  {
    name: 'namespace list by a client (filtered: allowed, the answer is empty)',
    roles: on('client'),
    access: NAMESPACE_LIST,
    outcome: 'allowed',
  },
  { name: 'namespace list by a viewer', roles: on('viewer'), access: NAMESPACE_LIST, outcome: 'allowed' },
  {
    name: 'token creation by an editor',
    roles: on('editor'),
    access: TOKEN_CREATE,
    outcome: 'role "admin" on namespace "team"',
  },
  {
    name: 'token creation by an admin (the handler checks where)',
    roles: on('admin'),
    access: TOKEN_CREATE,
    outcome: 'allowed',
  },
  {
    name: 'no roles at all: evaluate',
    roles: [],
    access: EVALUATE,
    input: { namespaceKey: 'team' },
    outcome: 'role "client" on namespace "team"',
  },
  { name: 'no roles at all: read oneself', roles: [], access: SELF, outcome: 'allowed' },
  { name: 'no roles at all: sign out', roles: [], access: EXPIRE_SELF, outcome: 'allowed' },
  { name: 'no roles at all: sign-in calls', roles: [], access: SIGN_IN, outcome: 'allowed' },
];

describe('authorize with roles', () => {
  it.each(rows)('$name', ({ roles, access: declared, input, outcome }) => {
    const decide = () => authorize({ access: declared, group: 'management' }, caller(roles), input ?? {});
    if (outcome === 'allowed') expect(decide()).toBe(true);
    else {
      expect(decide).toThrow(PermissionDeniedError);
      expect(decide).toThrow(outcome);
    }
  });

  it('waits for the input only when the role is not held on every namespace', () => {
    const declared = { access: EVALUATE, group: 'evaluation' as const };
    expect(authorize(declared, caller(on('client')))).toBe(false);
    expect(authorize(declared, caller(on('client', '*')))).toBe(true);
  });

  it('refuses an entry point without a declaration, roles or not', () => {
    expect(() => authorize({ access: undefined, group: 'unclassified' }, caller(on('admin', '*')))).toThrow(
      PermissionDeniedError,
    );
  });

  it('forms the input lazily, and not at all for a role held everywhere', () => {
    let formed = 0;
    const input = () => {
      formed += 1;
      return { namespaceKey: 'team' };
    };
    authorize({ access: EVALUATE, group: 'evaluation' }, caller(on('client', '*')), input);
    expect(formed).toBe(0);
    authorize({ access: EVALUATE, group: 'evaluation' }, caller(on('client')), input);
    expect(formed).toBe(1);
  });
});

describe('effectiveRoles and namespacesVisibleTo', () => {
  it('gives callers without roles their meaning from before roles', () => {
    expect(effectiveRoles(caller(undefined))).toEqual([{ role: 'admin', namespace: '*' }]);
    expect(effectiveRoles(caller(undefined, 'team'))).toEqual([{ role: 'admin', namespace: 'team' }]);
    expect(effectiveRoles(caller(on('viewer')))).toEqual(on('viewer'));
  });

  it('shows the namespaces a caller may read', () => {
    expect(namespacesVisibleTo(null)).toBeUndefined();
    expect(namespacesVisibleTo(caller(undefined))).toBeUndefined();
    expect(namespacesVisibleTo(caller(undefined, 'team'))).toEqual(['team']);
    expect(namespacesVisibleTo(caller(on('viewer', '*')))).toBeUndefined();
    expect(namespacesVisibleTo(caller([...on('viewer'), ...on('client', 'other')]))).toEqual(['team']);
    expect(namespacesVisibleTo(caller([...on('viewer'), ...on('client', 'other')]), 'client')).toEqual([
      'team',
      'other',
    ]);
    expect(namespacesVisibleTo(caller([]))).toEqual([]);
  });
});
