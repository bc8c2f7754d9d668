import { describe, expect, it } from 'vitest';
import { type Authentication, TOKEN_METADATA } from '../domain/authentication.js';
import { PermissionDeniedError } from '../domain/errors.js';
import type { Role } from '../domain/roles.js';
import type { Access, NamespaceRule } from './access.js';
import type { AuthGroup } from './access-groups.js';
import { type AccessInput, addressedNamespaces, authorize, namespacesVisibleTo, readsInput } from './authorize.js';

describe('addressedNamespaces', () => {
  const rows: { rule: NamespaceRule; input: AccessInput; addressed: readonly string[] | undefined }[] = [
    { rule: 'request', input: { namespaceKey: 'team' }, addressed: ['team'] },
    { rule: 'request', input: { namespaceKey: '' }, addressed: ['default'] },
    { rule: 'request', input: {}, addressed: ['default'] },
    { rule: 'request', input: { namespaceKey: 7 }, addressed: ['default'] },
    { rule: 'request', input: { key: 'team' }, addressed: ['default'] },
    { rule: 'key', input: { key: 'team', namespaceKey: 'other' }, addressed: ['team'] },
    { rule: 'key', input: { key: '' }, addressed: ['default'] },
    { rule: 'key', input: {}, addressed: ['default'] },
    { rule: 'items', input: { requests: [{ namespaceKey: 'a' }, { namespaceKey: 'a' }] }, addressed: ['a'] },
    { rule: 'items', input: { requests: [{ namespaceKey: 'a' }, {}] }, addressed: ['a', 'default'] },
    { rule: 'items', input: { requests: [{ namespaceKey: 'a' }], namespaceKey: 'b' }, addressed: ['a', 'b'] },
    { rule: 'items', input: { requests: [{ namespaceKey: 'a' }], namespaceKey: '' }, addressed: ['a'] },
    { rule: 'items', input: { requests: [] }, addressed: ['default'] },
    { rule: 'items', input: { requests: [null, 'x'] }, addressed: ['default'] },
    { rule: 'items', input: { namespaceKey: 'b' }, addressed: ['b'] },
    { rule: 'items', input: {}, addressed: ['default'] },
    { rule: 'binding', input: { namespace: 'team', namespaceKey: 'other' }, addressed: ['team'] },
    { rule: 'binding', input: { namespace: '*' }, addressed: ['*'] },
    { rule: 'binding', input: { namespace: '' }, addressed: ['*'] },
    { rule: 'binding', input: { namespace: 7, namespaceKey: 'team' }, addressed: ['*'] },
    { rule: 'binding', input: {}, addressed: ['*'] },
    { rule: 'filtered', input: { namespaceKey: 'team' }, addressed: undefined },
    { rule: 'all', input: { namespaceKey: 'team' }, addressed: undefined },
    { rule: 'none', input: { namespaceKey: 'team' }, addressed: undefined },
  ];
  it.each(rows)('$rule of $input → $addressed', ({ rule, input, addressed }) => {
    expect(addressedNamespaces(rule, input)).toEqual(addressed);
  });

  it('reads the input for exactly the rules that name namespaces', () => {
    const rules: NamespaceRule[] = ['request', 'key', 'items', 'binding', 'filtered', 'all', 'none'];
    expect(rules.filter((namespace) => readsInput({ resource: 'flag', action: 'read', namespace }))).toEqual([
      'request',
      'key',
      'items',
      'binding',
    ]);
    expect(readsInput(undefined)).toBe(false);
  });
});

function authentication(namespace?: string): Authentication {
  return {
    id: 'id',
    method: 'METHOD_TOKEN',
    metadata: namespace === undefined ? {} : { [TOKEN_METADATA.namespace]: namespace },
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

const FLAG_READ: Access = { resource: 'flag', action: 'read', namespace: 'request' };
const NAMESPACE_LIST: Access = { resource: 'namespace', action: 'read', namespace: 'none' };
const CHANGES: Access = { resource: 'change', action: 'read', namespace: 'filtered' };
const BATCH: Access = { resource: 'evaluation', action: 'evaluate', namespace: 'items' };
const DROP: Access = { resource: 'document', action: 'import', namespace: 'all' };
const SELF: Access = { resource: 'token', action: 'read', namespace: 'none', self: true };
const TOKENS: Access = { resource: 'token', action: 'read', namespace: 'none' };
const OFREP: Access = { resource: 'evaluation', action: 'evaluate', namespace: 'request' };

type Outcome = 'allowed' | 'denied' | 'needs input';

function outcome(
  access: Access | undefined,
  group: AuthGroup | 'unclassified',
  caller: Authentication | null,
  input?: AccessInput,
): Outcome {
  try {
    return authorize({ access, group }, caller, input) ? 'allowed' : 'needs input';
  } catch (err) {
    expect(err).toBeInstanceOf(PermissionDeniedError);
    return 'denied';
  }
}

describe('authorize', () => {
  const team = authentication('team');
  const unscoped = authentication();
  const rows: {
    name: string;
    access: Access | undefined;
    group: AuthGroup | 'unclassified';
    caller: Authentication | null;
    input?: AccessInput;
    expected: Outcome;
  }[] = [
    // No authentication (not required, or the group excluded) and unscoped tokens: nothing to refuse.
    { name: 'no authentication', access: FLAG_READ, group: 'management', caller: null, expected: 'allowed' },
    {
      name: 'no authentication, undeclared',
      access: undefined,
      group: 'unclassified',
      caller: null,
      expected: 'allowed',
    },
    {
      name: 'unscoped, any namespace',
      access: FLAG_READ,
      group: 'management',
      caller: unscoped,
      input: { namespaceKey: 'x' },
      expected: 'allowed',
    },
    { name: 'unscoped, without input', access: FLAG_READ, group: 'management', caller: unscoped, expected: 'allowed' },
    { name: 'unscoped, token API', access: TOKENS, group: 'auth', caller: unscoped, expected: 'allowed' },
    { name: 'unscoped, undeclared', access: undefined, group: 'unclassified', caller: unscoped, expected: 'allowed' },
    // A token scoped to `team`.
    {
      name: 'scoped, own namespace',
      access: FLAG_READ,
      group: 'management',
      caller: team,
      input: { namespaceKey: 'team' },
      expected: 'allowed',
    },
    {
      name: 'scoped, other namespace',
      access: FLAG_READ,
      group: 'management',
      caller: team,
      input: { namespaceKey: 'other' },
      expected: 'denied',
    },
    {
      name: 'scoped, empty means default',
      access: FLAG_READ,
      group: 'management',
      caller: team,
      input: { namespaceKey: '' },
      expected: 'denied',
    },
    {
      name: 'scoped, before the input is known',
      access: FLAG_READ,
      group: 'management',
      caller: team,
      expected: 'needs input',
    },
    {
      name: 'scoped, evaluation group',
      access: OFREP,
      group: 'evaluation',
      caller: team,
      input: { namespaceKey: 'team' },
      expected: 'allowed',
    },
    {
      name: 'scoped, batch in its namespace',
      access: BATCH,
      group: 'evaluation',
      caller: team,
      input: { requests: [{ namespaceKey: 'team' }] },
      expected: 'allowed',
    },
    {
      name: 'scoped, batch reaching out',
      access: BATCH,
      group: 'evaluation',
      caller: team,
      input: { requests: [{ namespaceKey: 'team' }, {}] },
      expected: 'denied',
    },
    {
      name: 'scoped, a group refusing scoped tokens',
      access: OFREP,
      group: 'ofrep',
      caller: team,
      input: { namespaceKey: 'team' },
      expected: 'denied',
    },
    {
      name: 'scoped, refused before the input is known',
      access: OFREP,
      group: 'ofrep',
      caller: team,
      expected: 'denied',
    },
    { name: 'scoped, meta', access: NAMESPACE_LIST, group: 'meta', caller: team, expected: 'denied' },
    {
      name: 'scoped, names no namespace',
      access: NAMESPACE_LIST,
      group: 'management',
      caller: team,
      expected: 'denied',
    },
    {
      name: 'scoped, every namespace',
      access: DROP,
      group: 'management',
      caller: team,
      input: { namespaceKey: 'team' },
      expected: 'denied',
    },
    { name: 'scoped, a filtered read', access: CHANGES, group: 'management', caller: team, expected: 'allowed' },
    { name: 'scoped, reading itself', access: SELF, group: 'auth', caller: team, expected: 'allowed' },
    { name: 'scoped, other token calls', access: TOKENS, group: 'auth', caller: team, expected: 'denied' },
    {
      name: 'scoped, undeclared',
      access: undefined,
      group: 'management',
      caller: team,
      input: { namespaceKey: 'team' },
      expected: 'denied',
    },
    // A token scoped to `default` may leave the namespace empty.
    {
      name: 'default-scoped, empty namespace',
      access: FLAG_READ,
      group: 'management',
      caller: authentication('default'),
      input: {},
      expected: 'allowed',
    },
  ];
  it.each(rows)('$name: $expected', ({ access, group, caller, input, expected }) => {
    expect(outcome(access, group, caller, input)).toBe(expected);
  });

  it('forms a lazy input only when it reads it', () => {
    let formed = 0;
    const input = () => {
      formed++;
      return { namespaceKey: 'team' };
    };
    authorize({ access: FLAG_READ, group: 'management' }, authentication(), input);
    authorize({ access: CHANGES, group: 'management' }, authentication('team'), input);
    expect(formed).toBe(0);
    authorize({ access: FLAG_READ, group: 'management' }, authentication('team'), input);
    expect(formed).toBe(1);
  });
});

describe('namespacesVisibleTo', () => {
  it.each([
    { caller: null, visible: undefined },
    { caller: authentication(), visible: undefined },
    { caller: authentication('team'), visible: ['team'] },
  ])('$caller.metadata → $visible', ({ caller, visible }) => {
    expect(namespacesVisibleTo(caller)).toEqual(visible);
  });
});

describe('authorize: making a role binding (rule `binding`)', () => {
  const BIND: Access = { resource: 'role-binding', action: 'create', namespace: 'binding' };
  const withRoles = (...roles: [Role, string][]): Authentication => ({
    ...authentication(),
    roles: roles.map(([role, namespace]) => ({ role, namespace })),
  });
  const rows: [string, Authentication, AccessInput, Outcome][] = [
    ['admin of staging on staging', withRoles(['admin', 'staging']), { namespace: 'staging' }, 'allowed'],
    ['admin of staging on production', withRoles(['admin', 'staging']), { namespace: 'production' }, 'denied'],
    ['admin of staging on *', withRoles(['admin', 'staging']), { namespace: '*' }, 'denied'],
    ['admin of staging, namespace left out (read as *)', withRoles(['admin', 'staging']), {}, 'denied'],
    [
      'admin of staging, namespaceKey naming staging',
      withRoles(['admin', 'staging']),
      {
        namespace: 'production',
        namespaceKey: 'staging',
      },
      'denied',
    ],
    ['editor on * on staging', withRoles(['editor', '*']), { namespace: 'staging' }, 'denied'],
    ['admin on * on *', withRoles(['admin', '*']), { namespace: '*' }, 'allowed'],
    ['admin on * on staging', withRoles(['admin', '*']), { namespace: 'staging' }, 'allowed'],
  ];
  it.each(rows)('%s: %s', (_name, caller, input, expected) => {
    expect(outcome(BIND, 'auth', caller, input)).toBe(expected);
  });

  it('waits for the input before deciding on a namespace it does not hold everywhere', () => {
    expect(outcome(BIND, 'auth', withRoles(['admin', 'staging']))).toBe('needs input');
  });
});
