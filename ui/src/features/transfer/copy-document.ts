// The document that copies one flag or one segment into another namespace, cut from the source
// namespace's export (Flipt's format, as src/services/documents/serialize.ts writes it), and the
// report of what cannot come along. A rule or rollout that targets a segment the target namespace
// lacks either brings that segment with it (when asked) or is left out and named in the report.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

export interface SourceDocument {
  version?: string;
  namespace?: Json;
  flags?: Obj[];
  segments?: Obj[];
}

export interface CopyPlan {
  /** The document to import (JSON text). */
  text: string;
  /** Segments the copy brings along because the target lacks them. */
  segmentsAdded: string[];
  /** What the copy leaves out, one sentence each. */
  leftOut: string[];
}

export interface CopyRequest {
  kind: 'flag' | 'segment';
  key: string;
  target: string;
  /** Segment keys the target namespace already has. */
  targetSegments: Set<string>;
  /** Bring missing segments along instead of leaving out what needs them. */
  withSegments: boolean;
}

/** The segment keys a rule's or rollout's `segment` names: `"key"`, `{key}` or `{keys: […]}`. */
export function segmentKeysIn(segment: Json | undefined): string[] {
  if (typeof segment === 'string') return [segment];
  if (segment && typeof segment === 'object' && !Array.isArray(segment)) {
    if (typeof segment.key === 'string') return [segment.key];
    if (Array.isArray(segment.keys)) return segment.keys.filter((k): k is string => typeof k === 'string');
  }
  return [];
}

/** The first document of a JSON export (one compact document per line). */
export function parseExport(text: string): SourceDocument {
  const line = text.split('\n').find((l) => l.trim().startsWith('{'));
  if (!line) throw new Error('The export holds no document.');
  return JSON.parse(line) as SourceDocument;
}

export function planCopy(source: SourceDocument, request: CopyRequest): CopyPlan {
  const segmentsByKey = new Map((source.segments ?? []).map((s) => [String(s.key), s]));
  const doc: SourceDocument = { version: source.version ?? '1.4', namespace: request.target };
  const leftOut: string[] = [];
  const added: string[] = [];

  if (request.kind === 'segment') {
    const segment = segmentsByKey.get(request.key);
    if (!segment) throw new Error(`Segment "${request.key}" is not in the source namespace.`);
    doc.segments = [segment];
    return { text: JSON.stringify(doc), segmentsAdded: [], leftOut };
  }

  const flag = (source.flags ?? []).find((f) => f.key === request.key);
  if (!flag) throw new Error(`Flag "${request.key}" is not in the source namespace.`);
  const copy: Obj = { ...flag };
  const usable = (what: string, keys: string[]): boolean => {
    const missing = keys.filter((k) => !request.targetSegments.has(k));
    if (missing.length === 0) return true;
    if (request.withSegments && missing.every((k) => segmentsByKey.has(k))) {
      for (const k of missing) if (!added.includes(k)) added.push(k);
      return true;
    }
    const names = missing.map((k) => `"${k}"`).join(', ');
    leftOut.push(`${what}: segment ${names} does not exist in namespace "${request.target}".`);
    return false;
  };
  if (Array.isArray(flag.rules)) {
    copy.rules = flag.rules.filter((rule, i) => !isObj(rule) || usable(`Rule ${i + 1}`, segmentKeysIn(rule.segment)));
  }
  if (Array.isArray(flag.rollouts)) {
    copy.rollouts = flag.rollouts.filter(
      (rollout, i) =>
        !isObj(rollout) ||
        !isObj(rollout.segment ?? null) ||
        usable(`Rollout ${i + 1}`, segmentKeysIn(rollout.segment)),
    );
  }
  doc.flags = [copy];
  if (added.length) doc.segments = added.map((k) => segmentsByKey.get(k) as Obj);
  return { text: JSON.stringify(doc), segmentsAdded: added, leftOut };
}

function isObj(v: Json | undefined): v is Obj {
  if (v === undefined) return false;
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
