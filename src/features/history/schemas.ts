// The change log on the wire (issue 28): a change as recorded, a page of them, and the list filters.

import Type from 'typebox';
import { Timestamp } from '../../api/http/schemas/common.js';
import { CHANGE_ACTIONS, CHANGE_RESOURCE_TYPES, type Change } from '../../domain/changes.js';
import { InvalidArgumentError } from '../../domain/errors.js';
import type { ChangeListQuery } from './service.js';

const ActorSchema = Type.Object({
  authentication: Type.String({
    description:
      'the method (`token`, `jwt`, `oidc`, `github`, `kubernetes`), `none` (authentication off), `bootstrap` or `cli`',
  }),
  ip: Type.Optional(Type.String()),
  tokenId: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  picture: Type.Optional(Type.String()),
  role: Type.Optional(
    Type.String({
      description:
        'For an actor with roles: the highest role it held on the namespace of the change or on * (for a token change: anywhere)',
    }),
  ),
});

export const ChangeSchema = Type.Object(
  {
    id: Type.String(),
    createdAt: Timestamp,
    batch: Type.Optional(Type.String({ description: 'Shared by the changes of one import' })),
    namespaceKey: Type.Optional(Type.String({ description: 'Absent for token changes' })),
    resourceType: Type.String({ description: CHANGE_RESOURCE_TYPES.join(', ') }),
    resourceKey: Type.String({
      description: 'A key, or the id of a variant, rule, distribution, rollout, constraint or token',
    }),
    parentKey: Type.Optional(
      Type.String({
        description: 'The flag of a variant, rule or rollout; the segment of a constraint; the rule of a distribution',
      }),
    ),
    action: Type.String({ description: CHANGE_ACTIONS.join(', ') }),
    actor: ActorSchema,
    before: Type.Optional(Type.Unknown({ description: 'The resource before the change; absent when created' })),
    after: Type.Optional(Type.Unknown({ description: 'The resource after the change; absent when deleted' })),
    reverts: Type.Optional(Type.String({ description: 'The id of the change this one reverted' })),
  },
  { description: 'One recorded change' },
);

export const ChangeListSchema = Type.Object({
  changes: Type.Array(ChangeSchema),
  nextPageToken: Type.String(),
});

export const ChangeListQuerystring = Type.Object({
  type: Type.Optional(Type.String({ description: CHANGE_RESOURCE_TYPES.join(', ') })),
  key: Type.Optional(Type.String({ description: 'Resource key (or id)' })),
  actor: Type.Optional(Type.String({ description: "The actor's token id or name, or `bootstrap`, `cli`, `none`" })),
  batch: Type.Optional(Type.String()),
  since: Type.Optional(Type.String({ description: 'RFC 3339; changes at or after it' })),
  until: Type.Optional(Type.String({ description: 'RFC 3339; changes before it' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Default 25, at most 1000' })),
  pageToken: Type.Optional(Type.String()),
});

type ChangeListQuerystring = {
  type?: string;
  key?: string;
  actor?: string;
  batch?: string;
  since?: string;
  until?: string;
  limit?: string;
  pageToken?: string;
};

function time(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError(`${name} must be an RFC 3339 timestamp, got "${value}"`);
  }
  return date;
}

export function toChangeListQuery(q: ChangeListQuerystring): ChangeListQuery {
  const since = time('since', q.since);
  const until = time('until', q.until);
  const limit = q.limit === undefined ? 0 : Number(q.limit);
  if (limit > 2 ** 31 - 1) throw new InvalidArgumentError('limit must be an int32');
  return {
    ...(q.type !== undefined ? { resourceType: q.type } : {}),
    ...(q.key !== undefined ? { resourceKey: q.key } : {}),
    ...(q.actor !== undefined ? { actor: q.actor } : {}),
    ...(q.batch !== undefined ? { batch: q.batch } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    limit,
    pageToken: q.pageToken ?? '',
  };
}

export function changeListToWire(page: { items: Change[]; nextPageToken: string }) {
  return { changes: page.items, nextPageToken: page.nextPageToken };
}
