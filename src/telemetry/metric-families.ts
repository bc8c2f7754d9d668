// The metric families Metrics records into (metrics.ts): counters, gauges and histograms in the shape
// prom-client's Registry renders (name, help, type, get()), with their series found through nested maps
// of label values (SeriesIndex).

type Labels = Record<string, string>;

/**
 * Series of one metric found through nested maps of label values, so recording into a series that
 * exists allocates nothing (prom-client's own metrics hash a label object on every call, which costs
 * about a microsecond: too much for the evaluation hot path). `depth` label values select a series.
 */
export class SeriesIndex<S> {
  readonly #root = new Map<string, unknown>();
  constructor(
    private readonly depth: number,
    private readonly create: (values: string[]) => S,
  ) {}

  get(a: string, b = '', c = '', d = '', e = ''): S {
    let node = this.#root;
    for (let level = 0; level < this.depth - 1; level++) {
      const key = level === 0 ? a : level === 1 ? b : level === 2 ? c : d;
      let next = node.get(key) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
    const last = this.depth === 1 ? a : this.depth === 2 ? b : this.depth === 3 ? c : this.depth === 4 ? d : e;
    let series = node.get(last) as S | undefined;
    if (series === undefined) {
      series = this.create([a, b, c, d, e].slice(0, this.depth));
      node.set(last, series);
    }
    return series;
  }
}

export interface CounterSeries {
  readonly labels: Labels;
  value: number;
}

export interface HistogramSeries {
  readonly labels: Labels;
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A Prometheus counter in the shape prom-client's Registry renders (name, help, type, get()). */
export class CounterFamily {
  readonly type: string = 'counter';
  readonly #series: CounterSeries[] = [];
  readonly index: SeriesIndex<CounterSeries>;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    this.index = new SeriesIndex(Math.max(labelNames.length, 1), (values) => {
      const labels: Labels = {};
      labelNames.forEach((n, i) => {
        labels[n] = values[i] as string;
      });
      const series = { labels, value: 0 };
      this.#series.push(series);
      return series;
    });
  }

  get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: 'sum' as const,
      values: this.#series.map((s) => ({ labels: s.labels, value: s.value })),
    };
  }
}

/** A Prometheus gauge in the shape prom-client's Registry renders: a value per label set, set not added. */
export class GaugeFamily extends CounterFamily {
  override readonly type = 'gauge';
}

/** A Prometheus histogram in the shape prom-client's Registry renders. */
export class HistogramFamily {
  readonly type = 'histogram';
  readonly #series: HistogramSeries[] = [];
  readonly index: SeriesIndex<HistogramSeries>;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    this.index = new SeriesIndex(Math.max(labelNames.length, 1), (values) => {
      const labels: Labels = {};
      labelNames.forEach((n, i) => {
        labels[n] = values[i] as string;
      });
      const series = { labels, counts: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
      this.#series.push(series);
      return series;
    });
  }

  observe(series: HistogramSeries, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    (series.counts as Float64Array)[i] = (series.counts[i] as number) + 1;
    series.sum += value;
    series.count += 1;
  }

  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.#series) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum' as const, values };
  }
}
