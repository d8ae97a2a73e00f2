// One Prometheus registry per process and get-or-create helpers, so any package can add its metrics (prom-client).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

let processMetrics = false;

/** CPU, memory, event-loop lag, GC and handles (prom-client's defaults), once per process. */
export function enableProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

function existing<T>(name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}

/** A counter; asking twice for the same name gives the same counter (modules may load in any order). */
export function counter<L extends string = string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return existing<Counter<L>>(name) ?? new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string = string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  buckets?: number[],
): Histogram<L> {
  return existing<Histogram<L>>(name) ?? new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
}

export type GaugeReading<L extends string> = number | Array<{ labels: Partial<Record<L, string>>; value: number }>;

/**
 * A gauge read at scrape time: `read` returns one value, or values per label set. A failing read (database away)
 * leaves the gauge empty for that scrape instead of failing the whole scrape. Registering a name again replaces
 * the reader (the latest host wins, e.g. a test starting a second service in one process).
 */
export function gaugeFrom<L extends string = string>(
  name: string,
  help: string,
  read: () => Promise<GaugeReading<L>> | GaugeReading<L>,
  labelNames: readonly L[] = [],
): Gauge<L> {
  if (existing(name)) registry.removeSingleMetric(name);
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const value = await read();
        if (typeof value === 'number') this.set(value);
        else for (const v of value) this.set(v.labels as never, v.value);
      } catch {
        // Scrapes must not fail because one source is unavailable.
      }
    },
  });
}

/** What a cache reports: the platform's read cache implements `stats()` with this shape. */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries held now, when known. */
  size?: number;
}

/** Exposes a cache's running totals as `cp_cache_hits_total{cache}`, `cp_cache_misses_total{cache}`, `cp_cache_entries{cache}`. */
export function registerCacheStats(cache: string, stats: () => CacheStats): void {
  cacheSources().set(cache, stats);
}

let caches: Map<string, () => CacheStats> | undefined;
function cacheSources(): Map<string, () => CacheStats> {
  if (caches) return caches;
  const sources = (caches = new Map<string, () => CacheStats>());
  const values = (pick: (s: CacheStats) => number | undefined) =>
    [...sources].flatMap(([cache, stats]) => {
      const value = pick(stats());
      return value === undefined ? [] : [{ cache, value }];
    });
  // The cache keeps its own running totals; the counters mirror them at scrape time.
  for (const [name, help, pick] of [
    ['cp_cache_hits_total', 'Cache hits.', (s: CacheStats) => s.hits],
    ['cp_cache_misses_total', 'Cache misses.', (s: CacheStats) => s.misses],
  ] as const) {
    if (existing(name)) registry.removeSingleMetric(name);
    new Counter({
      name,
      help,
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { cache, value } of values(pick)) this.inc({ cache }, value);
      },
    });
  }
  gaugeFrom(
    'cp_cache_entries',
    'Entries held by the cache.',
    () => values((s) => s.size).map(({ cache, value }) => ({ labels: { cache }, value })),
    ['cache'],
  );
  return sources;
}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
