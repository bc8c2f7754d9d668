// The four roles and a binding of one of them to a namespace (issue 41). In domain/ because an
// authentication carries its roles (domain/authentication.ts) and storage reads and writes them; what
// each role permits is decided in auth/roles/.

/** Lowest first: each role includes every role before it. */
export const ROLES = ['client', 'viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The namespace key a binding names for every namespace. */
export const ALL_NAMESPACES = '*';

export interface RoleBinding {
  role: Role;
  /** A namespace key, or `*` for every namespace. */
  namespace: string;
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
