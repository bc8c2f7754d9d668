// Role bindings on the wire (issue 41): a binding as stored, the list, and the body that makes one. The
// body's fields are typed loosely (strings) so that what is wrong with them is said by the service's own
// check (binding.ts), in the words the config's check uses, rather than by the schema validator.

import Type from 'typebox';
import { Timestamp } from '../../api/http/schemas/common.js';
import { AUTH_METHODS } from '../../domain/authentication.js';
import { ROLES } from '../../domain/roles.js';

const methods = AUTH_METHODS.join(', ');
const roles = ROLES.join(', ');

const MatchSchema = Type.Object(
  {
    method: Type.Optional(Type.String({ description: `only authentications of this method: ${methods}` })),
    metadata: Type.Optional(
      Type.String({ description: 'a metadata key of the authentication (io.flipt.auth.email, …); or claim' }),
    ),
    claim: Type.Optional(
      Type.String({ description: 'a top-level claim of the OIDC ID token (groups, …); or metadata' }),
    ),
    pattern: Type.String({ description: 'the value to match; * stands for any run of characters' }),
  },
  { description: 'who: exactly one of metadata or claim, and a pattern' },
);

export const StoredRoleBindingSchema = Type.Object(
  {
    id: Type.String(),
    match: MatchSchema,
    role: Type.String({ description: roles }),
    namespace: Type.String({ description: 'a namespace key, or * for every namespace' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'StoredRoleBinding', description: 'A role given to the identities that match, on one namespace or all' },
);

export const RoleBindingListSchema = Type.Object({
  bindings: Type.Array(StoredRoleBindingSchema, {
    description: 'the bindings the caller administers: on namespaces it is admin of, and on * for admins on *',
  }),
});

export const CreateRoleBindingBody = Type.Object({
  match: MatchSchema,
  role: Type.String({ description: roles }),
  namespace: Type.String({ description: 'a namespace key, or * for every namespace (needs admin on *)' }),
});

export const RoleBindingIdParams = Type.Object({ id: Type.String() });
