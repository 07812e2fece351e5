// Prometheus metrics in the text exposition format 0.0.4, for the processes with a 50 MB budget
// (deviceShifu). prom-client costs such a process about 5 MB of RSS (it loads cluster, v8,
// perf_hooks and zlib at import); counters, histograms and a few process gauges are all deviceShifu
// exposes, and they fit in this file. The names, label order and format follow prom-client, so a
// scrape reads the same (test/shared/prometheus.test.ts compares the two). One registry per instance, no global state.
// not an ESM import: node:fs's namespace loads fs/promises and what it brings (shared/files.ts)
const { readdirSync } = process.getBuiltinModule('node:fs');

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels<L extends string> = Partial<Readonly<Record<L, string | number>>>;

interface Exposable {
  readonly name: string;
  /** The metric's lines (HELP, TYPE, samples), each sample carrying `extra` labels after its own. */
  expose(extra: string): string;
}

/** `a\"b` for a label value: backslash, double quote and line feed escaped (exposition format). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

type Pairs = ReadonlyArray<readonly [string, string]>;

function pairText(pairs: Pairs): string {
  return pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',');
}

/** `{a="x",b="y"}` from the given parts (already rendered pairs), or '' when all are empty. */
function braces(...parts: readonly string[]): string {
  const all = parts.filter((s) => s !== '').join(',');
  return all === '' ? '' : `{${all}}`;
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
}

export class Registry {
  readonly contentType = CONTENT_TYPE;
  private readonly exposables: Exposable[] = [];
  private defaults = '';

  /** Labels added to every sample, after the metric's own (prom-client's setDefaultLabels). */
  setDefaultLabels(labels: Readonly<Record<string, string>>): void {
    this.defaults = pairText(Object.entries(labels));
  }

  register(metric: Exposable): void {
    if (this.exposables.some((m) => m.name === metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.exposables.push(metric);
  }

  /** The whole scrape. */
  metrics(): string {
    return this.exposables.map((m) => m.expose(this.defaults)).join('\n');
  }
}

interface MetricOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
  readonly registers?: readonly Registry[];
}

/** One labelled series per distinct label set, in first-seen order. */
abstract class Metric<L extends string, S> implements Exposable {
  readonly name: string;
  protected readonly help: string;
  private readonly labelNames: readonly L[];
  private readonly series = new Map<string, { readonly labels: Pairs; readonly state: S }>();
  private last: { readonly values: readonly unknown[]; readonly state: S } | undefined;

  constructor(options: MetricOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    for (const registry of options.registers ?? []) registry.register(this);
  }

  abstract expose(extra: string): string;

  protected abstract fresh(): S;

  /** Every series; a metric without labels has its one series from the start, at zero (as prom-client). */
  protected all(): Array<{ readonly labels: Pairs; readonly state: S }> {
    if (this.labelNames.length === 0 && this.series.size === 0) this.seriesOf({});
    return [...this.series.values()];
  }

  protected seriesOf(labels: Labels<L>): S {
    // a request path counts the same series over and over: the last one is found without a key
    const last = this.last;
    if (last !== undefined && this.sameValues(labels, last.values)) return last.state;
    // the key from the label values in labelNames order: no allocation but the string on a hit
    let key = '';
    for (const name of this.labelNames) key += `${labels[name] ?? '\u0001'}\u0000`;
    const found = this.series.get(key);
    if (found !== undefined) {
      this.last = { values: this.labelNames.map((n) => labels[n]), state: found.state };
      return found.state;
    }
    for (const name of Object.keys(labels)) {
      if (!(this.labelNames as readonly string[]).includes(name)) throw new Error(`metric ${this.name} has no label ${name}`);
    }
    const pairs = this.labelNames.filter((n) => labels[n] !== undefined).map((n) => [n, String(labels[n])] as const);
    const entry = { labels: pairs, state: this.fresh() };
    this.series.set(key, entry);
    this.last = { values: this.labelNames.map((n) => labels[n]), state: entry.state };
    return entry.state;
  }

  private sameValues(labels: Labels<L>, values: readonly unknown[]): boolean {
    const names = this.labelNames;
    for (let i = 0; i < names.length; i += 1) if (labels[names[i] as L] !== values[i]) return false;
    return true;
  }
}

export class Counter<L extends string = string> extends Metric<L, { value: number }> {
  inc(labels: Labels<L> = {}, by = 1): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot decrease`);
    this.seriesOf(labels).value += by;
  }

  expose(extra: string): string {
    const samples = this.all().map((s) => `${this.name}${braces(pairText(s.labels), extra)} ${s.state.value}\n`);
    return header(this.name, this.help, 'counter') + samples.join('');
  }

  protected fresh(): { value: number } {
    return { value: 0 };
  }
}

/** A value set by the code (prom-client's Gauge without collect). */
export class Gauge<L extends string = string> extends Metric<L, { value: number }> {
  set(labels: Labels<L>, value: number): void {
    this.seriesOf(labels).value = value;
  }

  expose(extra: string): string {
    const samples = this.all().map((s) => `${this.name}${braces(pairText(s.labels), extra)} ${s.state.value}\n`);
    return header(this.name, this.help, 'gauge') + samples.join('');
  }

  protected fresh(): { value: number } {
    return { value: 0 };
  }
}

interface HistogramState { readonly counts: number[]; sum: number; count: number }

export class Histogram<L extends string = string> extends Metric<L, HistogramState> {
  private readonly buckets: readonly number[];

  constructor(options: MetricOptions<L> & { readonly buckets: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels<L>, value: number): void {
    const state = this.seriesOf(labels);
    const index = this.buckets.findIndex((b) => value <= b);
    if (index >= 0) state.counts[index] = (state.counts[index] ?? 0) + 1;
    state.sum += value;
    state.count += 1;
  }

  /** prom-client's order for histograms: `le`, then the default labels, then the metric's own. */
  expose(extra: string): string {
    const lines: string[] = [];
    for (const { labels, state } of this.all()) {
      const own = pairText(labels);
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += state.counts[i] ?? 0;
        lines.push(`${this.name}_bucket${braces(`le="${String(bound)}"`, extra, own)} ${cumulative}\n`);
      });
      lines.push(`${this.name}_bucket${braces('le="+Inf"', extra, own)} ${state.count}\n`);
      lines.push(`${this.name}_sum${braces(extra, own)} ${state.sum}\n`, `${this.name}_count${braces(extra, own)} ${state.count}\n`);
    }
    return header(this.name, this.help, 'histogram') + lines.join('');
  }

  protected fresh(): HistogramState {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
}

/** A value read at scrape time (prom-client's Gauge with collect). */
export class CollectedGauge implements Exposable {
  readonly name: string;
  private readonly help: string;
  private readonly type: 'gauge' | 'counter';
  private readonly read: () => number | undefined;

  constructor(options: { name: string; help: string; read: () => number | undefined; type?: 'gauge' | 'counter'; registers?: readonly Registry[] }) {
    this.name = options.name;
    this.help = options.help;
    this.type = options.type ?? 'gauge';
    this.read = options.read;
    for (const registry of options.registers ?? []) registry.register(this);
  }

  expose(extra: string): string {
    const value = this.read();
    return header(this.name, this.help, this.type) + (value === undefined ? '' : `${this.name}${braces(extra)} ${value}\n`);
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

/** The process metrics prom-client's collectDefaultMetrics names most dashboards use, under `prefix`. */
export function registerProcessMetrics(registry: Registry, prefix: string): void {
  const registers = [registry];
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  const cpu = (part: 'user' | 'system' | 'both') => (): number => {
    const usage = process.cpuUsage();
    const micros = part === 'user' ? usage.user : part === 'system' ? usage.system : usage.user + usage.system;
    return micros / 1e6;
  };
  new CollectedGauge({ name: `${prefix}process_cpu_user_seconds_total`, help: 'Total user CPU time spent in seconds.', type: 'counter', read: cpu('user'), registers });
  new CollectedGauge({ name: `${prefix}process_cpu_system_seconds_total`, help: 'Total system CPU time spent in seconds.', type: 'counter', read: cpu('system'), registers });
  new CollectedGauge({ name: `${prefix}process_cpu_seconds_total`, help: 'Total user and system CPU time spent in seconds.', type: 'counter', read: cpu('both'), registers });
  new CollectedGauge({ name: `${prefix}process_start_time_seconds`, help: 'Start time of the process since unix epoch in seconds.', read: () => startSeconds, registers });
  new CollectedGauge({ name: `${prefix}process_resident_memory_bytes`, help: 'Resident memory size in bytes.', read: () => process.memoryUsage.rss(), registers });
  new CollectedGauge({ name: `${prefix}process_open_fds`, help: 'Number of open file descriptors.', read: openFds, registers });
  new CollectedGauge({ name: `${prefix}nodejs_heap_size_total_bytes`, help: 'Process heap size from Node.js in bytes.', read: () => process.memoryUsage().heapTotal, registers });
  new CollectedGauge({ name: `${prefix}nodejs_heap_size_used_bytes`, help: 'Process heap size used from Node.js in bytes.', read: () => process.memoryUsage().heapUsed, registers });
  new CollectedGauge({ name: `${prefix}nodejs_external_memory_bytes`, help: 'Node.js external memory size in bytes.', read: () => process.memoryUsage().external, registers });
}
