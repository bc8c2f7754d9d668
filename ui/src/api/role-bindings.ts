// The role bindings API (issue 41): who gets which role on which namespace, besides the rules in the
// server's configuration. Admins list, create and delete them.

import { request } from './client.js';

export type RoleName = 'client' | 'viewer' | 'editor' | 'admin';

/** Who a binding is for: a metadata key of the authentication or an OIDC claim, and a pattern (`*`: any run). */
export interface IdentityMatch {
  method?: string;
  metadata?: string;
  claim?: string;
  pattern: string;
}

export interface RoleBindingRecord {
  id: string;
  match: IdentityMatch;
  role: RoleName;
  namespace: string;
  createdAt: string;
  updatedAt: string;
}

export interface RoleBindingInput {
  match: IdentityMatch;
  role: RoleName;
  namespace: string;
}

const PATH = '/api/v1/roles/bindings';

export const listRoleBindings = () =>
  request<{ bindings: RoleBindingRecord[] }>('GET', PATH).then((answer) => answer.bindings ?? []);
export const createRoleBinding = (input: RoleBindingInput) => request<RoleBindingRecord>('POST', PATH, { body: input });
export const deleteRoleBinding = (id: string) =>
  request<Record<string, never>>('DELETE', `${PATH}/${encodeURIComponent(id)}`);
