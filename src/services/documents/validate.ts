// Checking one parsed document against Flipt's format, versions 1.0 to 1.4, and turning it into
// NamespaceContent. The management API's own checks are reused (key format, attachment JSON and size,
// constraint operators and values, rollout ranges), so an import accepts what the API accepts; beyond
// them an import refuses what can only be a mistake in a file: a key given twice, a distribution naming
// no variant of its flag, distributions over 100 %, a rollout with both a segment and a threshold.
// References to segments are checked by the import itself (a segment may already be in the database).

import { DomainError } from '../../domain/errors.js';
import type {
  ConstraintContent,
  FlagContent,
  NamespaceContent,
  RolloutContent,
  RuleContent,
  SegmentContent,
  VariantContent,
} from '../../domain/namespace-content.js';
import {
  COMPARISON_TYPES,
  type ComparisonType,
  DEFAULT_NAMESPACE,
  FLAG_TYPES,
  type FlagType,
  MATCH_TYPES,
  type MatchType,
  SEGMENT_OPERATORS,
  type SegmentOperator,
} from '../../domain/types.js';
import { validateConstraint } from '../../evaluation/constraint-validation.js';
import { requireMetadataSize } from '../flags.js';
import { requireKey, requireMaxLength } from '../validation.js';
import { normalizeAttachment } from '../variants.js';
import { DocumentError, keyed } from './errors.js';
import type { DocumentFormat, RawDocument } from './parse.js';

export const DOCUMENT_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4'] as const;
export type DocumentVersion = (typeof DOCUMENT_VERSIONS)[number];
export const LATEST_DOCUMENT_VERSION: DocumentVersion = '1.4';

/** A document checked and read: its version, whether it named a namespace, and its content. */
export interface ParsedDocument {
  source: string;
  index: number;
  version: DocumentVersion;
  content: NamespaceContent;
  /** Whether the namespace's name or description were given (1.4's object form). */
  namespaceDetails: boolean;
}

type Json = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** Reads the fields of one document; every failure names the path. */
class Reader {
  constructor(
    readonly source: string,
    readonly index: number,
    readonly format: DocumentFormat,
    public version: DocumentVersion,
  ) {}

  fail(path: string, reason: string): never {
    throw new DocumentError(this.source, this.index, path, reason);
  }

  /** Runs a check of the management API, reporting its error at `path`. */
  check<T>(path: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof DomainError && !(err instanceof DocumentError))
        this.fail(path, err.message.replace(/^invalid field [^:]+: /, ''));
      throw err;
    }
  }

  since(path: string, version: DocumentVersion): void {
    if (this.version < version)
      this.fail(path, `is supported from version ${version}, this document is ${this.version}`);
  }

  object(value: unknown, path: string): Json {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, `must be an object, not ${describe(value)}`);
    }
    return value as Json;
  }

  list(o: Json, key: string, path: string): unknown[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(`${path}${key}`, `must be a list, not ${describe(v)}`);
    return v;
  }

  /** A string field; in YAML a plain number or boolean reads as its text (as Flipt's YAML decoder does). */
  string(o: Json, key: string, path: string): string {
    const v = o[key];
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (this.format === 'yaml' && (typeof v === 'number' || typeof v === 'boolean')) return String(v);
    return this.fail(`${path}${key}`, `must be a string, not ${describe(v)}`);
  }

  required(o: Json, key: string, path: string): string {
    const v = this.string(o, key, path);
    if (v === '') this.fail(`${path}${key}`, 'must not be empty');
    return v;
  }

  boolean(o: Json, key: string, path: string): boolean {
    const v = o[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(`${path}${key}`, `must be true or false, not ${describe(v)}`);
    return v;
  }

  number(o: Json, key: string, path: string): number {
    const v = o[key];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isFinite(v))
      this.fail(`${path}${key}`, `must be a number, not ${describe(v)}`);
    return v;
  }

  oneOf<T extends string>(o: Json, key: string, path: string, allowed: readonly T[], fallback: T): T {
    const v = this.string(o, key, path);
    if (v === '') return fallback;
    if (!(allowed as readonly string[]).includes(v)) {
      this.fail(`${path}${key}`, `unknown value "${v}" (one of ${allowed.join(', ')})`);
    }
    return v as T;
  }
}

function readVersion(value: unknown, fallback: DocumentVersion, r: Reader): DocumentVersion {
  if (value === undefined || value === null || value === '') return fallback;
  const text = typeof value === 'number' ? value.toFixed(1) : typeof value === 'string' ? value : undefined;
  if (text === undefined) return r.fail('version', `must be a string, not ${describe(value)}`);
  // As semver's tolerant parse reads them: "1" is 1.0, "1.2.0" is 1.2.
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.0)?$/.exec(text.trim());
  const normalized = m ? `${m[1]}.${m[2] ?? '0'}` : text;
  if (!(DOCUMENT_VERSIONS as readonly string[]).includes(normalized)) {
    r.fail('version', `unsupported version "${text}" (supported: ${DOCUMENT_VERSIONS.join(', ')})`);
  }
  return normalized as DocumentVersion;
}

function readVariant(r: Reader, value: unknown, indexPath: string): VariantContent & { isDefault: boolean } {
  const o = r.object(value, indexPath);
  const path = keyed(indexPath, o.key);
  const key = r.required(o, 'key', `${path}.`);
  r.check(`${path}.key`, () => requireMaxLength('key', key));
  const name = r.string(o, 'name', `${path}.`);
  r.check(`${path}.name`, () => requireMaxLength('name', name));
  const isDefault = r.boolean(o, 'default', `${path}.`);
  if (o.default !== undefined) r.since(`${path}.default`, '1.3');
  let attachment = '';
  if (o.attachment !== undefined && o.attachment !== null) {
    // A native value, stored as its JSON (a string stays a JSON string, as in Flipt).
    const json = JSON.stringify(o.attachment);
    attachment = r.check(`${path}.attachment`, () => normalizeAttachment(json));
  }
  return { key, name, description: r.string(o, 'description', `${path}.`), attachment, isDefault };
}

function readSegmentKeys(
  r: Reader,
  value: unknown,
  path: string,
): { segmentKeys: string[]; segmentOperator: SegmentOperator } {
  if (typeof value === 'string') {
    if (value === '') r.fail(path, 'must not be empty');
    return { segmentKeys: [value], segmentOperator: 'OR_SEGMENT_OPERATOR' };
  }
  const o = r.object(value, path);
  r.since(`${path}.keys`, '1.2');
  const keys = r.list(o, 'keys', `${path}.`).map((k, i) => {
    if (typeof k !== 'string' || k === '') r.fail(`${path}.keys[${i}]`, 'must be a segment key');
    return k;
  });
  if (keys.length === 0) r.fail(`${path}.keys`, 'must not be empty');
  const unique = [...new Set(keys)];
  const operator = r.oneOf(o, 'operator', `${path}.`, SEGMENT_OPERATORS, 'OR_SEGMENT_OPERATOR');
  return { segmentKeys: unique, segmentOperator: unique.length === 1 ? 'OR_SEGMENT_OPERATOR' : operator };
}

function readRule(
  r: Reader,
  value: unknown,
  path: string,
  position: number,
  variants: Set<string>,
  flagKey: string,
): RuleContent {
  const o = r.object(value, path);
  if (o.segment === undefined || o.segment === null) r.fail(`${path}.segment`, 'must not be empty');
  const { segmentKeys, segmentOperator } = readSegmentKeys(r, o.segment, `${path}.segment`);
  let rank = r.number(o, 'rank', `${path}.`);
  if (rank === 0) {
    if (r.version < '1.1') r.fail(`${path}.rank`, 'must be greater than 0 (implicit ranks arrive in version 1.1)');
    rank = position + 1;
  }
  if (!Number.isInteger(rank) || rank < 1) r.fail(`${path}.rank`, 'must be a whole number greater than 0');
  let sum = 0;
  const distributions = r.list(o, 'distributions', `${path}.`).map((d, k) => {
    const dp = `${path}.distributions[${k}]`;
    const dist = r.object(d, dp);
    const variantKey = r.required(dist, 'variant', `${dp}.`);
    if (!variants.has(variantKey)) r.fail(dp, `variant "${variantKey}" not found for flag "${flagKey}"`);
    const rollout = r.number(dist, 'rollout', `${dp}.`);
    if (rollout < 0 || rollout > 100) r.fail(`${dp}.rollout`, 'must be within range [0, 100]');
    sum += rollout;
    return { variantKey, rollout };
  });
  // A float32 sum of e.g. 33.33 three times is a little over 99.99; allow for rounding.
  if (sum > 100.0001) r.fail(`${path}.distributions`, `rollouts add up to ${sum}, more than 100`);
  return { rank, segmentKeys, segmentOperator, distributions };
}

function readRollout(r: Reader, value: unknown, path: string, position: number): RolloutContent {
  const o = r.object(value, path);
  const description = r.string(o, 'description', `${path}.`);
  const hasSegment = o.segment !== undefined && o.segment !== null;
  const hasThreshold = o.threshold !== undefined && o.threshold !== null;
  if (hasSegment && hasThreshold) r.fail(path, 'cannot have both segment and threshold');
  if (!hasSegment && !hasThreshold) r.fail(path, 'needs a segment or a threshold');
  const rank = position + 1;
  if (hasThreshold) {
    const t = r.object(o.threshold, `${path}.threshold`);
    const percentage = r.number(t, 'percentage', `${path}.threshold.`);
    if (percentage < 0 || percentage > 100) r.fail(`${path}.threshold.percentage`, 'must be within range [0, 100]');
    return { rank, description, threshold: { percentage, value: r.boolean(t, 'value', `${path}.threshold.`) } };
  }
  const s = r.object(o.segment, `${path}.segment`);
  const key = r.string(s, 'key', `${path}.segment.`);
  const keys = s.keys;
  if (key !== '' && keys !== undefined && keys !== null) r.fail(`${path}.segment`, 'cannot have both key and keys');
  let segmentKeys: string[];
  let operator: SegmentOperator = 'OR_SEGMENT_OPERATOR';
  if (key !== '') segmentKeys = [key];
  else {
    r.since(`${path}.segment.keys`, '1.2');
    segmentKeys = [
      ...new Set(
        r.list(s, 'keys', `${path}.segment.`).map((k, i) => {
          if (typeof k !== 'string' || k === '') r.fail(`${path}.segment.keys[${i}]`, 'must be a segment key');
          return k;
        }),
      ),
    ];
    if (segmentKeys.length === 0) r.fail(`${path}.segment`, 'needs key or keys');
    operator = r.oneOf(s, 'operator', `${path}.segment.`, SEGMENT_OPERATORS, 'OR_SEGMENT_OPERATOR');
  }
  return {
    rank,
    description,
    segment: {
      segmentKeys,
      segmentOperator: segmentKeys.length === 1 ? 'OR_SEGMENT_OPERATOR' : operator,
      value: r.boolean(s, 'value', `${path}.segment.`),
    },
  };
}

function readFlag(r: Reader, value: unknown, indexPath: string): FlagContent {
  const o = r.object(value, indexPath);
  const path = keyed(indexPath, o.key);
  const key = r.check(`${path}.key`, () => requireKey('key', r.string(o, 'key', `${path}.`)));
  const name = r.required(o, 'name', `${path}.`);
  r.check(`${path}.name`, () => requireMaxLength('name', name));
  let type: FlagType = 'VARIANT_FLAG_TYPE';
  if (o.type !== undefined && o.type !== null && o.type !== '') {
    r.since(`${path}.type`, '1.1');
    type = r.oneOf(o, 'type', `${path}.`, FLAG_TYPES, 'VARIANT_FLAG_TYPE');
  }
  let metadata: Record<string, unknown> | undefined;
  if (o.metadata !== undefined && o.metadata !== null) {
    r.since(`${path}.metadata`, '1.3');
    metadata = r.object(o.metadata, `${path}.metadata`);
    if (Object.keys(metadata).length === 0) metadata = undefined;
    else r.check(`${path}.metadata`, () => requireMetadataSize(metadata));
  }
  const variants: VariantContent[] = [];
  const seen = new Set<string>();
  let defaultVariantKey: string | undefined;
  r.list(o, 'variants', `${path}.`).forEach((v, i) => {
    const { isDefault, ...variant } = readVariant(r, v, `${path}.variants[${i}]`);
    if (seen.has(variant.key))
      r.fail(`${keyed(`${path}.variants[${i}]`, variant.key)}.key`, `variant "${variant.key}" is given twice`);
    seen.add(variant.key);
    variants.push(variant);
    // The last variant marked default wins, as in Flipt.
    if (isDefault) defaultVariantKey = variant.key;
  });
  const rules = r.list(o, 'rules', `${path}.`).map((x, i) => readRule(r, x, `${path}.rules[${i}]`, i, seen, key));
  const rolloutList = r.list(o, 'rollouts', `${path}.`);
  if (rolloutList.length > 0) r.since(`${path}.rollouts`, '1.1');
  const rollouts = rolloutList.map((x, i) => readRollout(r, x, `${path}.rollouts[${i}]`, i));
  return {
    key,
    name,
    description: r.string(o, 'description', `${path}.`),
    enabled: r.boolean(o, 'enabled', `${path}.`),
    type,
    ...(metadata ? { metadata } : {}),
    variants,
    ...(defaultVariantKey !== undefined ? { defaultVariantKey } : {}),
    rules,
    rollouts,
  };
}

function readConstraint(r: Reader, value: unknown, path: string, segmentKey: string): ConstraintContent {
  const o = r.object(value, path);
  const typeName = r.string(o, 'type', `${path}.`);
  if (!(COMPARISON_TYPES as readonly string[]).includes(typeName) || typeName === 'UNKNOWN_COMPARISON_TYPE') {
    r.fail(`${path}.type`, `unknown comparison type "${typeName}"`);
  }
  const type = typeName as ComparisonType;
  const property = r.string(o, 'property', `${path}.`);
  const { operator, value: normalized } = r.check(path, () =>
    validateConstraint({
      segmentKey,
      type,
      property,
      operator: r.string(o, 'operator', `${path}.`),
      value: r.string(o, 'value', `${path}.`),
    }),
  );
  r.check(`${path}.property`, () => requireMaxLength('property', property));
  return { type, property, operator, value: normalized, description: r.string(o, 'description', `${path}.`) };
}

function readSegment(r: Reader, value: unknown, indexPath: string): SegmentContent {
  const o = r.object(value, indexPath);
  const path = keyed(indexPath, o.key);
  const key = r.check(`${path}.key`, () => requireKey('key', r.string(o, 'key', `${path}.`)));
  const name = r.required(o, 'name', `${path}.`);
  r.check(`${path}.name`, () => requireMaxLength('name', name));
  const matchType: MatchType = r.oneOf(o, 'match_type', `${path}.`, MATCH_TYPES, 'ALL_MATCH_TYPE');
  return {
    key,
    name,
    description: r.string(o, 'description', `${path}.`),
    matchType,
    constraints: r
      .list(o, 'constraints', `${path}.`)
      .map((c, i) => readConstraint(r, c, `${path}.constraints[${i}]`, key)),
  };
}

/**
 * Checks one document and reads its content. `fallbackVersion` is the version of a document that
 * names none: the first document's, or the latest.
 */
export function readDocument(
  raw: RawDocument,
  source: string,
  format: DocumentFormat,
  fallbackVersion: DocumentVersion = LATEST_DOCUMENT_VERSION,
): ParsedDocument {
  const r = new Reader(source, raw.index, format, fallbackVersion);
  const o = r.object(raw.value, '(document)');
  r.version = readVersion(o.version, fallbackVersion, r);

  let namespace = { key: DEFAULT_NAMESPACE, name: '', description: '' };
  let namespaceDetails = false;
  const ns = o.namespace;
  if (typeof ns === 'string' && ns !== '') namespace = { key: ns, name: ns, description: '' };
  else if (typeof ns === 'object' && ns !== null && !Array.isArray(ns)) {
    r.since('namespace', '1.4');
    const n = ns as Json;
    const key = r.string(n, 'key', 'namespace.') || DEFAULT_NAMESPACE;
    namespace = {
      key,
      name: r.string(n, 'name', 'namespace.') || key,
      description: r.string(n, 'description', 'namespace.'),
    };
    namespaceDetails = true;
  } else if (ns !== undefined && ns !== null && ns !== '')
    r.fail('namespace', `must be a key or an object, not ${describe(ns)}`);
  r.check('namespace', () => requireKey('key', namespace.key));
  if (namespace.name === '') namespace.name = namespace.key;

  const flags = r.list(o, 'flags', '').map((f, i) => readFlag(r, f, `flags[${i}]`));
  const segments = r.list(o, 'segments', '').map((s, i) => readSegment(r, s, `segments[${i}]`));
  const flagIndex = new Map<string, number>();
  flags.forEach((f, i) => {
    const first = flagIndex.get(f.key);
    if (first !== undefined)
      r.fail(`${keyed(`flags[${i}]`, f.key)}.key`, `flag "${f.key}" is given twice (also flags[${first}])`);
    flagIndex.set(f.key, i);
  });
  const segmentIndex = new Map<string, number>();
  segments.forEach((s, i) => {
    const first = segmentIndex.get(s.key);
    if (first !== undefined)
      r.fail(`${keyed(`segments[${i}]`, s.key)}.key`, `segment "${s.key}" is given twice (also segments[${first}])`);
    segmentIndex.set(s.key, i);
  });
  return { source, index: raw.index, version: r.version, content: { namespace, flags, segments }, namespaceDetails };
}

/** Reads every document of a source; a document without a version takes the first one's. */
export function readDocuments(raws: RawDocument[], source: string, format: DocumentFormat): ParsedDocument[] {
  const out: ParsedDocument[] = [];
  for (const raw of raws) out.push(readDocument(raw, source, format, out[0]?.version ?? LATEST_DOCUMENT_VERSION));
  return out;
}
