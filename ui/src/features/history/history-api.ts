// The change log as the dashboard reads it (issue 28): pages of changes for a namespace, a flag or a
// segment, and the revert call. Shapes come from the generated OpenAPI types so they cannot drift.

import { request } from '../../api/client.js';
import type { paths as ApiPaths } from '../../api/openapi.js';

type ListPath = ApiPaths['/api/v1/namespaces/{namespaceKey}/changes']['get'];
export type ChangeList = ListPath['responses'][200]['content']['application/json'];
export type Change = ChangeList['changes'][number];
export type ChangeActor = Change['actor'];

/** Whose changes a list shows: a namespace (optionally filtered), one flag, or one segment. */
export type HistoryScope =
  | { kind: 'namespace'; ns: string; type?: string; key?: string }
  | { kind: 'flag'; ns: string; key: string }
  | { kind: 'segment'; ns: string; key: string };

const enc = encodeURIComponent;
const PAGE_SIZE = 25;

export function listChanges(scope: HistoryScope, pageToken?: string, signal?: AbortSignal): Promise<ChangeList> {
  const ns = `/api/v1/namespaces/${enc(scope.ns)}`;
  const path =
    scope.kind === 'flag'
      ? `${ns}/flags/${enc(scope.key)}/changes`
      : scope.kind === 'segment'
        ? `${ns}/segments/${enc(scope.key)}/changes`
        : `${ns}/changes`;
  const filters = scope.kind === 'namespace' ? { type: scope.type, key: scope.key } : {};
  return request<ChangeList>('GET', path, { query: { ...filters, limit: PAGE_SIZE, pageToken }, signal });
}

/** Restores the state before `id`; answers the new change that records the revert. */
export const revertChange = (ns: string, id: string) =>
  request<Change>('POST', `/api/v1/namespaces/${enc(ns)}/changes/${enc(id)}/revert`);

/** Every history list shares the 'changes' prefix, so one write can refresh them all. */
export const historyKeys = {
  all: ['changes'] as const,
  list: (scope: HistoryScope) => ['changes', scope] as const,
};
