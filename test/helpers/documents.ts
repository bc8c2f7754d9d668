// What the management API shows of a namespace, gathered into one plain object by keys (variant ids
// turned into keys, timestamps and ids left out): imports are checked against it object by object.

import { expect } from 'vitest';
import type { App } from '../../src/app/build-app.js';
import { call } from './app.js';

// biome-ignore lint/suspicious/noExplicitAny: API answers are read as plain JSON
type Json = any;

export async function namespaceView(app: App, ns: string, headers: Record<string, string> = {}) {
  const get = async (url: string) => {
    const res = await call(app, 'GET', url, undefined, headers);
    expect(res.status, url).toBe(200);
    return res.body as Json;
  };
  const base = `/api/v1/namespaces/${ns}`;
  const namespace = await get(base);
  const flags = (await get(`${base}/flags`)).flags as Json[];
  const segments = (await get(`${base}/segments`)).segments as Json[];
  const flagViews = [];
  for (const listed of flags) {
    const flag = await get(`${base}/flags/${listed.key}`);
    const variantKey = new Map<string, string>(flag.variants.map((v: Json) => [v.id, v.key]));
    const rules = (await get(`${base}/flags/${flag.key}/rules`)).rules as Json[];
    const rollouts = (await get(`${base}/flags/${flag.key}/rollouts`)).rules as Json[];
    flagViews.push({
      key: flag.key,
      name: flag.name,
      description: flag.description,
      enabled: flag.enabled,
      type: flag.type,
      metadata: listed.metadata,
      defaultVariant: flag.defaultVariant?.key,
      variants: flag.variants.map((v: Json) => ({
        key: v.key,
        name: v.name,
        description: v.description,
        attachment: v.attachment === '' ? undefined : JSON.parse(v.attachment),
      })),
      rules: rules.map((r) => ({
        rank: r.rank,
        segments: r.segmentKey ? [r.segmentKey] : r.segmentKeys,
        operator: r.segmentOperator,
        distributions: r.distributions.map((d: Json) => ({ variant: variantKey.get(d.variantId), rollout: d.rollout })),
      })),
      rollouts: rollouts.map((r) => ({
        rank: r.rank,
        type: r.type,
        description: r.description,
        ...(r.segment
          ? {
              segment: {
                segments: r.segment.segmentKey ? [r.segment.segmentKey] : r.segment.segmentKeys,
                operator: r.segment.segmentOperator,
                value: r.segment.value,
              },
            }
          : {}),
        ...(r.threshold ? { threshold: r.threshold } : {}),
      })),
    });
  }
  return {
    namespace: { key: namespace.key, name: namespace.name, description: namespace.description },
    flags: flagViews,
    segments: segments.map((s: Json) => ({
      key: s.key,
      name: s.name,
      description: s.description,
      matchType: s.matchType,
      constraints: s.constraints.map((c: Json) => ({
        type: c.type,
        property: c.property,
        operator: c.operator,
        value: c.value,
        description: c.description,
      })),
    })),
  };
}

/** An export without its header (the line carrying the time and the blank line after it, written for a file only). */
export function withoutHeader(text: string): string {
  return text.replace(/^# exported by Vexil[^\n]*\n\n/, '');
}
