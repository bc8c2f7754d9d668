// Seeds evaluation data through the real management API (HTTP), for the evaluation, OFREP, snapshot
// and real-client tests. Every call must answer 200: a failure names the route and its answer, so a
// broken management route shows up as such rather than as a wrong evaluation.

export interface HttpResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

export type Http = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => Promise<HttpResult>;

/** An Http over fetch, for a listening server. */
export function fetchHttp(baseUrl: string, headers: Record<string, string> = {}): Http {
  return async (method, url, body) => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed };
  };
}

export interface ConstraintSpec {
  type: string;
  property: string;
  operator: string;
  value?: string;
}

export interface SegmentSpec {
  key: string;
  matchType?: 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE';
  constraints?: ConstraintSpec[];
}

export interface RuleSpec {
  segments: string[];
  operator?: 'OR_SEGMENT_OPERATOR' | 'AND_SEGMENT_OPERATOR';
  /** variant key → rollout percentage, in creation order. */
  distributions?: [string, number][];
}

export type RolloutSpec =
  | { threshold: { percentage: number; value: boolean } }
  | { segment: { segments: string[]; operator?: 'OR_SEGMENT_OPERATOR' | 'AND_SEGMENT_OPERATOR'; value: boolean } };

export interface VariantFlagSpec {
  key: string;
  enabled?: boolean;
  variants: { key: string; attachment?: string }[];
  defaultVariant?: string;
  rules?: RuleSpec[];
}

export interface BooleanFlagSpec {
  key: string;
  enabled?: boolean;
  rollouts?: RolloutSpec[];
}

export class Seeder {
  constructor(
    private readonly http: Http,
    readonly namespace = 'default',
  ) {}

  async ok(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<HttpResult['body']> {
    const res = await this.http(method, url, body);
    if (res.status !== 200) {
      throw new Error(`management API: ${method} ${url} answered ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body;
  }

  get #ns(): string {
    return `/api/v1/namespaces/${this.namespace}`;
  }

  async namespaceExists(): Promise<void> {
    if (this.namespace === 'default') return;
    const res = await this.http('GET', this.#ns);
    if (res.status === 404) await this.ok('POST', '/api/v1/namespaces', { key: this.namespace, name: this.namespace });
  }

  async segment(spec: SegmentSpec): Promise<void> {
    await this.ok('POST', `${this.#ns}/segments`, {
      key: spec.key,
      name: spec.key,
      matchType: spec.matchType ?? 'ALL_MATCH_TYPE',
    });
    for (const c of spec.constraints ?? []) {
      await this.ok('POST', `${this.#ns}/segments/${spec.key}/constraints`, { ...c, value: c.value ?? '' });
    }
  }

  async variantFlag(spec: VariantFlagSpec): Promise<void> {
    const enabled = spec.enabled ?? true;
    await this.ok('POST', `${this.#ns}/flags`, { key: spec.key, name: spec.key, enabled, type: 'VARIANT_FLAG_TYPE' });
    const ids = new Map<string, string>();
    for (const v of spec.variants) {
      const created = await this.ok('POST', `${this.#ns}/flags/${spec.key}/variants`, {
        key: v.key,
        name: v.key,
        attachment: v.attachment ?? '',
      });
      ids.set(v.key, created.id);
    }
    if (spec.defaultVariant !== undefined) {
      await this.ok('PUT', `${this.#ns}/flags/${spec.key}`, {
        name: spec.key,
        enabled,
        defaultVariantId: ids.get(spec.defaultVariant),
      });
    }
    let rank = 1;
    for (const r of spec.rules ?? []) {
      const rule = await this.ok('POST', `${this.#ns}/flags/${spec.key}/rules`, {
        segmentKeys: r.segments,
        segmentOperator: r.operator ?? 'OR_SEGMENT_OPERATOR',
        rank: rank++,
      });
      for (const [variant, rollout] of r.distributions ?? []) {
        await this.ok('POST', `${this.#ns}/flags/${spec.key}/rules/${rule.id}/distributions`, {
          variantId: ids.get(variant),
          rollout,
        });
      }
    }
  }

  async booleanFlag(spec: BooleanFlagSpec): Promise<void> {
    await this.ok('POST', `${this.#ns}/flags`, {
      key: spec.key,
      name: spec.key,
      enabled: spec.enabled ?? false,
      type: 'BOOLEAN_FLAG_TYPE',
    });
    let rank = 1;
    for (const r of spec.rollouts ?? []) {
      if ('threshold' in r) {
        await this.ok('POST', `${this.#ns}/flags/${spec.key}/rollouts`, {
          rank: rank++,
          type: 'THRESHOLD_ROLLOUT_TYPE',
          threshold: r.threshold,
        });
      } else {
        await this.ok('POST', `${this.#ns}/flags/${spec.key}/rollouts`, {
          rank: rank++,
          type: 'SEGMENT_ROLLOUT_TYPE',
          segment: {
            segmentKeys: r.segment.segments,
            segmentOperator: r.segment.operator ?? 'OR_SEGMENT_OPERATOR',
            value: r.segment.value,
          },
        });
      }
    }
  }
}

export interface RichOptions {
  /**
   * Distributions that leave part of the buckets uncovered (a 30 % rule, 33.33/33.33/33.34 whose
   * integer widths sum to 999). Flipt's server answers no match there; Flipt's client engine
   * (@flipt-io/flipt-client-js 0.5) scales the rollouts to their sum instead, so the client
   * equivalence test seeds without them. Default true.
   */
  gaps?: boolean;
}

/**
 * A namespace exercising every part of evaluation: all constraint types, ALL/ANY segments, OR/AND
 * rules and rollouts, default variants, disabled flags, rules without distributions, bucket gaps.
 */
export async function seedRichNamespace(seeder: Seeder, options: RichOptions = {}): Promise<void> {
  const gaps = options.gaps ?? true;
  await seeder.namespaceExists();
  const segments: SegmentSpec[] = [
    { key: 'pro', constraints: [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }] },
    { key: 'adults', constraints: [{ type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' }] },
    {
      key: 'eu',
      matchType: 'ANY_MATCH_TYPE',
      constraints: [
        { type: 'STRING_COMPARISON_TYPE', property: 'country', operator: 'isoneof', value: '["de","fr","it"]' },
        { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'eq', value: 'eu' },
      ],
    },
    { key: 'beta', constraints: [{ type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true' }] },
    {
      key: 'recent',
      constraints: [
        { type: 'DATETIME_COMPARISON_TYPE', property: 'signup', operator: 'gt', value: '2024-01-01T00:00:00Z' },
      ],
    },
    {
      key: 'vip',
      constraints: [
        {
          type: 'ENTITY_ID_COMPARISON_TYPE',
          property: 'entityId',
          operator: 'isoneof',
          value: '["user-1","user-7","user-42"]',
        },
      ],
    },
    { key: 'everyone' },
    {
      key: 'staff',
      constraints: [
        { type: 'STRING_COMPARISON_TYPE', property: 'email', operator: 'suffix', value: '@example.com' },
        { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'neq', value: 'free' },
        { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'lt', value: '65' },
      ],
    },
  ];
  for (const s of segments) await seeder.segment(s);

  await seeder.variantFlag({
    key: 'color',
    variants: [{ key: 'red' }, { key: 'green' }, { key: 'blue', attachment: '{"hex":"#00f","dark":true}' }],
    defaultVariant: 'red',
    rules: [
      { segments: ['pro', 'eu'], operator: 'AND_SEGMENT_OPERATOR', distributions: [['blue', 100]] },
      {
        segments: ['adults'],
        distributions: gaps
          ? [
              ['red', 33.33],
              ['green', 33.33],
              ['blue', 33.34],
            ]
          : [
              ['red', 25],
              ['green', 25],
              ['blue', 50],
            ],
      },
      { segments: ['everyone'], distributions: [['green', gaps ? 30 : 100]] },
    ],
  });
  await seeder.variantFlag({
    key: 'size',
    enabled: false,
    variants: [{ key: 's' }, { key: 'l' }],
    defaultVariant: 'l',
  });
  await seeder.variantFlag({ key: 'theme', variants: [{ key: 'light' }, { key: 'dark' }] });
  await seeder.variantFlag({
    key: 'layout',
    variants: [{ key: 'grid', attachment: '{"columns":3}' }, { key: 'list' }],
    rules: [
      { segments: ['beta'] },
      {
        segments: ['vip', 'recent'],
        distributions: [
          ['grid', 50],
          ['list', 50],
        ],
      },
      {
        segments: ['staff', 'eu'],
        distributions: [
          ['list', 0],
          ['grid', gaps ? 60 : 100],
        ],
      },
    ],
  });
  await seeder.booleanFlag({
    key: 'new-ui',
    rollouts: [{ segment: { segments: ['pro'], value: true } }, { threshold: { percentage: 30, value: true } }],
  });
  await seeder.booleanFlag({
    key: 'dark-mode',
    enabled: true,
    rollouts: [
      { segment: { segments: ['adults', 'eu'], operator: 'AND_SEGMENT_OPERATOR', value: false } },
      { threshold: { percentage: 33.3, value: false } },
      { segment: { segments: ['vip', 'staff'], value: true } },
    ],
  });
  await seeder.booleanFlag({ key: 'kill-switch', enabled: true });
}

/**
 * Deterministic, varied contexts: present, missing, unparsable values. `clientCompatible` leaves out
 * the values Flipt's server reads but Flipt's client engine (0.5) cannot: decimal numbers ("18.5":
 * the engine parses integers only) and date-only datetimes ("2024-02-01": RFC 3339 only).
 */
export function contextFor(i: number, clientCompatible = false): Record<string, string> {
  const pick = <T>(options: T[], salt: number): T =>
    options[(i * 7 + salt * 13 + ((i >> 3) % 5)) % options.length] as T;
  const context: Record<string, string> = {};
  const plan = pick(['pro', 'free', 'team', undefined], 1);
  if (plan !== undefined) context.plan = plan;
  const age = pick(['17', '18', '42', '70', 'abc', undefined, clientCompatible ? '-3' : '18.5'], 2);
  if (age !== undefined) context.age = age;
  const country = pick(['de', 'us', 'fr', undefined, 'jp'], 3);
  if (country !== undefined) context.country = country;
  const region = pick(['eu', 'na', undefined], 4);
  if (region !== undefined) context.region = region;
  const beta = pick(['true', 'false', 'yes', undefined], 5);
  if (beta !== undefined) context.beta = beta;
  const signup = pick(
    [
      '2023-06-01T00:00:00Z',
      '2024-03-01T12:00:00Z',
      clientCompatible ? '2024-01-01T00:00:01Z' : '2024-02-01',
      'not-a-date',
      undefined,
    ],
    6,
  );
  if (signup !== undefined) context.signup = signup;
  const email = pick(['a@example.com', 'b@other.org', undefined], 7);
  if (email !== undefined) context.email = email;
  return context;
}

export const RICH_VARIANT_FLAGS = ['color', 'size', 'theme', 'layout'];
export const RICH_BOOLEAN_FLAGS = ['new-ui', 'dark-mode', 'kill-switch'];
