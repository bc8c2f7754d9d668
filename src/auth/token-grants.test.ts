// Token grants (ADR 46): the roles asked for a token are checked (400), stay within the creator's, and
// tokens are made, seen and removed only by admins of where they reach.

import { describe, expect, it } from 'vitest';
import type { Authentication } from '../domain/authentication.js';
import { InvalidArgumentError, PermissionDeniedError } from '../domain/errors.js';
import type { RoleBinding } from '../domain/roles.js';
import { administersToken, askedRoles, checkTokenGrant, namespacesOfToken } from './token-grants.js';

function token(roles: RoleBinding[] | undefined, scope?: string): Authentication {
  return {
    id: 'id',
    method: 'METHOD_TOKEN',
    metadata: scope === undefined ? {} : { 'io.flipt.auth.token.namespace': scope },
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...(roles !== undefined ? { roles } : {}),
  };
}

describe('askedRoles', () => {
  it('takes a namespace key with a comma, as namespaces are created with them', () => {
    expect(askedRoles([{ role: 'viewer', namespace: 'team,a' }], undefined)).toEqual([
      { role: 'viewer', namespace: 'team,a' },
    ]);
    expect(askedRoles([{ role: 'viewer', namespace: 'team,a' }], 'team,a')).toHaveLength(1);
  });

  it('reads absent and empty lists as no roles', () => {
    expect(askedRoles(undefined, undefined)).toBeUndefined();
    expect(askedRoles(null, 'team')).toBeUndefined();
    expect(askedRoles([], 'team')).toBeUndefined();
  });

  it.each([
    { raw: [{ role: 'Admin', namespace: 'team' }], key: undefined, message: 'invalid role "Admin"' },
    { raw: [{ role: 'owner', namespace: 'team' }], key: undefined, message: 'invalid role "owner"' },
    { raw: [{ namespace: 'team' }], key: undefined, message: 'invalid role ""' },
    { raw: [{ role: 'viewer', namespace: '' }], key: undefined, message: 'invalid role namespace ""' },
    { raw: [{ role: 'viewer', namespace: 'a b' }], key: undefined, message: 'invalid role namespace "a b"' },
    { raw: [{ role: 'viewer', namespace: '*' }], key: 'team', message: 'outside the token\'s namespace "team"' },
    { raw: [{ role: 'viewer', namespace: 'other' }], key: 'team', message: 'outside the token\'s namespace "team"' },
    { raw: 'admin', key: undefined, message: 'roles must be a list' },
    { raw: [null], key: undefined, message: 'invalid role ""' },
  ])('refuses $raw (namespaceKey $key)', ({ raw, key, message }) => {
    expect(() => askedRoles(raw, key)).toThrow(InvalidArgumentError);
    expect(() => askedRoles(raw, key)).toThrow(message);
  });

  it('keeps valid roles', () => {
    expect(askedRoles([{ role: 'client', namespace: 'team' }], 'team')).toEqual([
      { role: 'client', namespace: 'team' },
    ]);
    expect(askedRoles([{ role: 'viewer', namespace: '*' }], '')).toEqual([{ role: 'viewer', namespace: '*' }]);
  });
});

const ADMIN_EVERYWHERE = token([{ role: 'admin', namespace: '*' }]);
const ADMIN_OF_TEAM = token([{ role: 'admin', namespace: 'team' }]);
const EDITOR_OF_TEAM = token([{ role: 'editor', namespace: 'team' }]);
const VIEWER_EVERYWHERE = token([{ role: 'viewer', namespace: '*' }]);

describe('checkTokenGrant', () => {
  const rows: {
    name: string;
    creator: Authentication | null;
    key?: string;
    asked?: RoleBinding[];
    refused?: string;
  }[] = [
    { name: 'no authentication required', creator: null, asked: [{ role: 'admin', namespace: '*' }] },
    {
      name: 'an unscoped token without roles makes anything',
      creator: token(undefined),
      asked: [{ role: 'admin', namespace: '*' }],
    },
    { name: 'an unscoped token without roles makes an unscoped token', creator: token(undefined) },
    { name: 'admin on * makes an unscoped token without roles', creator: ADMIN_EVERYWHERE },
    {
      name: 'admin of team makes an unscoped token without roles',
      creator: ADMIN_OF_TEAM,
      refused: 'role "admin" on every namespace (*)',
    },
    { name: 'admin of team makes a team token without roles', creator: ADMIN_OF_TEAM, key: 'team' },
    {
      name: 'admin of team makes an other token without roles',
      creator: ADMIN_OF_TEAM,
      key: 'other',
      refused: 'role "admin" on namespace "other"',
    },
    {
      name: 'admin of team makes a team client token',
      creator: ADMIN_OF_TEAM,
      key: 'team',
      asked: [{ role: 'client', namespace: 'team' }],
    },
    {
      name: 'admin of team reaches other',
      creator: ADMIN_OF_TEAM,
      asked: [{ role: 'client', namespace: 'other' }],
      refused: 'role "client" on namespace "other"',
    },
    {
      name: 'admin of team grants on *',
      creator: ADMIN_OF_TEAM,
      asked: [{ role: 'viewer', namespace: '*' }],
      refused: 'role "viewer" on every namespace (*)',
    },
    {
      name: 'a viewer makes an admin token',
      creator: VIEWER_EVERYWHERE,
      asked: [{ role: 'admin', namespace: 'team' }],
      refused: 'role "admin" on namespace "team"',
    },
    {
      name: 'a viewer makes a viewer token (tokens are admin business)',
      creator: VIEWER_EVERYWHERE,
      asked: [{ role: 'viewer', namespace: 'team' }],
      refused: 'role "admin" on namespace "team"',
    },
    {
      name: 'an editor makes a client token',
      creator: EDITOR_OF_TEAM,
      asked: [{ role: 'client', namespace: 'team' }],
      refused: 'role "admin" on namespace "team"',
    },
  ];
  it.each(rows)('$name', ({ creator, key, asked, refused }) => {
    const grant = () => checkTokenGrant(creator, key, asked);
    if (refused === undefined) expect(grant).not.toThrow();
    else {
      expect(grant).toThrow(PermissionDeniedError);
      expect(grant).toThrow(refused);
    }
  });
});

describe('administering tokens', () => {
  it('knows where a token reaches', () => {
    expect(namespacesOfToken(token(undefined))).toEqual(['*']);
    expect(namespacesOfToken(token(undefined, 'team'))).toEqual(['team']);
    expect(
      namespacesOfToken(
        token([
          { role: 'client', namespace: 'a' },
          { role: 'viewer', namespace: 'b' },
        ]),
      ),
    ).toEqual(['a', 'b']);
    expect(
      namespacesOfToken(
        token([
          { role: 'client', namespace: '*' },
          { role: 'viewer', namespace: 'b' },
        ]),
      ),
    ).toEqual(['*']);
  });

  it.each([
    { caller: ADMIN_OF_TEAM, target: token(undefined, 'team'), administers: true },
    { caller: ADMIN_OF_TEAM, target: token([{ role: 'client', namespace: 'team' }]), administers: true },
    { caller: ADMIN_OF_TEAM, target: token(undefined), administers: false },
    {
      caller: ADMIN_OF_TEAM,
      target: token([
        { role: 'client', namespace: 'team' },
        { role: 'client', namespace: 'other' },
      ]),
      administers: false,
    },
    { caller: EDITOR_OF_TEAM, target: token(undefined, 'team'), administers: false },
    { caller: ADMIN_EVERYWHERE, target: token(undefined), administers: true },
    { caller: token(undefined), target: token(undefined), administers: true },
  ])(
    'caller $caller.roles administers $target.roles / $target.metadata: $administers',
    ({ caller, target, administers }) => {
      expect(administersToken(caller, target)).toBe(administers);
    },
  );
});
