// React Query keys and read hooks, so every page shares one cache and a write invalidates exactly
// what it changed.

import { useQuery } from '@tanstack/react-query';
import * as api from './api.js';

export const keys = {
  namespaces: ['namespaces'] as const,
  flags: (ns: string) => ['flags', ns] as const,
  flag: (ns: string, key: string) => ['flag', ns, key] as const,
  rules: (ns: string, key: string) => ['rules', ns, key] as const,
  rollouts: (ns: string, key: string) => ['rollouts', ns, key] as const,
  segments: (ns: string) => ['segments', ns] as const,
  segment: (ns: string, key: string) => ['segment', ns, key] as const,
  tokens: ['tokens'] as const,
  roleBindings: ['role-bindings'] as const,
};

export const useNamespaces = (enabled = true) =>
  useQuery({ queryKey: keys.namespaces, queryFn: api.listNamespaces, enabled });

export const useFlags = (ns: string, enabled = true) =>
  useQuery({ queryKey: keys.flags(ns), queryFn: ({ signal }) => api.listAllFlags(ns, signal), enabled });

export const useFlag = (ns: string, key: string) =>
  useQuery({ queryKey: keys.flag(ns, key), queryFn: () => api.getFlag(ns, key) });

export const useRules = (ns: string, key: string, enabled = true) =>
  useQuery({ queryKey: keys.rules(ns, key), queryFn: () => api.listRules(ns, key), enabled });

export const useRollouts = (ns: string, key: string, enabled = true) =>
  useQuery({ queryKey: keys.rollouts(ns, key), queryFn: () => api.listRollouts(ns, key), enabled });

export const useSegments = (ns: string, enabled = true) =>
  useQuery({ queryKey: keys.segments(ns), queryFn: () => api.listAllSegments(ns), enabled });

export const useSegment = (ns: string, key: string) =>
  useQuery({ queryKey: keys.segment(ns, key), queryFn: () => api.getSegment(ns, key) });
