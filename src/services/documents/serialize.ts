// Writing namespaces as Flipt's exporter writes them (document version 1.4), byte for byte: one document
// per namespace with `version` in the first only, fields in the order of Flipt's document structs, empty
// ones left out (a false `value` of a rollout too), rollouts and percentages as float32s, attachments
// and metadata as maps. YAML is yaml.v2's stream (yaml-v2.ts), JSON Go's encoder's lines (go-json.ts).
// The `# exported by …` line and a blank line head the text only when it goes to a file, as Flipt's.

import type { FlagContent, NamespaceContent, SegmentContent } from '../../domain/namespace-content.js';
import { goJsonLines } from './go-json.js';
import { type GoStruct, type GoValue, goFloat32, goValueOfJson } from './go-value.js';
import type { DocumentFormat } from './parse.js';
import { LATEST_DOCUMENT_VERSION } from './validate.js';
import { yamlV2Stream } from './yaml-v2.js';

export interface SerializeOptions {
  format: DocumentFormat;
  /** Flags, segments and variants by key instead of creation order (and namespaces, with allNamespaces). */
  sortByKey?: boolean;
  /** The namespaces are every namespace: with sortByKey they are sorted by key too (a list given keeps its order). */
  allNamespaces?: boolean;
  /** The program and version named in the header line, e.g. "Vexil (v0.1.0)"; no header without it. */
  header?: string;
  now?: Date;
}

// Flipt sorts with strings.Compare: byte order, which is UTF-16 order for the keys Flipt allows.
const byKey = <T extends { key: string }>(a: T, b: T): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function attachmentValue(text: string): GoValue | undefined {
  if (!text) return undefined;
  const value = goValueOfJson(JSON.parse(text));
  return value === null ? undefined : value;
}

function flagDocument(flag: FlagContent, sortByKey: boolean): GoStruct {
  const out: GoStruct = { key: flag.key, name: flag.name, type: flag.type };
  if (flag.description) out.description = flag.description;
  out.enabled = flag.enabled;
  if (flag.metadata && Object.keys(flag.metadata).length) out.metadata = goValueOfJson(flag.metadata);
  const variants = sortByKey ? [...flag.variants].sort(byKey) : flag.variants;
  if (variants.length) {
    out.variants = variants.map((v) => {
      const variant: GoStruct = {};
      if (flag.defaultVariantKey === v.key) variant.default = true;
      variant.key = v.key;
      if (v.name) variant.name = v.name;
      if (v.description) variant.description = v.description;
      const attachment = attachmentValue(v.attachment);
      if (attachment !== undefined) variant.attachment = attachment;
      return variant;
    });
  }
  if (flag.rules.length) {
    out.rules = flag.rules.map((r) => {
      const rule: GoStruct = {
        segment:
          r.segmentKeys.length === 1
            ? (r.segmentKeys[0] as string)
            : { keys: r.segmentKeys, operator: r.segmentOperator },
      };
      if (r.distributions.length) {
        rule.distributions = r.distributions.map((d) => ({ variant: d.variantKey, rollout: goFloat32(d.rollout) }));
      }
      return rule;
    });
  }
  if (flag.rollouts.length) {
    out.rollouts = flag.rollouts.map((r) => {
      const rollout: GoStruct = {};
      if (r.description) rollout.description = r.description;
      if (r.segment) {
        const s = r.segment;
        const segment: GoStruct = {};
        if (s.segmentKeys.length === 1) segment.key = s.segmentKeys[0] as string;
        else segment.keys = s.segmentKeys;
        if (s.segmentOperator === 'AND_SEGMENT_OPERATOR') segment.operator = s.segmentOperator;
        if (s.value) segment.value = true;
        rollout.segment = segment;
      } else if (r.threshold) {
        const threshold: GoStruct = { percentage: goFloat32(r.threshold.percentage) };
        if (r.threshold.value) threshold.value = true;
        rollout.threshold = threshold;
      }
      return rollout;
    });
  }
  return out;
}

function segmentDocument(segment: SegmentContent): GoStruct {
  const out: GoStruct = { key: segment.key, name: segment.name };
  if (segment.description) out.description = segment.description;
  if (segment.constraints.length) {
    out.constraints = segment.constraints.map((c) => {
      const constraint: GoStruct = { type: c.type, property: c.property, operator: c.operator };
      if (c.value) constraint.value = c.value;
      if (c.description) constraint.description = c.description;
      return constraint;
    });
  }
  out.match_type = segment.matchType;
  return out;
}

/** One namespace as Flipt's exporter builds its document; `version` only for the first of a stream. */
export function namespaceDocument(content: NamespaceContent, sortByKey = false, first = true): GoStruct {
  const doc: GoStruct = {};
  if (first) doc.version = LATEST_DOCUMENT_VERSION;
  const namespace: GoStruct = { key: content.namespace.key };
  if (content.namespace.name) namespace.name = content.namespace.name;
  if (content.namespace.description) namespace.description = content.namespace.description;
  doc.namespace = namespace;
  const flags = sortByKey ? [...content.flags].sort(byKey) : content.flags;
  const segments = sortByKey ? [...content.segments].sort(byKey) : content.segments;
  if (flags.length) doc.flags = flags.map((f) => flagDocument(f, sortByKey));
  if (segments.length) doc.segments = segments.map(segmentDocument);
  return doc;
}

/** Flipt's header of an export written to a file: the line, then a blank line. */
export function headerLines(producer: string, now: Date = new Date()): string {
  return `# exported by ${producer} on ${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n\n`;
}

/** The whole export: the header (for a file), then each namespace's document. */
export function serializeNamespaces(contents: NamespaceContent[], options: SerializeOptions): string {
  const sortByKey = options.sortByKey ?? false;
  const ordered =
    options.allNamespaces && sortByKey ? [...contents].sort((a, b) => byKey(a.namespace, b.namespace)) : contents;
  const docs = ordered.map((c, i) => namespaceDocument(c, sortByKey, i === 0));
  const body = options.format === 'json' ? goJsonLines(docs) : yamlV2Stream(docs);
  return options.header === undefined ? body : headerLines(options.header, options.now) + body;
}
